// The nvcc commands relayout plans for building an instrumented program (tool/build/BuildPlan.h), and
// the compile database entries they start from (tool/build/CompileFlags.h).
#include "build/BuildPlan.h"
#include "build/CompileFlags.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <fstream>

namespace relayout {
namespace {

const RuntimeToolchain kToolchain{"/cuda/bin/nvcc", "/rl/runtime/include", "/rl/librelayout_rt.a", "/cuda/lib64"};

// Where `arg` is in `args`, or -1.
long indexOf(const std::vector<std::string>& args, const std::string& arg) {
  auto at = std::find(args.begin(), args.end(), arg);
  return at == args.end() ? -1 : at - args.begin();
}

BuildRequest twoUnits() {
  BuildRequest request;
  request.compileSeparately = true;
  request.objectDir = "out/obj";
  request.program = "out/program";
  request.units = {{"src/a.cu", "out/a.cu", {"-I/p/include", "-DN=4", "-arch=sm_90", "-std=c++17"}},
                   {"lib/b.cu", "out/b.cu", {"-I/p/include", "-gencode", "arch=compute_80,code=sm_80", "-arch=sm_90"}}};
  return request;
}

TEST(BuildPlanTest, EachUnitCompiledWithItsOwnFlagsThenOneLink) {
  std::vector<NvccCommand> commands = planBuild(twoUnits(), kToolchain);
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0].text(), "/cuda/bin/nvcc -I src -I/p/include -DN=4 -arch=sm_90 -std=c++17 "
                                "-I /rl/runtime/include -lineinfo -c out/a.cu -o out/obj/a.o");
  EXPECT_EQ(commands[0].output, "out/obj/a.o");
  EXPECT_EQ(commands[1].text(), "/cuda/bin/nvcc -I lib -I/p/include -gencode arch=compute_80,code=sm_80 "
                                "-arch=sm_90 -I /rl/runtime/include -lineinfo -c out/b.cu -o out/obj/b.o");
  // The link targets every architecture a unit names, once each.
  EXPECT_EQ(commands[2].text(), "/cuda/bin/nvcc -arch=sm_90 -gencode arch=compute_80,code=sm_80 out/obj/a.o "
                                "out/obj/b.o -o out/program /rl/librelayout_rt.a -L/cuda/lib64 -Xlinker "
                                "-rpath=/cuda/lib64 -lcupti -lcuda");
  EXPECT_EQ(commands[2].output, "out/program");
}

TEST(BuildPlanTest, InstrumentedHeadersAreSearchedBeforeTheOriginalIncludeFolders) {
  BuildRequest request = twoUnits();
  request.copiedIncludeRoots = {"out/include"};
  for (const NvccCommand& compile : {planBuild(request, kToolchain)[0], planBuild(request, kToolchain)[1]}) {
    long root = indexOf(compile.args, "out/include");
    ASSERT_GE(root, 0) << compile.text();
    EXPECT_LT(root, indexOf(compile.args, "-I/p/include")) << compile.text();
  }
  request.compileSeparately = false;
  NvccCommand one = planBuild(request, kToolchain).at(0);
  EXPECT_LT(indexOf(one.args, "out/include"), indexOf(one.args, "-I/p/include")) << one.text();
}

TEST(BuildPlanTest, RelocatableDeviceCodeMakesTheLinkADeviceLink) {
  BuildRequest request = twoUnits();
  request.units[1].flags = {"-dc", "-arch=sm_90"};
  std::vector<NvccCommand> commands = planBuild(request, kToolchain);
  EXPECT_EQ(indexOf(commands[1].args, "-c"), -1) << "-dc compiles already: " << commands[1].text();
  EXPECT_GE(indexOf(commands[2].args, "-rdc=true"), 0) << commands[2].text();
  request.units[1].flags = {"-rdc", "true", "-arch=sm_90"};
  EXPECT_GE(indexOf(planBuild(request, kToolchain)[2].args, "-rdc=true"), 0);
  EXPECT_EQ(indexOf(planBuild(twoUnits(), kToolchain)[2].args, "-rdc=true"), -1);
}

TEST(BuildPlanTest, NoArchitectureMeansThisMachinesGpuAndTheHostCompilerFollowsToTheLink) {
  BuildRequest request = twoUnits();
  request.units = {{"a.cu", "out/a.cu", {"-ccbin", "/opt/gcc12/bin/g++", "-lineinfo"}}};
  std::vector<NvccCommand> commands = planBuild(request, kToolchain);
  ASSERT_EQ(commands.size(), 2u);
  EXPECT_EQ(commands[0].text(), "/cuda/bin/nvcc -I . -ccbin /opt/gcc12/bin/g++ -lineinfo -I /rl/runtime/include "
                                "-arch=native -c out/a.cu -o out/obj/a.o");
  EXPECT_EQ(commands[1].text(), "/cuda/bin/nvcc -ccbin /opt/gcc12/bin/g++ -arch=native out/obj/a.o -o out/program "
                                "/rl/librelayout_rt.a -L/cuda/lib64 -Xlinker -rpath=/cuda/lib64 -lcupti -lcuda");
}

TEST(BuildPlanTest, WithoutADatabaseOneCommandBuildsEverything) {
  BuildRequest request;
  request.program = "out/program";
  request.units = {{"src/a.cu", "out/a.cu", {"-O3", "-code=sm_90", "-arch=compute_90"}},
                   {"src/b.cu", "out/b.cu", {"-O3", "-code=sm_90", "-arch=compute_90"}}};
  std::vector<NvccCommand> commands = planBuild(request, kToolchain);
  ASSERT_EQ(commands.size(), 1u);
  EXPECT_EQ(commands[0].text(), "/cuda/bin/nvcc -lineinfo -I src -I /rl/runtime/include -O3 -code=sm_90 "
                                "-arch=compute_90 out/a.cu out/b.cu -o out/program /rl/librelayout_rt.a "
                                "-L/cuda/lib64 -Xlinker -rpath=/cuda/lib64 -lcupti -lcuda");
}

// optimize --verify builds the user's program as their flags make it, from the rewritten copies.
TEST(BuildPlanTest, APlainBuildHasNoRuntimeButSearchesTheCopiedHeadersFirst) {
  BuildRequest request = twoUnits();
  request.withRuntime = false;
  request.copiedIncludeRoots = {"out/rewritten/include"};
  std::vector<NvccCommand> commands = planBuild(request, kToolchain);
  ASSERT_EQ(commands.size(), 3u);
  EXPECT_EQ(commands[0].text(), "/cuda/bin/nvcc -I out/rewritten/include -I src -I/p/include -DN=4 -arch=sm_90 "
                                "-std=c++17 -c out/a.cu -o out/obj/a.o");
  EXPECT_EQ(commands[2].text(), "/cuda/bin/nvcc -arch=sm_90 -gencode arch=compute_80,code=sm_80 out/obj/a.o "
                                "out/obj/b.o -o out/program");
  request.compileSeparately = false;
  request.units.pop_back();
  EXPECT_EQ(planBuild(request, kToolchain).at(0).text(),
            "/cuda/bin/nvcc -I out/rewritten/include -I src -I/p/include -DN=4 -arch=sm_90 -std=c++17 out/a.cu "
            "-o out/program");
}

TEST(BuildPlanTest, ArgumentsAreQuotedForTheShell) {
  NvccCommand command{{"nvcc", "-DNAME=\"a b\"", "code=[sm_90]", "it's"}, "x", "x"};
  EXPECT_EQ(command.text(), "nvcc '-DNAME=\"a b\"' 'code=[sm_90]' 'it'\\''s'");
}

// A compile_commands.json in a fresh folder, removed at the end of the test.
class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    llvm::SmallString<128> dir;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("relayout-db", dir));
    dir_ = dir.str().str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir_); }
  void writeDatabase(const std::string& command, const std::string& file) {
    std::ofstream(dir_ + "/compile_commands.json")
        << "[{\"directory\": \"" << dir_ << "/build\", \"command\": \"" << command << "\", \"file\": \"" << file
        << "\"}]";
  }
  std::string dir_;
};

TEST_F(DatabaseTest, EntryFlagsLoseOutputAndDependencyFilesAndGetAbsoluteIncludePaths) {
  writeDatabase("/usr/local/cuda/bin/nvcc -DX=1 -I../include -isystem ../third -I /abs/inc -MD -MT a.o -MF a.d "
                "--generate-code=arch=compute_90,code=[compute_90,sm_90] -x cu -c ../src/a.cu -o a.o",
                dir_ + "/src/a.cu");
  auto compiles = readDatabaseCompiles(dir_, {dir_ + "/src/a.cu"});
  ASSERT_TRUE(static_cast<bool>(compiles)) << llvm::toString(compiles.takeError());
  ASSERT_EQ(compiles->size(), 1u);
  EXPECT_EQ((*compiles)[0].compiler, "/usr/local/cuda/bin/nvcc");
  std::vector<std::string> expected = {"-DX=1", "-I" + dir_ + "/include", "-isystem", dir_ + "/third", "-I",
                                       "/abs/inc", "--generate-code=arch=compute_90,code=[compute_90,sm_90]",
                                       "-x", "cu"};
  EXPECT_EQ((*compiles)[0].flags, expected);
}

TEST_F(DatabaseTest, ACompilerLauncherIsSkipped) {
  writeDatabase("ccache /usr/local/cuda/bin/nvcc -DX=1 -c a.cu", dir_ + "/build/a.cu");
  auto compiles = readDatabaseCompiles(dir_, {dir_ + "/build/a.cu"});
  ASSERT_TRUE(static_cast<bool>(compiles)) << llvm::toString(compiles.takeError());
  EXPECT_EQ((*compiles)[0].compiler, "/usr/local/cuda/bin/nvcc");
  EXPECT_EQ((*compiles)[0].flags, std::vector<std::string>{"-DX=1"});
}

TEST_F(DatabaseTest, MissingEntriesAndOtherCompilersAreErrorsNamingTheSource) {
  writeDatabase("/usr/bin/g++ -c a.cpp", dir_ + "/build/a.cpp");
  auto other = readDatabaseCompiles(dir_, {dir_ + "/build/a.cpp"});
  ASSERT_FALSE(static_cast<bool>(other));
  EXPECT_EQ(llvm::toString(other.takeError()), dir_ + "/build/a.cpp: " + dir_ +
                                                   "/compile_commands.json compiles it with '/usr/bin/g++'; relayout "
                                                   "builds CUDA sources with nvcc");
  auto missing = readDatabaseCompiles(dir_, {dir_ + "/build/b.cu"});
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("b.cu: not compiled by"), std::string::npos);
  auto noDatabase = readDatabaseCompiles(dir_ + "/nowhere", {dir_ + "/build/a.cpp"});
  EXPECT_FALSE(static_cast<bool>(noDatabase));
  llvm::consumeError(noDatabase.takeError());
}

}  // namespace
}  // namespace relayout
