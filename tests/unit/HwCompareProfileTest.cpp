// relayout profile --hw: the runtime's per-line sums of SASS metrics, the profile's `hw` object it
// writes, and core's reading of it (valid and malformed).
#include "relayout/core/Profile.h"
#include "relayout/rt_host.h"
#include "relayout/rt_hw.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>

#include <algorithm>
#include <cstdlib>

namespace relayout {
namespace {

using nlohmann::json;
namespace hw = rt::hw;

hw::PcSample pc(const std::string& file, unsigned line, const std::string& function, uint64_t inst, uint64_t ld,
                uint64_t st, uint64_t sectors, uint64_t ideal) {
  hw::PcSample p;
  p.file = file;
  p.line = line;
  p.function = function;
  p.values[hw::kInstExecuted] = inst;
  p.values[hw::kGlobalLoads] = ld;
  p.values[hw::kGlobalStores] = st;
  p.values[hw::kSectors] = sectors;
  p.values[hw::kIdealSectors] = ideal;
  return p;
}

// A profile document around an `hw` object given as JSON text, as the runtime writes it.
json profileWith(const std::string& hwText) {
  return json::parse(R"({"format": "relayout-profile", "version": 1, "device": "GPU", "created": "t",
                         "command": ["./a"], "kernels": [], "units": [], "hw": )" +
                     hwText + "}");
}

std::vector<hw::PcSample> samples() {
  const std::string src = "/work/app/stream.cu";
  return {
      // two instructions of one line in one kernel: AoS load and store, 32 sectors each, ideal 4
      pc(src, 12, "_Z4kickP1Pi", 100, 100, 0, 3200, 400),
      pc(src, 12, "_Z4kickP1Pi", 100, 0, 100, 3200, 400),
      // the same line in another kernel
      pc(src, 12, "_Z5driftP1Pi", 10, 10, 0, 40, 40),
      // not a global memory instruction: left out
      pc(src, 12, "_Z4kickP1Pi", 500, 0, 0, 0, 0),
      // the instrumented build's counters: left out, counted
      pc("/opt/relayout/runtime/include/relayout/rt.cuh", 300, "_Z4kickP1Pi", 7, 0, 0, 7, 7),
      pc("/x/include/relayout/warp_classify.h", 20, "_Z4kickP1Pi", 3, 3, 0, 3, 3),
      // no line: left out, counted
      pc("", 0, "_Z4kickP1Pi", 5, 5, 0, 5, 5),
  };
}

TEST(HwRuntime, SumsGlobalMemoryInstructionsPerLineAndFunction) {
  auto profile = Profile::fromJson(profileWith(hw::renderHwJson("NVIDIA H200", "GH100", samples())), "p.json");
  ASSERT_TRUE(static_cast<bool>(profile)) << llvm::toString(profile.takeError());
  ASSERT_TRUE(profile->hw.has_value());
  const HwProfile& h = *profile->hw;
  EXPECT_EQ(h.source, "cupti-sass-metrics");
  EXPECT_EQ(h.device, "NVIDIA H200");
  EXPECT_EQ(h.chip, "GH100");
  EXPECT_EQ(h.runtimeInstructions, 10u);
  EXPECT_EQ(h.unmappedInstructions, 5u);
  ASSERT_EQ(h.metrics.size(), 5u);
  const std::pair<std::string, std::string> sectors{"sectors", "smsp__sass_sectors_mem_global"};
  EXPECT_NE(std::find(h.metrics.begin(), h.metrics.end(), sectors), h.metrics.end());
  ASSERT_EQ(h.lines.size(), 2u);
  const HwLine* kick = nullptr;
  for (const HwLine& l : h.lines)
    if (l.function == "drift(P*, int)") {
      EXPECT_EQ(l.instructions, 10u);
    } else {
      kick = &l;
    }
  ASSERT_NE(kick, nullptr);
  EXPECT_EQ(kick->function, "kick(P*, int)");
  EXPECT_EQ(kick->file, "/work/app/stream.cu");
  EXPECT_EQ(kick->line, 12u);
  EXPECT_EQ(kick->instructions, 200u);
  EXPECT_EQ(kick->loads, 100u);
  EXPECT_EQ(kick->stores, 100u);
  EXPECT_EQ(kick->sectors, 6400u);
  EXPECT_EQ(kick->idealSectors, 800u);
}

TEST(HwRuntime, NoSamplesGiveAnEmptyLineList) {
  auto profile = Profile::fromJson(profileWith(hw::renderHwJson("", "", {})), "p.json");
  ASSERT_TRUE(static_cast<bool>(profile)) << llvm::toString(profile.takeError());
  ASSERT_TRUE(profile->hw.has_value());
  EXPECT_TRUE(profile->hw->lines.empty());
}

TEST(HwRuntime, PathsAndRuntimeFiles) {
  EXPECT_EQ(hw::sourcePath("/abs/a.cu", "/build"), "/abs/a.cu");
  EXPECT_EQ(hw::sourcePath("a.cu", "/src"), "/src/a.cu");
  EXPECT_EQ(hw::sourcePath("a.cu", "/src/"), "/src/a.cu");
  EXPECT_EQ(hw::sourcePath("a.cu", nullptr), "a.cu");
  EXPECT_EQ(hw::sourcePath(nullptr, "/src"), "");
  EXPECT_TRUE(hw::isRuntimeFile("/r/runtime/include/relayout/rt.cuh"));
  EXPECT_TRUE(hw::isRuntimeFile("rt.cuh"));
  EXPECT_TRUE(hw::isRuntimeFile("/r/include/relayout/warp_classify.h"));
  EXPECT_TRUE(hw::isRuntimeFile("/r/include/relayout/rt_trace.cuh"));
  EXPECT_FALSE(hw::isRuntimeFile("/app/myrt.cuh"));
  EXPECT_FALSE(hw::isRuntimeFile("/app/stream.cu"));
}

TEST(HwRuntime, RequestedByEnvironment) {
  unsetenv("RELAYOUT_HW");
  EXPECT_FALSE(hw::requested());
  setenv("RELAYOUT_HW", "0", 1);
  EXPECT_FALSE(hw::requested());
  setenv("RELAYOUT_HW", "1", 1);
  EXPECT_TRUE(hw::requested());
  unsetenv("RELAYOUT_HW");
}

TEST(HwRuntime, ProfileWriterEmitsTheHwObject) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("hw", "json", path));
  rt::clearRegisteredUnits();
  rt::ProfileMeta meta;
  meta.device = "NVIDIA H200";
  meta.hw = hw::renderHwJson(meta.device, "GH100", samples());
  ASSERT_EQ(rt::writeProfile(path.str().str(), meta), "");
  auto profile = Profile::load(path);
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(static_cast<bool>(profile)) << llvm::toString(profile.takeError());
  ASSERT_TRUE(profile->hw.has_value());
  EXPECT_EQ(profile->hw->lines.size(), 2u);

  // Without --hw the profile has no hw object.
  meta.hw.clear();
  ASSERT_EQ(rt::writeProfile(path.str().str(), meta), "");
  auto plain = Profile::load(path);
  llvm::sys::fs::remove(path);
  ASSERT_TRUE(static_cast<bool>(plain)) << llvm::toString(plain.takeError());
  EXPECT_FALSE(plain->hw.has_value());
}

TEST(HwProfileFormat, RoundTrip) {
  auto first = Profile::fromJson(profileWith(hw::renderHwJson("D", "C", samples())), "p.json");
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  auto second = Profile::fromJson(json::parse(first->toJson().dump()), "p.json");
  ASSERT_TRUE(static_cast<bool>(second)) << llvm::toString(second.takeError());
  ASSERT_TRUE(second->hw.has_value());
  EXPECT_EQ(hwToJson(*second->hw), hwToJson(*first->hw));
}

std::string errorOf(const std::string& hwText) {
  auto profile = Profile::fromJson(profileWith(hwText), "bad.json");
  if (profile) return "";
  return llvm::toString(profile.takeError());
}

const char* kValidLine = R"({"file": "a.cu", "line": 3, "function": "k", "instructions": 4, "loads": 2,
                             "stores": 2, "sectors": 8, "ideal_sectors": 8})";

std::string hwObject(const std::string& lines, const std::string& excluded = R"({"runtime_instructions": 0,
                                                                              "unmapped_instructions": 0})") {
  return R"({"source": "cupti-sass-metrics", "device": "D", "chip": "C", "metrics": {"sectors": "s"},
             "excluded": )" +
         excluded + R"(, "lines": )" + lines + "}";
}

TEST(HwProfileFormat, ValidObjectParses) { EXPECT_EQ(errorOf(hwObject(std::string("[") + kValidLine + "]")), ""); }

TEST(HwProfileFormat, MalformedObjectsAreRefusedNamingTheFile) {
  for (const std::string& bad : {
           std::string("[]"),                                                   // not an object
           std::string(R"({"source": "x"})"),                                  // members missing
           hwObject(R"({"a": 1})"),                                             // lines not an array
           hwObject(R"([{"file": "a.cu", "line": 3}])"),                       // row members missing
           hwObject(R"([{"file": "a.cu", "line": -3, "function": "k", "instructions": 4, "loads": 2,
                         "stores": 2, "sectors": 8, "ideal_sectors": 8}])"),  // negative line
           hwObject(R"([{"file": "a.cu", "line": 0, "function": "k", "instructions": 4, "loads": 2,
                         "stores": 2, "sectors": 8, "ideal_sectors": 8}])"),  // no line
           hwObject(R"([{"file": "a.cu", "line": 3, "function": "k", "instructions": 3, "loads": 2,
                         "stores": 2, "sectors": 8, "ideal_sectors": 8}])"),  // more loads+stores than instr
           hwObject(std::string("[") + kValidLine + "]", R"({"runtime_instructions": 0})"),  // excluded short
           hwObject(std::string("[") + kValidLine + "]", R"("none")"),                       // excluded wrong type
       }) {
    const std::string message = errorOf(bad);
    EXPECT_NE(message.find("bad.json"), std::string::npos) << bad;
    // The schema's one-line form (JSON pointer, what was expected), or the reader's for the sum.
    EXPECT_TRUE(message.find("bad.json: /hw") == 0 || message.find("bad.json: malformed relayout-profile") == 0)
        << message;
  }
  EXPECT_NE(errorOf(hwObject(R"([{"file": "a.cu", "line": 3, "function": "k", "instructions": 3, "loads": 2,
                                  "stores": 2, "sectors": 8, "ideal_sectors": 8}])"))
                .find("hw line a.cu:3 has more loads and stores than instructions"),
            std::string::npos);
  auto metricsNotObject = Profile::fromJson(
      profileWith(R"({"source": "s", "device": "D", "chip": "C", "metrics": ["x"],
                      "excluded": {"runtime_instructions": 0, "unmapped_instructions": 0}, "lines": []})"),
      "bad.json");
  ASSERT_FALSE(static_cast<bool>(metricsNotObject));
  EXPECT_EQ(llvm::toString(metricsNotObject.takeError()),
            "bad.json: /hw/metrics: expected an object, got an array of 1");
}

}  // namespace
}  // namespace relayout
