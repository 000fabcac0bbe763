// The binary trace reader and writer (core/Trace.h; docs/formats.md, "Trace"): a round trip, and
// every kind of damage refused with the file and the byte offset, never a crash.
#include "relayout/core/Trace.h"

#include "TempDirs.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>

#include <cstring>
#include <fstream>
#include <string>

namespace relayout {
namespace {

std::string tempPath(const std::string& name) { return test::makeTempDir("relayout-trace-test") + "/" + name; }

std::vector<TraceRecord> twoGroups() {
  std::vector<TraceRecord> records;
  for (uint8_t lane = 0; lane < 4; ++lane) records.push_back({0x10000u + 32u * lane, lane, 0, 7, 1, 0, 0, lane, 4});
  records.push_back({0x20000, 9, 1, 3, 0, 1, 2, 5, 1});
  return records;
}

TraceLimits limits() { return {{2, 1}, 2}; }  // unit 0: 2 sites, unit 1: 1 site; 2 launches

std::string bytesOf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string openError(const std::string& path) {
  auto trace = Trace::open(path);
  if (trace) return "";
  return llvm::toString(trace.takeError());
}

TEST(Trace, RoundTripKeepsHeaderAndRecords) {
  std::string path = tempPath("t.trace");
  ASSERT_FALSE(static_cast<bool>(writeTrace(path, makeTraceHeader(4, 2, 1024, 3), twoGroups())));
  EXPECT_EQ(bytesOf(path).size(), 64u + 32u * 5u);
  auto trace = Trace::open(path);
  ASSERT_TRUE(static_cast<bool>(trace)) << llvm::toString(trace.takeError());
  EXPECT_EQ(trace->header().records, 5u);
  EXPECT_EQ(trace->header().dropped, 3u);
  EXPECT_EQ(trace->header().blockPeriod, 4u);
  EXPECT_EQ(trace->header().launchesPerKernel, 2u);
  EXPECT_EQ(trace->header().capacity, 1024u);
  ASSERT_EQ(trace->records().size(), 5u);
  EXPECT_EQ(trace->records()[2].addr, 0x10040u);
  EXPECT_EQ(trace->records()[4].field, 2u);
  EXPECT_FALSE(static_cast<bool>(checkTraceRecords(*trace, limits())));
}

TEST(Trace, HeaderBytesAreTheDocumentedOnes) {
  std::string path = tempPath("h.trace");
  ASSERT_FALSE(static_cast<bool>(writeTrace(path, makeTraceHeader(4, 2, 1024, 3), twoGroups())));
  std::string b = bytesOf(path);
  EXPECT_EQ(b.substr(0, 8), std::string("RLTRACE\0", 8));
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, b.data() + at, 4);
    return v;
  };
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, b.data() + at, 8);
    return v;
  };
  EXPECT_EQ(u32(8), 1u);
  EXPECT_EQ(u32(12), 32u);
  EXPECT_EQ(u64(16), 5u);
  EXPECT_EQ(u64(24), 3u);
  EXPECT_EQ(u32(32), 4u);
  EXPECT_EQ(u32(36), 2u);
  EXPECT_EQ(u64(40), 1024u);
  EXPECT_EQ(u64(64 + 32 * 4 + 8), 9u);                       // record 4's element
  EXPECT_EQ(static_cast<uint8_t>(b[64 + 32 * 4 + 30]), 5u);  // its lane
}

TEST(Trace, EmptyTraceIsValid) {
  std::string path = tempPath("e.trace");
  ASSERT_FALSE(static_cast<bool>(writeTrace(path, makeTraceHeader(), {})));
  auto trace = Trace::open(path);
  ASSERT_TRUE(static_cast<bool>(trace));
  EXPECT_TRUE(trace->records().empty());
}

// A trace in memory that is not 8-byte aligned is copied before its records are read; found by
// tests/fuzz (relayout_fuzz_trace): with no records the copy passed memcpy a null pointer, which
// the asan preset's UBSan stops on.
TEST(Trace, UnalignedBufferReadsTheSameRecords) {
  std::string path = tempPath("u.trace");
  for (const std::vector<TraceRecord>& records : {std::vector<TraceRecord>{}, twoGroups()}) {
    ASSERT_FALSE(static_cast<bool>(writeTrace(path, makeTraceHeader(), records)));
    const std::string bytes = bytesOf(path);
    std::string shifted = " " + bytes;
    auto trace = Trace::fromBuffer(llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(shifted).drop_front(), path,
                                                                    /*RequiresNullTerminator=*/false),
                                   path);
    ASSERT_TRUE(static_cast<bool>(trace)) << llvm::toString(trace.takeError());
    ASSERT_EQ(trace->records().size(), records.size());
    if (!records.empty())
      EXPECT_EQ(std::memcmp(trace->records().data(), records.data(), records.size() * sizeof(TraceRecord)), 0);
  }
}

TEST(Trace, TruncatedAnywhereIsRefusedWithTheOffset) {
  std::string path = tempPath("t.trace");
  ASSERT_FALSE(static_cast<bool>(writeTrace(path, makeTraceHeader(), twoGroups())));
  std::string whole = bytesOf(path);
  for (size_t cut : {size_t(0), size_t(7), size_t(40), size_t(63), size_t(64), size_t(65), size_t(100),
                     whole.size() - 32, whole.size() - 1}) {
    std::string cutPath = tempPath("cut.trace");
    writeBytes(cutPath, whole.substr(0, cut));
    std::string message = openError(cutPath);
    ASSERT_FALSE(message.empty()) << "cut at " << cut;
    EXPECT_NE(message.find(cutPath + ": at byte " + std::to_string(cut) + ": "), std::string::npos) << message;
  }
}

TEST(Trace, TrailingBytesAreRefused) {
  std::string path = tempPath("t.trace");
  ASSERT_FALSE(static_cast<bool>(writeTrace(path, makeTraceHeader(), twoGroups())));
  writeBytes(path, bytesOf(path) + "x");
  EXPECT_NE(openError(path).find("at byte 224: unexpected bytes after the 5 records"), std::string::npos)
      << openError(path);
}

TEST(Trace, BadMagicVersionOrRecordSizeAreRefused) {
  std::string path = tempPath("t.trace");
  ASSERT_FALSE(static_cast<bool>(writeTrace(path, makeTraceHeader(), twoGroups())));
  std::string whole = bytesOf(path);
  std::string bad = whole;
  bad[0] = 'X';
  writeBytes(path, bad);
  EXPECT_NE(openError(path).find("at byte 0: not a relayout trace"), std::string::npos);
  bad = whole;
  bad[8] = 2;
  writeBytes(path, bad);
  EXPECT_NE(openError(path).find("at byte 8: trace version 2 is not supported"), std::string::npos);
  bad = whole;
  bad[12] = 24;
  writeBytes(path, bad);
  EXPECT_NE(openError(path).find("at byte 12: record size 24 bytes, expected 32"), std::string::npos);
  writeBytes(path, "hello");
  EXPECT_NE(openError(path).find("at byte 5: the file ends inside the 64-byte trace header"), std::string::npos);
  EXPECT_NE(openError(tempPath("missing.trace")).find("cannot read"), std::string::npos);
}

std::string recordsError(std::vector<TraceRecord> records) {
  std::string path = tempPath("r.trace");
  EXPECT_FALSE(static_cast<bool>(writeTrace(path, makeTraceHeader(), records)));
  auto trace = Trace::open(path);
  EXPECT_TRUE(static_cast<bool>(trace));
  llvm::Error err = checkTraceRecords(*trace, limits());
  return err ? llvm::toString(std::move(err)) : "";
}

TEST(Trace, OutOfRangeFieldsAreRefusedWithTheRecordOffset) {
  auto records = twoGroups();
  records[4].unit = 2;
  EXPECT_NE(recordsError(records).find("at byte 192: record 4: unit 2 out of range (the profile has 2 units)"),
            std::string::npos)
      << recordsError(records);
  records = twoGroups();
  records[4].site = 1;
  EXPECT_NE(recordsError(records).find("at byte 192: record 4: site 1 out of range (unit 1 has 1 sites)"),
            std::string::npos);
  records = twoGroups();
  records[0].launch = 5;
  EXPECT_NE(recordsError(records).find("at byte 64: record 0: launch 5 out of range"), std::string::npos);
  records = twoGroups();
  records[4].lane = 32;
  EXPECT_NE(recordsError(records).find("record 4: lane 32 out of range"), std::string::npos);
  records = twoGroups();
  records[4].group = 0;
  EXPECT_NE(recordsError(records).find("record 4: group 0 out of range (1-32)"), std::string::npos);
  records = twoGroups();
  records[4].group = 33;
  EXPECT_NE(recordsError(records).find("record 4: group 33 out of range"), std::string::npos);
}

TEST(Trace, BrokenGroupsAreRefused) {
  auto records = twoGroups();
  records[2].warp = 8;  // a stranger inside the group of 4
  EXPECT_NE(recordsError(records).find("at byte 128: record 2: does not belong to the group of 4 records"),
            std::string::npos)
      << recordsError(records);
  records = twoGroups();
  records[3].lane = 1;
  EXPECT_NE(recordsError(records).find("record 3: lane 1 does not increase"), std::string::npos);
  records = twoGroups();
  records[4].group = 3;  // announces 3 records, 1 follows
  EXPECT_NE(recordsError(records).find("record 4: a group of 3 records starts here but only 1 records follow"),
            std::string::npos);
}

TEST(Trace, WriterLeavesNothingWhenNotFinished) {
  std::string path = tempPath("w.trace");
  {
    auto writer = TraceWriter::create(path, makeTraceHeader());
    ASSERT_TRUE(static_cast<bool>(writer));
    (*writer)->append(twoGroups());
  }
  EXPECT_FALSE(llvm::sys::fs::exists(path));
}

}  // namespace
}  // namespace relayout
