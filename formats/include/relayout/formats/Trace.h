// The binary access trace (docs/formats.md, "Trace — NAME.trace", version 1): a 64-byte header,
// then 32-byte records, one per lane of every traced warp-level access, little-endian. This is the
// layout's one definition, with its one writer and its one header check; LLVM-free, so that the
// runtime (librelayout_rt.a) writes through it and core's Trace maps files with it. The structs
// below ARE the file layout: the static_asserts pin it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

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

// What is wrong with a trace file, and where.
struct TraceProblem {
  uint64_t offset = 0;  // byte offset in the file
  std::string message;
};

// Checks a whole file's header against its size (magic, version, record size, record count);
// copies the header into `header`. The records' contents are checked by whoever walks them.
std::optional<TraceProblem> checkTraceFile(const char* bytes, uint64_t size, TraceHeader& header);

// Writes a trace as a stream: create, append records, finish (which writes the header with the
// record count). The records go to a temporary file beside `path`, renamed by finish(): nothing
// is left at `path` if finish() is not reached or fails. Errors are one line naming the file.
class TraceFileWriter {
 public:
  static std::unique_ptr<TraceFileWriter> create(const std::string& path, const TraceHeader& header,
                                                 std::string& error);
  ~TraceFileWriter();
  TraceFileWriter(const TraceFileWriter&) = delete;
  TraceFileWriter& operator=(const TraceFileWriter&) = delete;

  void append(const TraceRecord* records, size_t count);
  uint64_t records() const { return records_; }
  std::string finish();  // "" or the error

 private:
  TraceFileWriter() = default;
  std::string path_, tempPath_;
  TraceHeader header_{};
  std::FILE* out_ = nullptr;
  uint64_t records_ = 0;
  bool failed_ = false;
};

}  // namespace relayout
