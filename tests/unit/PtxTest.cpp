// Reading what nvcc emitted (analysis/Ptx.h): global memory instructions with their lines, widths
// and loops, and each site's code from them.
#include "relayout/analysis/Ptx.h"

#include <gtest/gtest.h>

namespace relayout {
namespace {

// The shape of nvcc -O3 -lineinfo output for `f[i].v += q.w; ...` in a loop (line 8), with the
// loads of f[i] hoisted before the loop and its stores left in it, a vector load of a float4
// (line 7), and a shared-memory load that is not global.
constexpr const char* kPtx = R"(//
.version 8.8
.target sm_90
.address_size 64
	// .globl	_Z3aosP1FPK6float4PKiii
.visible .entry _Z3aosP1FPK6float4PKiii(
	.param .u64 _Z3aosP1FPK6float4PKiii_param_0,
	.param .u32 _Z3aosP1FPK6float4PKiii_param_4
)
{
	.reg .f32 	%f<90>;
	.loc	1 3 0
	ld.param.u64 	%rd11, [_Z3aosP1FPK6float4PKiii_param_0];
	.loc	1 8 5
	ld.global.f32 	%f80, [%rd3];
	ld.global.f32 	%f79, [%rd3+4];
$L__BB0_3:
	.loc	1 7 5
	ld.global.u32 	%r20, [%rd27];
	ld.global.nc.v4.f32 	{%f25, %f26, %f27, %f28}, [%rd17];
	ld.shared.f32 	%f1, [%r1];
	.loc	1 8 5, function_name $L__info_string0, inlined_at 1 30 2
	st.global.f32 	[%rd3], %f33;
	st.global.f32 	[%rd3+4], %f34;
	@%p5 bra 	$L__BB0_3;
	.loc	1 9 1
	atom.global.add.u32 	%r5, [%rd9], 1;
	ret;
}
.func  (.param .b32 func_retval0) _Z4readPK1P(
	.param .b64 _Z4readPK1P_param_0
)
{
	.loc	1 20 3
	ld.u8 	%rs1, [%rd1];
	ld.global.v2.f64 	{%fd1, %fd2}, [%rd1+8];
	ld.global.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd1+32];
	ret;
}
	.file	1 "/home/user/app/src/acc.cu", 1700000000, 2048
)";

TEST(PtxTest, GlobalAccessesWithTheirLinesWidthsAndLoops) {
  llvm::Expected<PtxModule> m = parsePtx(kPtx, "acc.ptx");
  ASSERT_TRUE(bool(m)) << llvm::toString(m.takeError());
  // ld.param and ld.shared are not global; the generic ld.u8 may be.
  ASSERT_EQ(m->accesses.size(), 10u);
  const PtxAccess& hoisted = m->accesses[0];
  EXPECT_EQ(hoisted.line, 8u);
  EXPECT_TRUE(hoisted.load);
  EXPECT_FALSE(hoisted.store);
  EXPECT_EQ(hoisted.width, 4u);
  EXPECT_EQ(hoisted.loopDepth, 0u);  // before the loop's label
  EXPECT_EQ(hoisted.function, "_Z3aosP1FPK6float4PKiii");
  EXPECT_EQ(hoisted.file, "/home/user/app/src/acc.cu");  // .file comes last in nvcc's output
  const PtxAccess& vector = m->accesses[3];
  EXPECT_EQ(vector.line, 7u);
  EXPECT_EQ(vector.width, 16u);  // .nc.v4.f32
  EXPECT_EQ(vector.loopDepth, 1u);
  const PtxAccess& store = m->accesses[4];
  EXPECT_EQ(store.line, 8u);  // the .loc's own line, not the inlined_at one
  EXPECT_TRUE(store.store);
  EXPECT_EQ(store.loopDepth, 1u);
  const PtxAccess& atomic = m->accesses[6];
  EXPECT_TRUE(atomic.load && atomic.store);
  EXPECT_EQ(atomic.loopDepth, 0u);  // after the back edge
  EXPECT_EQ(m->accesses[7].function, "_Z4readPK1P");
  EXPECT_EQ(m->accesses[7].width, 1u);
  EXPECT_EQ(m->accesses[8].width, 16u);  // v2.f64
  EXPECT_EQ(m->accesses[8].element, 8u);
}

TEST(PtxTest, NotPtxIsAnError) {
  llvm::Expected<PtxModule> m = parsePtx("int main() {}\n", "a.ptx");
  ASSERT_FALSE(bool(m));
  EXPECT_EQ(llvm::toString(m.takeError()), "a.ptx: is not PTX (no .version directive)");
}

TEST(PtxTest, NaturalWidthsOfFieldsInArraysOfTheirOwn) {
  EXPECT_EQ(naturalWidth(4, 0, 4), 4u);     // float
  EXPECT_EQ(naturalWidth(12, 0, 4), 4u);    // float3: three scalar loads
  EXPECT_EQ(naturalWidth(16, 0, 16), 16u);  // float4, double2
  EXPECT_EQ(naturalWidth(4, 4, 16), 4u);    // .y of a float4
  EXPECT_EQ(naturalWidth(1, 0, 1), 1u);     // unsigned char
  EXPECT_EQ(naturalWidth(8, 8, 8), 8u);     // one double of an array field
}

// A site map for the accumulate-in-loop shape: F {v, x, y, z}; sites on lines 8 (read-write, in
// loop 0 of kernel aos) and 7 (none: float4 is not a struct of the map).
SiteMap accumulateMap() {
  SiteMap map;
  StructInfo f;
  f.name = "F";
  f.size = 16;
  f.align = 4;
  for (unsigned i = 0; i < 4; ++i) f.fields.push_back({std::string(1, "vxyz"[i]), "float", 4 * i, 4, 4, {}});
  map.structs = {f};
  FunctionInfo k;
  k.name = "aos";
  k.isKernel = true;
  map.functions = {k};
  LoopInfo loop;
  loop.id = 0;
  loop.function = "aos";
  map.loops = {loop};
  for (unsigned i = 0; i < 2; ++i) {
    SiteInfo s;
    s.id = i;
    s.location = {"src/acc.cu", 8, 5 + 15 * i};
    s.structName = "F";
    s.field = f.fields[i].name;
    s.offset = 4 * i;
    s.size = 4;
    s.access = AccessKind::ReadWrite;
    s.function = "aos";
    s.loop = 0;
    map.sites.push_back(s);
  }
  SiteInfo helper = map.sites[0];
  helper.id = 2;
  helper.location = {"acc.cu", 20, 3};
  helper.access = AccessKind::Read;
  helper.function = "read";
  helper.loop.reset();
  map.sites.push_back(helper);
  return map;
}

TEST(PtxTest, SiteCodeSeesHoistedLoadsAndVectorWidths) {
  llvm::Expected<PtxModule> m = parsePtx(kPtx, "acc.ptx");
  ASSERT_TRUE(bool(m));
  SiteMap map = accumulateMap();
  EXPECT_EQ(sourceLoopDepth(map, map.sites[0]), 1u);
  std::vector<SiteCode> code = siteCode(map, {&*m});
  ASSERT_EQ(code.size(), 3u);
  // Line 8: the loads lie before the loop (hoisted), the stores in it: half the site's directions.
  EXPECT_TRUE(code[0].found);
  EXPECT_DOUBLE_EQ(code[0].hoisted, 0.5);
  EXPECT_DOUBLE_EQ(code[0].requests, 2.0);  // one 4-byte load, one 4-byte store
  EXPECT_EQ(code[0].width, 4u);
  // The helper's line 20 has a 16-byte load of floats: a 4-byte site shares it with three others
  // (the 16-byte load of doubles beside it cannot carry a 4-byte field).
  EXPECT_TRUE(code[2].found);
  EXPECT_DOUBLE_EQ(code[2].requests, 0.25);
  EXPECT_DOUBLE_EQ(code[2].hoisted, 0);  // no source loop
}

TEST(PtxTest, ASiteWithoutInstructionsKeepsItsNaturalRequests) {
  SiteMap map = accumulateMap();
  map.sites[0].location.line = 99;
  PtxModule empty;
  std::vector<SiteCode> code = siteCode(map, {&empty});
  EXPECT_FALSE(code[0].found);
  EXPECT_DOUBLE_EQ(code[0].requests, 2.0);  // read-write: a load and a store of one float
  EXPECT_DOUBLE_EQ(code[0].hoisted, 0);
}

}  // namespace
}  // namespace relayout
