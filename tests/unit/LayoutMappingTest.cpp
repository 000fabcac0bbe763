// core/LayoutMapping.h: where every field lives under AoS, SoA, AoSoA and clusters, checked
// against offsets worked out by hand for one struct
//   struct F3 { float x, y, z; };                                 // 12 bytes, align 4
//   struct P { double m; F3 pos; float n[4][3]; char tag; };      // m@0 pos@8 n@20 tag@68, sizeof 72
#include "relayout/core/LayoutMapping.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

std::vector<MappedField> particle() {
  return {{"m", 8, 8, 0, {}}, {"pos", 12, 4, 8, {}}, {"n", 48, 4, 20, {4, 3}}, {"tag", 1, 1, 68, {}}};
}

FieldAddress at(const LayoutMapping& m, const std::string& field, uint64_t element, uint64_t inField) {
  const FieldPlacement* p = m.place(field);
  EXPECT_NE(p, nullptr) << field;
  return p ? m.locate(*p, element, inField) : FieldAddress{};
}

TEST(LayoutMapping, AoSIsTheDeclaredStruct) {
  LayoutMapping m = LayoutMapping::aos(particle(), 72, 8);
  EXPECT_EQ(m.kind(), MappingKind::AoS);
  ASSERT_EQ(m.clusters().size(), 1u);
  EXPECT_EQ(m.regions(), 1u);
  EXPECT_EQ(m.clusters()[0].bytes, 72u);
  EXPECT_EQ(m.clusters()[0].paddingBytes(), 72u - 69u);
  EXPECT_FALSE(m.clusters()[0].split);
  EXPECT_EQ(at(m, "pos", 3, 4), (FieldAddress{0, 3 * 72 + 8 + 4}));
  EXPECT_EQ(at(m, "n", 2, 16), (FieldAddress{0, 2 * 72 + 20 + 16}));
  EXPECT_EQ(at(m, "tag", 1, 0), (FieldAddress{0, 72 + 68}));
}

TEST(LayoutMapping, SoASplitsArrayFieldsByIndex) {
  LayoutMapping m = LayoutMapping::soa(particle());
  ASSERT_EQ(m.clusters().size(), 4u);
  // m: region 0; pos: region 1; n: 12 runs, regions 2..13; tag: region 14.
  EXPECT_EQ(m.regions(), 15u);
  const ClusterStorage& n = m.clusters()[2];
  EXPECT_TRUE(n.split);
  EXPECT_EQ(n.runs, 12u);
  EXPECT_EQ(n.runBytes, 4u);
  EXPECT_EQ(n.firstRegion, 2u);
  EXPECT_EQ(m.clusters()[3].firstRegion, 14u);
  EXPECT_FALSE(m.clusters()[1].alignedStruct);  // a lone field is a plain array of itself
  EXPECT_EQ(m.clusters()[1].bytes, 12u);
  EXPECT_EQ(at(m, "m", 5, 0), (FieldAddress{0, 40}));
  EXPECT_EQ(at(m, "pos", 3, 4), (FieldAddress{1, 3 * 12 + 4}));
  // n[1][2] of element 5: flat index 5, so run 5 (region 7), value 5 of it.
  EXPECT_EQ(at(m, "n", 5, (1 * 3 + 2) * 4), (FieldAddress{7, 5 * 4}));
  EXPECT_EQ(at(m, "n", 5, 0), (FieldAddress{2, 5 * 4}));
  EXPECT_EQ(at(m, "tag", 9, 0), (FieldAddress{14, 9}));
}

TEST(LayoutMapping, FieldsKeptWholeAreNotSplit) {
  LayoutMapping m = LayoutMapping::soa(particle(), {"n"});
  EXPECT_EQ(m.regions(), 4u);
  EXPECT_FALSE(m.clusters()[2].split);
  EXPECT_EQ(m.clusters()[2].bytes, 48u);
  EXPECT_EQ(at(m, "n", 5, 20), (FieldAddress{2, 5 * 48 + 20}));
  EXPECT_EQ(at(m, "tag", 9, 0), (FieldAddress{3, 9}));
}

TEST(LayoutMapping, AoSoATilesTheSoAPartition) {
  LayoutMapping m = LayoutMapping::aosoa(particle());
  EXPECT_EQ(m.regions(), 1u);
  // Runs of 32 elements: m 0..256, pos 256..640, n 640..2176 (kept whole), tag 2176..2208.
  EXPECT_EQ(m.clusters()[1].tileOffset, 256u);
  EXPECT_EQ(m.clusters()[2].tileOffset, 640u);
  EXPECT_EQ(m.clusters()[3].tileOffset, 2176u);
  EXPECT_FALSE(m.clusters()[2].split);
  EXPECT_EQ(m.tileBytes(), 2208u);
  EXPECT_EQ(at(m, "pos", 33, 4), (FieldAddress{0, 2208 + 256 + 12 + 4}));
  EXPECT_EQ(at(m, "n", 2, 20), (FieldAddress{0, 640 + 2 * 48 + 20}));
}

TEST(LayoutMapping, TileIsRoundedToTheWidestField) {
  LayoutMapping m = LayoutMapping::aosoa({{"c", 1, 1, 0, {}}, {"d", 8, 8, 8, {}}, {"e", 1, 1, 16, {}}});
  EXPECT_EQ(m.clusters()[2].tileOffset, 32u + 256u);
  EXPECT_EQ(m.tileBytes(), 320u);  // 32 + 256 + 32
}

TEST(LayoutMapping, MultiFieldClustersAreAlignedStructs) {
  LayoutMapping m = LayoutMapping::clustered(particle(), {{"pos", "tag"}, {"n"}, {"m"}});
  ASSERT_EQ(m.clusters().size(), 3u);
  const ClusterStorage& hot = m.clusters()[0];
  EXPECT_TRUE(hot.alignedStruct);
  EXPECT_EQ(hot.offsets, (std::vector<uint64_t>{0, 12}));
  EXPECT_EQ(hot.bytes, 16u);  // 13 bytes rounded up to 16
  EXPECT_EQ(hot.align, 16u);
  EXPECT_EQ(hot.dataBytes, 13u);
  EXPECT_EQ(hot.paddingBytes(), 3u);
  // A lone array field is split, as in SoA; the region after its runs is the next cluster's.
  EXPECT_TRUE(m.clusters()[1].split);
  EXPECT_EQ(m.clusters()[2].firstRegion, 13u);
  EXPECT_EQ(m.clusters()[2].paddingBytes(), 0u);
  EXPECT_EQ(at(m, "tag", 2, 0), (FieldAddress{0, 2 * 16 + 12}));
  EXPECT_EQ(at(m, "n", 4, 4), (FieldAddress{2, 4 * 4}));
  EXPECT_EQ(at(m, "m", 4, 0), (FieldAddress{13, 32}));
}

TEST(LayoutMapping, ClusterFieldsFollowClusterOrderAtTheirAlignment) {
  LayoutMapping m = LayoutMapping::clustered(particle(), {{"tag", "m"}, {"pos", "n"}});
  EXPECT_EQ(m.clusters()[0].offsets, (std::vector<uint64_t>{0, 8}));  // tag, then m at 8
  EXPECT_EQ(m.clusters()[0].bytes, 16u);
  // A multi-field cluster keeps its array field whole: 12 + 48 = 60, padded to 64.
  EXPECT_FALSE(m.clusters()[1].split);
  EXPECT_EQ(m.clusters()[1].offsets, (std::vector<uint64_t>{0, 12}));
  EXPECT_EQ(m.clusters()[1].bytes, 64u);
  EXPECT_EQ(m.clusters()[1].paddingBytes(), 4u);
  EXPECT_EQ(m.regions(), 2u);
  EXPECT_EQ(at(m, "n", 3, 8), (FieldAddress{1, 3 * 64 + 12 + 8}));
  LayoutMapping partial = LayoutMapping::clustered(particle(), {{"m", "tag"}});
  EXPECT_EQ(partial.place("pos"), nullptr);  // in no cluster
}

TEST(LayoutMapping, WideFieldsRaiseAClusterAlignment) {
  LayoutMapping m = LayoutMapping::clustered({{"a", 4, 4, 0, {}}, {"v", 32, 32, 32, {}}}, {{"a", "v"}});
  EXPECT_EQ(m.clusters()[0].align, 32u);
  EXPECT_EQ(m.clusters()[0].offsets, (std::vector<uint64_t>{0, 32}));
  EXPECT_EQ(m.clusters()[0].bytes, 64u);
}

TEST(LayoutMapping, ClustersAreAlignedToTheirSizeUpToSixteen) {
  // A pair of floats is 8 bytes aligned to 8 (one 64-bit load, no padding); two chars 2; three
  // floats 12, rounded to 16; six floats 24, aligned to 16 and so 32; a double and a char 9 -> 16.
  auto cluster = [](std::vector<MappedField> fields) {
    std::vector<std::string> names;
    for (const MappedField& f : fields) names.push_back(f.name);
    return LayoutMapping::clustered(std::move(fields), {names}).clusters()[0];
  };
  auto floats = [](int n) {
    std::vector<MappedField> out;
    for (int i = 0; i < n; ++i) out.push_back({"f" + std::to_string(i), 4, 4, uint64_t(4 * i), {}});
    return out;
  };
  EXPECT_EQ(cluster(floats(2)).align, 8u);
  EXPECT_EQ(cluster(floats(2)).bytes, 8u);
  EXPECT_EQ(cluster(floats(2)).paddingBytes(), 0u);
  const ClusterStorage chars = cluster({{"a", 1, 1, 0, {}}, {"b", 1, 1, 1, {}}});
  EXPECT_EQ(chars.align, 2u);
  EXPECT_EQ(chars.bytes, 2u);
  EXPECT_EQ(cluster(floats(3)).align, 16u);
  EXPECT_EQ(cluster(floats(3)).bytes, 16u);
  EXPECT_EQ(cluster(floats(6)).align, 16u);
  EXPECT_EQ(cluster(floats(6)).bytes, 32u);
  EXPECT_EQ(cluster({{"d", 8, 8, 0, {}}, {"c", 1, 1, 8, {}}}).bytes, 16u);
  EXPECT_EQ(clusterAlign(8, 4), 8u);
  EXPECT_EQ(clusterAlign(40, 8), 16u);
  EXPECT_EQ(clusterAlign(4, 32), 32u);  // a wider field's own alignment wins
}

TEST(LayoutMapping, ReadsASiteMapStruct) {
  StructInfo s{"P", {}, 72, 8, {{"m", "double", 0, 8, 8, {}}, {"n", "float [4][3]", 20, 48, 4, {4, 3}}}};
  std::vector<MappedField> fields = mappedFields(s);
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[1].extents, (std::vector<uint64_t>{4, 3}));
  EXPECT_EQ(fields[1].offset, 20u);
  EXPECT_TRUE(LayoutMapping::soa(fields).clusters()[1].split);
}

}  // namespace
}  // namespace relayout
