// The binary access trace (docs/formats.md, "Trace — NAME.trace", version 1): a 64-byte header,
// then 32-byte records, one per lane of every traced warp-level access, little-endian. The
// runtime writes it on the GPU side (runtime/, without linking this library); this is the C++
// side's one reader and one writer, used by the analysis (model mode), the tests and the
// benchmark generator. The structs below ARE the file layout: the static_asserts pin it.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace relayout {

static_assert(std::endian::native == std::endian::little,
              "the trace is little-endian and is mapped as is: a big-endian host needs byte swaps here");

inline constexpr char kTraceMagic[8] = {'R', 'L', 'T', 'R', 'A', 'C', 'E', '\0'};
inline constexpr uint32_t kTraceVersion = 1;
inline constexpr uint64_t kTraceNoElement = ~uint64_t(0);  // the address lies in no known allocation
inline constexpr unsigned kTraceWarpSize = 32;

struct TraceHeader {
  char magic[8];               // "RLTRACE\0"
  uint32_t version;            // 1
  uint32_t recordSize;         // 32
  uint64_t records;
  uint64_t dropped;            // records the buffers had no room for
  uint32_t blockPeriod;
  uint32_t launchesPerKernel;  // 0 = every launch
  uint64_t capacity;
  uint8_t reserved[16];        // zero
};
static_assert(sizeof(TraceHeader) == 64);
static_assert(offsetof(TraceHeader, version) == 8 && offsetof(TraceHeader, recordSize) == 12);
static_assert(offsetof(TraceHeader, records) == 16 && offsetof(TraceHeader, dropped) == 24);
static_assert(offsetof(TraceHeader, blockPeriod) == 32 && offsetof(TraceHeader, launchesPerKernel) == 36);
static_assert(offsetof(TraceHeader, capacity) == 40 && offsetof(TraceHeader, reserved) == 48);

struct TraceRecord {
  uint64_t addr;     // byte address the lane accessed
  uint64_t element;  // index of the element in its allocation; kTraceNoElement when in none
  uint32_t launch;   // index into the profile's trace.launches[]
  uint32_t warp;     // linear block index x warps per block + warp within the block
  uint32_t site;     // site id in the unit's site map
  uint8_t unit;      // index into the profile's units[]
  uint8_t field;     // the site's field: index in the struct's fields[]
  uint8_t lane;      // 0-31
  uint8_t group;     // records of this warp-level execution (1-32), consecutive, lowest lane first
};
static_assert(sizeof(TraceRecord) == 32);
static_assert(offsetof(TraceRecord, element) == 8 && offsetof(TraceRecord, launch) == 16);
static_assert(offsetof(TraceRecord, warp) == 20 && offsetof(TraceRecord, site) == 24);
static_assert(offsetof(TraceRecord, unit) == 28 && offsetof(TraceRecord, field) == 29);
static_assert(offsetof(TraceRecord, lane) == 30 && offsetof(TraceRecord, group) == 31);

inline constexpr uint64_t kTraceHeaderBytes = sizeof(TraceHeader);
inline constexpr uint64_t kTraceRecordBytes = sizeof(TraceRecord);
inline constexpr uint64_t traceRecordOffset(uint64_t index) { return kTraceHeaderBytes + kTraceRecordBytes * index; }

// A header with the magic, version and record size filled in.
TraceHeader makeTraceHeader(uint32_t blockPeriod = 1, uint32_t launchesPerKernel = 0, uint64_t capacity = 0,
                            uint64_t dropped = 0);

// "PATH: at byte OFFSET: MESSAGE", the form every trace error takes.
llvm::Error traceError(llvm::StringRef path, uint64_t offset, const llvm::Twine& message);

// A trace file mapped into memory (llvm::MemoryBuffer maps large files). The header and the file
// size are checked when it is opened; the records' contents are checked by checkTraceRecords()
// or by whoever walks them (the model replay checks as it goes, in the same pass).
class Trace {
 public:
  static llvm::Expected<Trace> open(llvm::StringRef path);

  const std::string& path() const { return path_; }
  const TraceHeader& header() const { return header_; }
  llvm::ArrayRef<TraceRecord> records() const { return records_; }

 private:
  std::string path_;
  TraceHeader header_{};
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  std::vector<TraceRecord> aligned_;  // a copy, only when the buffer is not 8-byte aligned
  llvm::ArrayRef<TraceRecord> records_;
};

// What records may name, from the profile and its site maps.
struct TraceLimits {
  std::vector<uint32_t> sitesPerUnit;  // one entry per profile unit
  uint64_t launches = 0;               // size of the profile's trace.launches[]
};

// Checks the warp-level execution (group) that starts at `index`: unit, site and launch in range,
// lane < 32, group 1-32, the group's records all present, consecutive, agreeing on unit, site,
// launch and warp, with increasing lanes. Returns the group's size, or 0 with `problemOffset` and
// `problem` set. Inline fast path: the replay calls it once per group.
size_t checkTraceGroupSlow(llvm::ArrayRef<TraceRecord> records, size_t index, const TraceLimits& limits,
                           uint64_t& problemOffset, std::string& problem);
inline size_t checkTraceGroup(llvm::ArrayRef<TraceRecord> records, size_t index, const TraceLimits& limits,
                              uint64_t& problemOffset, std::string& problem) {
  const TraceRecord& first = records[index];
  const size_t size = first.group;
  if (size == 0 || size > kTraceWarpSize || records.size() - index < size || first.unit >= limits.sitesPerUnit.size() ||
      first.site >= limits.sitesPerUnit[first.unit] || first.launch >= limits.launches || first.lane >= kTraceWarpSize)
    return checkTraceGroupSlow(records, index, limits, problemOffset, problem);
  for (size_t j = 1; j < size; ++j) {
    const TraceRecord& r = records[index + j];
    if (r.group != first.group || r.unit != first.unit || r.site != first.site || r.launch != first.launch ||
        r.warp != first.warp || r.lane >= kTraceWarpSize || r.lane <= records[index + j - 1].lane)
      return checkTraceGroupSlow(records, index, limits, problemOffset, problem);
  }
  return size;
}

// Checks every record (one pass); the error names the file and the byte offset of the record.
llvm::Error checkTraceRecords(const Trace& trace, const TraceLimits& limits);

// Writes a trace as a stream: create, append records, finish (which writes the header with the
// record count). Nothing is left at `path` if finish() is not reached or fails.
class TraceWriter {
 public:
  static llvm::Expected<std::unique_ptr<TraceWriter>> create(llvm::StringRef path, const TraceHeader& header);
  ~TraceWriter();
  void append(llvm::ArrayRef<TraceRecord> records);
  uint64_t records() const { return records_; }
  llvm::Error finish();

 private:
  TraceWriter() = default;
  std::string path_, tempPath_;
  TraceHeader header_{};
  std::unique_ptr<llvm::raw_fd_ostream> out_;
  uint64_t records_ = 0;
  bool finished_ = false;
};

// The whole trace at once (the header's records field is set from `records`).
llvm::Error writeTrace(llvm::StringRef path, const TraceHeader& header, llvm::ArrayRef<TraceRecord> records);

}  // namespace relayout
