// libFuzzer target: the trace reader (Trace::fromBuffer, as Trace::open maps a file) and the check
// of every record, on an 8-byte aligned buffer and on one that is not (the reader copies then).
#include "FuzzSupport.h"

#include "relayout/core/Trace.h"

#include <cstring>

using namespace relayout;

static constexpr llvm::StringLiteral kPath = "fuzz.trace";

// What a profile allows records to name: wide enough for the seeds' recorded traces, so that their
// records pass and mutations reach the group checks.
static const TraceLimits& limits() {
  static const TraceLimits limits{std::vector<uint32_t>(4, 4096), 4096};
  return limits;
}

static std::optional<std::vector<TraceRecord>> readTrace(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  auto trace = Trace::fromBuffer(std::move(buffer), kPath);
  if (!trace) return fuzz::expectFileError(trace.takeError(), kPath), std::nullopt;
  if (trace->records().size() != trace->header().records) fuzz::broken("the trace's records do not match its header");
  if (llvm::Error err = checkTraceRecords(*trace, limits())) fuzz::expectFileError(std::move(err), kPath);
  return std::vector<TraceRecord>(trace->records().begin(), trace->records().end());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char*>(data), size);
  auto aligned = readTrace(llvm::MemoryBuffer::getMemBufferCopy(bytes, kPath));
  std::vector<char> shifted(size + 1);
  if (size) std::memcpy(shifted.data() + 1, data, size);
  auto unaligned = readTrace(llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(shifted.data() + 1, size), kPath,
                                                              /*RequiresNullTerminator=*/false));
  if (aligned.has_value() != unaligned.has_value() ||
      (aligned && (aligned->size() != unaligned->size() ||
                   (!aligned->empty() &&
                    std::memcmp(aligned->data(), unaligned->data(), aligned->size() * sizeof(TraceRecord)) != 0))))
    fuzz::broken("the trace reads differently from an unaligned buffer");
  return 0;
}
