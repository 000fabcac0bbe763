// relayout batch's child processes (tool/batch/Spawn.h): started in the folder asked for, with the
// environment added, their output in the log; a time limit or a stop ends the whole group.
#include "build/Spawn.h"

#include "TempDirs.h"

#include <gtest/gtest.h>
#include <llvm/Support/MemoryBuffer.h>

#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <thread>

namespace relayout::batch {
namespace {

std::string readAll(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

TEST(BatchSpawn, RunsInItsFolderWithTheAddedEnvironment) {
  test::TempDirs dirs;
  const std::string dir = dirs.make("relayout-spawn");
  ASSERT_FALSE(dir.empty());
  const std::string log = dir + "/out.log";
  volatile std::sig_atomic_t stop = 0;
  llvm::Expected<pid_t> pid =
      spawn({"/bin/sh", "-c", "pwd; echo \"$RELAYOUT_SPAWN_TEST\"; exit 3"}, dir, log, {"RELAYOUT_SPAWN_TEST=seen"});
  ASSERT_TRUE(static_cast<bool>(pid)) << llvm::toString(pid.takeError());
  const int status = waitWithin(*pid, 60, stop);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  llvm::SmallString<256> real;
  llvm::sys::fs::real_path(dir, real);
  EXPECT_EQ(readAll(log), real.str().str() + "\nseen\n");
}

TEST(BatchSpawn, ATimeLimitStopsTheWholeGroup) {
  test::TempDirs dirs;
  const std::string dir = dirs.make("relayout-spawn");
  ASSERT_FALSE(dir.empty());
  volatile std::sig_atomic_t stop = 0;
  // The child's own child would outlive a kill of the child alone, and write the file.
  llvm::Expected<pid_t> pid = spawn({"/bin/sh", "-c", "(sleep 3; touch late) & sleep 30"}, dir, dir + "/out.log", {});
  ASSERT_TRUE(static_cast<bool>(pid)) << llvm::toString(pid.takeError());
  const auto start = std::chrono::steady_clock::now();
  const int status = waitWithin(*pid, 1, stop);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/late"));
}

TEST(BatchSpawn, AStopEndsItBeforeItsLimit) {
  test::TempDirs dirs;
  const std::string dir = dirs.make("relayout-spawn");
  ASSERT_FALSE(dir.empty());
  volatile std::sig_atomic_t stop = 1;
  llvm::Expected<pid_t> pid = spawn({"/bin/sh", "-c", "sleep 30"}, dir, dir + "/out.log", {});
  ASSERT_TRUE(static_cast<bool>(pid)) << llvm::toString(pid.takeError());
  const auto start = std::chrono::steady_clock::now();
  const int status = waitWithin(*pid, 600, stop);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(WIFSIGNALED(status));
}

TEST(BatchSpawn, AProgramThatIsNotThereIsAnError) {
  llvm::Expected<pid_t> pid = spawn({"/nonexistent/relayout-program"}, "/", "/dev/null", {});
  ASSERT_FALSE(static_cast<bool>(pid));
  EXPECT_NE(llvm::toString(pid.takeError()).find("cannot start /nonexistent/relayout-program"), std::string::npos);
}

}  // namespace
}  // namespace relayout::batch
