// The binary access trace (docs/formats.md, "Trace — NAME.trace", version 1). Its layout, writer
// and header check are relayout_formats' (formats/, shared with the runtime); this maps files for
// the analysis (model mode), the tests and the benchmark generator, and turns the format's errors
// into llvm::Errors naming the file.
#pragma once

#include "relayout/formats/Trace.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <memory>
#include <string>
#include <vector>

namespace relayout {

// "PATH: at byte OFFSET: MESSAGE", the form every trace error takes.
llvm::Error traceError(llvm::StringRef path, uint64_t offset, const llvm::Twine& message);

// Where the trace of the profile at `profilePath` is, when no --trace names it: `traceFile` (the
// profile's trace.file) beside the profile, as the run wrote it; else, for a profile kept under a
// name of its own (the samples' NAME.profile.json), NAME.trace beside it. Either may ship
// compressed as PATH.xz, which Trace::open reads. The first that exists; the first if none does.
std::string findTrace(llvm::StringRef profilePath, llvm::StringRef traceFile);
// Whether `path` or `path`.xz exists.
bool traceExists(llvm::StringRef path);

// A trace file mapped into memory (llvm::MemoryBuffer maps large files); NAME.xz is decompressed
// into memory instead. The header and the file
// size are checked when it is opened; the records' contents are checked by checkTraceRecords()
// or by whoever walks them (the model replay checks as it goes, in the same pass).
class Trace {
 public:
  static llvm::Expected<Trace> open(llvm::StringRef path);
  // The same checks on a file already in memory (`path` names it in errors).
  static llvm::Expected<Trace> fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::StringRef path);

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
  void append(llvm::ArrayRef<TraceRecord> records) { file_->append(records.data(), records.size()); }
  uint64_t records() const { return file_->records(); }
  llvm::Error finish();

 private:
  TraceWriter() = default;
  std::unique_ptr<TraceFileWriter> file_;
};

// The whole trace at once (the header's records field is set from `records`).
llvm::Error writeTrace(llvm::StringRef path, const TraceHeader& header, llvm::ArrayRef<TraceRecord> records);

}  // namespace relayout
