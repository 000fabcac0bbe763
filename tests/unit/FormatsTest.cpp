// The documented files: round trips, and malformed input rejected with the file named.
#include "relayout/core/Files.h"
#include "relayout/core/Plan.h"
#include "relayout/core/Profile.h"
#include "relayout/core/SiteMap.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>

namespace relayout {
namespace {

using nlohmann::json;

SiteMap smallMap() {
  SiteMap map;
  map.sourcePath = "a.cu";
  map.sourceSha256 = std::string(64, 'a');
  map.structs.push_back({"P", {"a.cu", 1, 8}, 8, 4, {{"x", "float", 0, 4, 4}, {"y", "float", 4, 4, 4}}});
  map.functions.push_back({"k", true, {"a.cu", 2, 17}, {"k"}});
  map.loops.push_back({0, "for", "k", {"a.cu", 3, 3}, std::nullopt});
  SiteInfo s;
  s.id = 0;
  s.location = {"a.cu", 4, 5};
  s.structName = "P";
  s.field = "y";
  s.offset = 4;
  s.size = 4;
  s.access = AccessKind::ReadWrite;
  s.function = "k";
  s.kernels = {"k"};
  s.loop = 0;
  map.sites.push_back(s);
  return map;
}

TEST(SiteMapFormat, RoundTripKeepsEveryField) {
  SiteMap map = smallMap();
  auto back = SiteMap::fromJson(json::parse(map.toJson().dump()), "a.sites.json");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->toJson(), map.toJson());
  EXPECT_EQ(back->sites[0].access, AccessKind::ReadWrite);
  EXPECT_EQ(back->sites[0].loop, 0u);
  EXPECT_EQ(back->structs[0].field("y")->offset, 4u);
  EXPECT_FALSE(back->sites[0].unread);
  EXPECT_FALSE(map.toJson()["sites"][0].contains("unread"));  // optional: absent when false
  map.sites[0].unread = true;
  auto unread = SiteMap::fromJson(json::parse(map.toJson().dump()), "a.sites.json");
  ASSERT_TRUE(static_cast<bool>(unread)) << llvm::toString(unread.takeError());
  EXPECT_TRUE(unread->sites[0].unread);
}

// member and instantiations came later in version 1: kept when present, defaulted when absent.
TEST(SiteMapFormat, MemberPathsAndInstantiations) {
  SiteMap map = smallMap();
  map.sites[0].member = "y.re";
  map.functions[0].instantiations = {"k<float>", "k<double>"};
  auto back = SiteMap::fromJson(json::parse(map.toJson().dump()), "a.sites.json");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->sites[0].member, "y.re");
  EXPECT_EQ(back->functions[0].instantiations, (std::vector<std::string>{"k<float>", "k<double>"}));
  json doc = smallMap().toJson();
  doc["sites"][0].erase("member");
  doc["functions"][0].erase("instantiations");
  auto old = SiteMap::fromJson(doc, "old.sites.json");
  ASSERT_TRUE(static_cast<bool>(old)) << llvm::toString(old.takeError());
  EXPECT_EQ(old->sites[0].member, "y");
  EXPECT_TRUE(old->functions[0].instantiations.empty());
}

// extents came later in version 1: kept when present, read from the field's type when absent.
TEST(SiteMapFormat, ExtentsOfOldSiteMapsComeFromTheType) {
  SiteMap map = smallMap();
  map.structs[0].fields.push_back({"n", "float [4][3]", 8, 48, 4, {4, 3}});
  map.structs[0].fields.push_back({"q", "int (*)[4]", 56, 8, 8, {}});
  map.structs[0].fields.push_back({"v", "float3 [2]", 64, 24, 4, {2}});
  map.structs[0].size = 88;
  auto back = SiteMap::fromJson(json::parse(map.toJson().dump()), "a.sites.json");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->structs[0].field("n")->extents, (std::vector<uint64_t>{4, 3}));
  json doc = map.toJson();
  for (json& f : doc["structs"][0]["fields"]) f.erase("extents");
  auto old = SiteMap::fromJson(doc, "old.sites.json");
  ASSERT_TRUE(static_cast<bool>(old)) << llvm::toString(old.takeError());
  EXPECT_EQ(old->structs[0].field("n")->extents, (std::vector<uint64_t>{4, 3}));
  EXPECT_EQ(old->structs[0].field("v")->extents, (std::vector<uint64_t>{2}));
  EXPECT_TRUE(old->structs[0].field("q")->extents.empty());  // a pointer to an array is no array
  EXPECT_TRUE(old->structs[0].field("x")->extents.empty());
}

TEST(SiteMapFormat, MissingFieldIsAnErrorNamingTheFile) {
  json doc = smallMap().toJson();
  doc["sites"][0].erase("field");
  auto map = SiteMap::fromJson(doc, "a.sites.json");
  ASSERT_FALSE(static_cast<bool>(map));
  std::string message = llvm::toString(map.takeError());
  EXPECT_EQ(message,
            "a.sites.json: /sites/0/field: expected a C++ identifier, or \"\" for an unnamed member, got nothing");
}

// Found by scripts/fuzz/mutation-campaign.py: a file's range of ids (files[].first_site + sites,
// likewise loops and kernels) past the unit's last id was accepted.
TEST(SiteMapFormat, FileRangePastTheUnitsIdsIsRejected) {
  SiteMap map = smallMap();
  map.kernels = {"k"};
  map.files.push_back({"a.cu", std::string(64, 'a'), 0, 1, 0, 1, 0, 1});
  ASSERT_TRUE(static_cast<bool>(SiteMap::fromJson(map.toJson(), "a.sites.json")));
  for (const char* member : {"sites", "loops", "kernels"}) {
    json doc = map.toJson();
    doc["files"][0][member] = 2;
    auto bad = SiteMap::fromJson(doc, "a.sites.json");
    ASSERT_FALSE(static_cast<bool>(bad)) << member;
    EXPECT_EQ(llvm::toString(bad.takeError()), std::string("a.sites.json: /files/0/") + member +
                                                   ": expected at most 1 (ids from 0 on, of the unit's 1 " + member +
                                                   "), got 2");
  }
  json doc = map.toJson();
  doc["files"][0]["first_site"] = 1;
  auto bad = SiteMap::fromJson(doc, "a.sites.json");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "a.sites.json: /files/0/sites: expected at most 0 (ids from 1 on, of the unit's 1 sites), got 1");
}

// Found by scripts/fuzz/mutation-campaign.py: a site whose offset and size lie outside its field
// (field y is bytes 4 to 8) was accepted, and the model would replay it at another field's bytes.
TEST(SiteMapFormat, SiteOutsideItsFieldIsRejected) {
  for (auto [offset, size] : {std::pair{8u, 4u}, std::pair{0u, 4u}, std::pair{6u, 4u}}) {
    json doc = smallMap().toJson();
    doc["sites"][0]["offset"] = offset;
    doc["sites"][0]["size"] = size;
    auto bad = SiteMap::fromJson(doc, "a.sites.json");
    ASSERT_FALSE(static_cast<bool>(bad)) << offset;
    EXPECT_EQ(llvm::toString(bad.takeError()),
              fmt::format("a.sites.json: /sites/0/{}: expected bytes inside field y of P (offsets 4 to 8), got {} "
                          "bytes at offset {}",
                          offset < 4 ? "offset" : "size", size, offset));
  }
  json doc = smallMap().toJson();
  doc["sites"][0]["offset"] = 6;  // a member of the field: inside it
  doc["sites"][0]["size"] = 2;
  EXPECT_TRUE(static_cast<bool>(SiteMap::fromJson(doc, "a.sites.json")));
}

TEST(SiteMapFormat, SiteNamingAnUnknownFieldIsRejected) {
  json doc = smallMap().toJson();
  doc["sites"][0]["field"] = "q";
  auto map = SiteMap::fromJson(doc, "a.sites.json");
  ASSERT_FALSE(static_cast<bool>(map));
  EXPECT_EQ(llvm::toString(map.takeError()), "a.sites.json: /sites/0/field: expected a field of P (x, y), got \"q\"");
}

TEST(SiteMapFormat, OtherFormatsAndVersionsAreRefused) {
  json doc = smallMap().toJson();
  doc["format"] = "relayout-plan";
  EXPECT_NE(llvm::toString(SiteMap::fromJson(doc, "x.json").takeError())
                .find("expected a relayout-sitemap, found a relayout-plan"),
            std::string::npos);
  doc = smallMap().toJson();
  doc["version"] = 7;
  EXPECT_NE(llvm::toString(SiteMap::fromJson(doc, "x.json").takeError()).find("version 7 is not supported"),
            std::string::npos);
}

// Found by tests/fuzz (relayout_fuzz_profile): a count written as a float ("1.2e108", or an integer
// too long for 64 bits, which JSON parsers read as a float) was converted to an integer type out of
// its range, which is undefined behaviour. Every number of a site map or a profile is an integer.
TEST(SiteMapFormat, NumberThatIsNotAnIntegerIsRefusedWithItsPlace) {
  for (json number : {json(5e9), json(-1.5), json(2.0)}) {
    json doc = smallMap().toJson();
    doc["sites"][0]["location"]["line"] = number;
    auto map = SiteMap::fromJson(doc, "a.sites.json");
    ASSERT_FALSE(static_cast<bool>(map)) << number;
    std::string message = llvm::toString(map.takeError());
    // The schema refuses it first (formats' own check stays behind it for readers without one).
    EXPECT_EQ(message,
              "a.sites.json: /sites/0/location/line: expected an integer from 0 to 4294967295, got " + number.dump())
        << message;
  }
}

TEST(ProfileFormat, NumberThatIsNotAnIntegerIsRefusedWithItsPlace) {
  Profile p;
  p.units.push_back({"a.cu", std::string(64, 'a'), 1, {{1, 32, 4, 1, 118, 0}}});
  json doc = p.toJson();
  doc["units"][0]["sites"][0][1] = 1.2e108;
  auto bad = Profile::fromJson(doc, "p.json");
  ASSERT_FALSE(static_cast<bool>(bad));
  std::string message = llvm::toString(bad.takeError());
  EXPECT_EQ(message, "p.json: /units/0/sites/0/1: expected an integer from 0 to 18446744073709551615, got 1.2e+108")
      << message;
}

TEST(ProfileFormat, RoundTripAndShortCounterRowsRejected) {
  Profile p;
  p.device = "NVIDIA H200";
  p.created = "2026-11-22T00:00:00Z";
  p.command = {"./a", "-n", "4"};
  p.kernels.push_back({"k(P*)", "_Z1kP1P", 3, 1234});
  p.units.push_back({"a.cu", std::string(64, 'a'), 4, {{1, 32, 4, 1, 118, 0}}});
  auto back = Profile::fromJson(p.toJson(), "p.json");
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->units[0].sites[0].nearLanes, 118u);
  EXPECT_EQ(back->units[0].blockPeriod, 4u);
  EXPECT_EQ(back->kernels[0].totalNs, 1234u);

  json doc = p.toJson();
  doc["units"][0]["sites"][0] = {1, 2, 3};
  auto bad = Profile::fromJson(doc, "p.json");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "p.json: /units/0/sites/0: expected an array of 6 of an integer from 0 to 18446744073709551615, got an "
            "array of 3");
}

// The runtime and core write profiles through formats' one writer (profileText) and read them
// through its one reader: every member survives the text, site rows stay one per line, and the
// reader's errors leave naming the file to its callers.
TEST(ProfileFormat, TextOfTheOneWriterReadsBackWhole) {
  ProfileData p;
  p.device = "NVIDIA H100";
  p.created = "2026-11-22T00:00:00Z";
  p.command = {"./a"};
  p.kernels.push_back({"k(P*)", "_Z1kP1P", 3, 1234});
  UnitProfile unit;
  unit.source = "a.cu";
  unit.sha256 = std::string(64, 'a');
  unit.blockPeriod = 2;
  unit.sites = {{1, 32, 4, 1, 118, 0}, {7, 8, 9, 10, 11, 12}};
  unit.loops = {5};
  unit.sampleLaunches = 3;
  unit.execPeriod = 4;
  unit.kernelBlocks = {{"k", 10, 5}};
  unit.kernelSites = {{1, "k", {7, 8, 9, 10, 11, 12}}};
  unit.functions = {{"k", "h1", {0, 1}, {{8, 0, 0}, {8, 1, 4}}}};
  p.units.push_back(unit);
  p.trace = TraceInfo{"p.trace", 64, 2, 128, 2, 1, {{"k(P*)", 9, 1, {{0, 0}}}}, 4};

  const std::string text = profileText(p);
  EXPECT_NE(text.find("\n        [1,32,4,1,118,0],\n        [7,8,9,10,11,12]\n"), std::string::npos) << text;
  ProfileData back;
  ASSERT_EQ(profileFromJson(json::parse(text), back), "");
  EXPECT_EQ(profileToJson(back), profileToJson(p));
  EXPECT_EQ(back.units[0].functions[0].layouts[1].offset, 4u);
  EXPECT_EQ(back.trace->launches[0].unitKernels.at(0), 0u);
  EXPECT_EQ(back.units[0].execPeriod, 4u);

  EXPECT_EQ(profileFromJson(json{{"format", "relayout-plan"}, {"version", 1}}, back),
            "expected a relayout-profile, found a relayout-plan");
  json doc = json::parse(text);
  doc["units"][0]["sites"][1] = {1, 2, 3};
  EXPECT_EQ(profileFromJson(doc, back), "malformed relayout-profile: a site row of unit a.cu has 3 counters");
}

// A plan's scores and details are floats, but padding_bytes is a count: read as one from a float
// (1e300), nlohmann converted a double out of unsigned's range, undefined behaviour.
TEST(PlanFormat, PaddingThatIsNotACountIsRefused) {
  Plan plan;
  plan.mode = "forced";
  plan.structs.push_back({"P", {"x", "y"}, Layout::Clustered, {{"xy", {"x", "y"}, 8}}, 0, "why", {}});
  for (json padding : {json(1e300), json(-1), json(2.5)}) {
    json doc = plan.toJson();
    doc["structs"][0]["clusters"][0]["padding_bytes"] = padding;
    auto back = Plan::fromJson(doc, "plan.json");
    ASSERT_FALSE(static_cast<bool>(back)) << padding;
    std::string message = llvm::toString(back.takeError());
    EXPECT_EQ(message,
              "plan.json: /structs/0/clusters/0/padding_bytes: expected an integer from 0 to 4294967295, got " +
                  padding.dump())
        << message;
  }
  EXPECT_EQ(Plan::fromJson(plan.toJson(), "plan.json")->structs[0].clusters[0].paddingBytes, 8u);
}

TEST(PlanFormat, RoundTripAndUnknownLayoutRejected) {
  Plan plan;
  plan.mode = "paper";
  plan.sources.push_back({"a.cu", "abc"});
  plan.structs.push_back({"P", {"x", "y"}, Layout::SoA, soaClusters({"x", "y"}), -3.5, "why", {}});
  auto back = Plan::fromJson(plan.toJson(), "plan.json");
  ASSERT_TRUE(static_cast<bool>(back));
  EXPECT_EQ(back->structs[0].layout, Layout::SoA);
  EXPECT_EQ(back->structs[0].clusters[1].fields, std::vector<std::string>{"y"});

  json doc = plan.toJson();
  doc["structs"][0]["layout"] = "zigzag";
  EXPECT_EQ(llvm::toString(Plan::fromJson(doc, "plan.json").takeError()),
            "plan.json: /structs/0/layout: expected one of \"aos\", \"soa\", \"clustered\", \"aligned\", got "
            "\"zigzag\"");
}

// An aligned record (Layout::Aligned): its width written only when set (0: the record's size), read
// back, and refused for another layout or another width.
TEST(PlanFormat, AlignmentOfARecord) {
  Plan plan;
  plan.mode = "model";
  plan.structs.push_back({"C", {"re", "im"}, Layout::Aligned, {}, 0, "why", {}});
  EXPECT_FALSE(plan.toJson()["structs"][0].contains("align"));
  EXPECT_EQ(Plan::fromJson(plan.toJson(), "plan.json")->structs[0].layout, Layout::Aligned);
  plan.structs[0].align = 16;
  auto back = Plan::fromJson(plan.toJson(), "plan.json");
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->structs[0].align, 16u);

  json soa = plan.toJson();
  soa["structs"][0]["layout"] = "soa";
  EXPECT_EQ(llvm::toString(Plan::fromJson(soa, "plan.json").takeError()),
            "plan.json: /structs/0/align: expected no alignment for layout \"soa\", got 16");
  json wide = plan.toJson();
  wide["structs"][0]["align"] = 32;
  EXPECT_EQ(llvm::toString(Plan::fromJson(wide, "plan.json").takeError()),
            "plan.json: /structs/0/align: expected 8 or 16, got 32");
}

TEST(Files, MalformedJsonNamesFileAndOffset) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("relayout-test", "json", path));
  ASSERT_FALSE(static_cast<bool>(writeFileAtomically(path, "{\"format\": ")));
  auto doc = readJsonFile(path);
  ASSERT_FALSE(static_cast<bool>(doc));
  std::string message = llvm::toString(doc.takeError());
  EXPECT_NE(message.find(path.str().str() +
                         ": malformed JSON at byte 12 (line 1, column 12): syntax error while parsing value - "
                         "unexpected end of input"),
            std::string::npos)
      << message;
  llvm::sys::fs::remove(path);
}

// Found by tests/fuzz (relayout_fuzz_profile, relayout_fuzz_plan): a number too large for a double
// is valid JSON syntax that nlohmann refuses with out_of_range, which escaped as an exception.
TEST(Files, NumberTooLargeIsAnErrorNamingTheFile) {
  for (const char* text : {"{\"version\": 1e400}", "[671E08864]"}) {
    auto doc = parseJson(text, "big.json");
    ASSERT_FALSE(static_cast<bool>(doc)) << text;
    std::string message = llvm::toString(doc.takeError());
    EXPECT_EQ(message.rfind("big.json: malformed JSON: number overflow parsing '", 0), 0u) << message;
  }
}

// Found by scripts/fuzz/mutation-campaign.py: a member repeated in one object ("classified" twice,
// the second larger than "blocks") was read as its last value, so a corrupted or hand-merged file
// decided silently on a value the schema never saw twice. relayout's writers never repeat one.
TEST(Files, MemberRepeatedInAnObjectIsRefusedWithItsPlace) {
  auto doc = parseJson(R"({"units": [{"a": 1}, {"kernel_blocks": [{"blocks": 4, "classified": 1, "classified": 9}]}]})",
                       "p.json");
  ASSERT_FALSE(static_cast<bool>(doc));
  EXPECT_EQ(llvm::toString(doc.takeError()),
            "p.json: /units/1/kernel_blocks/0/classified: expected each member once in its object, got it twice");
  auto top = parseJson(R"({"format": "relayout-plan", "a/b": [1, [2, {}]], "format": "relayout-plan"})", "q.json");
  ASSERT_FALSE(static_cast<bool>(top));
  EXPECT_EQ(llvm::toString(top.takeError()), "q.json: /format: expected each member once in its object, got it twice");
  // The same names in different objects, and escaped spellings of different names, are fine.
  auto fine =
      parseJson(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}], "\u0078": 5, "y": [[], {}]})", "r.json");
  ASSERT_TRUE(static_cast<bool>(fine)) << llvm::toString(fine.takeError());
  EXPECT_EQ((*fine)["c"][1]["x"], 4);
  EXPECT_EQ((*fine)["x"], 5);
  // A name written once plainly and once with an escape is the same name.
  auto escaped = parseJson(R"({"x": 1, "\u0078": 2})", "s.json");
  ASSERT_FALSE(static_cast<bool>(escaped));
  EXPECT_EQ(llvm::toString(escaped.takeError()), "s.json: /x: expected each member once in its object, got it twice");
}

TEST(Files, Sha256OfKnownText) {
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace relayout
