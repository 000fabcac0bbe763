#include "relayout/core/Trace.h"

#include "relayout/core/Files.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <lzma.h>

#include <cstring>

namespace relayout {

llvm::Error traceError(llvm::StringRef path, uint64_t offset, const llvm::Twine& message) {
  return fileError(path, "at byte " + llvm::Twine(offset) + ": " + message);
}

namespace {

// Traces beyond this many bytes, decompressed, are refused: far more than a traced run writes
// (its records are capped), and what a damaged or hostile .xz would otherwise expand to.
constexpr uint64_t kMaxTraceBytes = uint64_t(16) << 30;

// The whole of a trace shipped compressed (the samples ship NAME.trace.xz), in memory.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readXz(llvm::StringRef path) {
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) && status.type() != llvm::sys::fs::file_type::regular_file)
    return fileError(path, "is not a regular file: a trace is a file that an instrumented run wrote");
  auto packed = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!packed) return fileError(path, "cannot read: " + packed.getError().message());
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK)
    return fileError(path, "cannot start the xz decoder");
  std::string out;
  stream.next_in = reinterpret_cast<const uint8_t*>((*packed)->getBufferStart());
  stream.avail_in = (*packed)->getBufferSize();
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK) {
    const size_t done = out.size();
    if (done >= kMaxTraceBytes) {
      lzma_end(&stream);
      return fileError(
          path, "decompresses to more than " + llvm::Twine(kMaxTraceBytes >> 30) + " GiB: not a trace relayout wrote");
    }
    out.resize(std::min<uint64_t>(kMaxTraceBytes, std::max<size_t>(done * 2, size_t(1) << 20)));
    stream.next_out = reinterpret_cast<uint8_t*>(out.data()) + done;
    stream.avail_out = out.size() - done;
    ret = lzma_code(&stream, LZMA_FINISH);
    out.resize(out.size() - stream.avail_out);
  }
  lzma_end(&stream);
  if (ret != LZMA_STREAM_END)
    return fileError(path, "is not a whole xz file (liblzma error " + llvm::Twine(int(ret)) + ")");
  return llvm::MemoryBuffer::getMemBufferCopy(out, path);
}

}  // namespace

bool traceExists(llvm::StringRef path) { return llvm::sys::fs::exists(path) || llvm::sys::fs::exists(path + ".xz"); }

std::string findTrace(llvm::StringRef profilePath, llvm::StringRef traceFile) {
  llvm::SmallString<256> written(llvm::sys::path::parent_path(profilePath));
  llvm::sys::path::append(written, traceFile);
  llvm::StringRef stem = profilePath;
  if (traceExists(written) || !stem.consume_back(".profile.json")) return written.str().str();
  const std::string own = (stem + ".trace").str();
  if (traceExists(own)) return own;
  return written.str().str();
}

llvm::Expected<Trace> Trace::open(llvm::StringRef path) {
  // A trace named NAME.trace that ships compressed as NAME.trace.xz is read from that.
  if (!llvm::sys::fs::exists(path) && llvm::sys::fs::exists(path + ".xz")) {
    const std::string packed = (path + ".xz").str();
    auto buffer = readXz(packed);
    if (!buffer) return buffer.takeError();
    return fromBuffer(std::move(*buffer), packed);
  }
  if (llvm::StringRef(path).ends_with(".xz")) {
    auto buffer = readXz(path);
    if (!buffer) return buffer.takeError();
    return fromBuffer(std::move(*buffer), path);
  }
  // A trace is mapped from a file; a device or pipe (/dev/zero) would be read until memory runs out.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) && status.type() != llvm::sys::fs::file_type::regular_file)
    return fileError(path, "is not a regular file: a trace is a file that an instrumented run wrote");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return fileError(path, "cannot read: " + buffer.getError().message());
  return fromBuffer(std::move(*buffer), path);
}

llvm::Expected<Trace> Trace::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::StringRef path) {
  Trace trace;
  trace.path_ = path.str();
  trace.buffer_ = std::move(buffer);
  llvm::StringRef bytes = trace.buffer_->getBuffer();
  const uint64_t size = bytes.size();
  if (auto problem = checkTraceFile(bytes.data(), size, trace.header_))
    return traceError(path, problem->offset, problem->message);
  const TraceHeader& h = trace.header_;
  const char* data = bytes.data() + kTraceHeaderBytes;
  if (reinterpret_cast<uintptr_t>(data) % alignof(TraceRecord) == 0) {
    trace.records_ = {reinterpret_cast<const TraceRecord*>(data), static_cast<size_t>(h.records)};
  } else {
    trace.aligned_.resize(h.records);
    if (h.records) std::memcpy(trace.aligned_.data(), data, h.records * kTraceRecordBytes);  // data() may be null
    trace.records_ = trace.aligned_;
  }
  return trace;
}

size_t checkTraceGroupSlow(llvm::ArrayRef<TraceRecord> records, size_t index, const TraceLimits& limits,
                           uint64_t& problemOffset, std::string& problem) {
  const TraceRecord& first = records[index];
  auto fail = [&](size_t at, std::string message) {
    problemOffset = traceRecordOffset(at);
    problem = "record " + std::to_string(at) + ": " + std::move(message);
    return size_t(0);
  };
  if (first.unit >= limits.sitesPerUnit.size())
    return fail(index, "unit " + std::to_string(first.unit) + " out of range (the profile has " +
                           std::to_string(limits.sitesPerUnit.size()) + " units)");
  if (first.site >= limits.sitesPerUnit[first.unit])
    return fail(index, "site " + std::to_string(first.site) + " out of range (unit " + std::to_string(first.unit) +
                           " has " + std::to_string(limits.sitesPerUnit[first.unit]) + " sites)");
  if (first.launch >= limits.launches)
    return fail(index, "launch " + std::to_string(first.launch) + " out of range (the profile lists " +
                           std::to_string(limits.launches) + " traced launches)");
  if (first.group == 0 || first.group > kTraceWarpSize)
    return fail(index, "group " + std::to_string(first.group) + " out of range (1-32)");
  if (first.lane >= kTraceWarpSize) return fail(index, "lane " + std::to_string(first.lane) + " out of range (0-31)");
  if (records.size() - index < first.group)
    return fail(index, "a group of " + std::to_string(first.group) + " records starts here but only " +
                           std::to_string(records.size() - index) + " records follow");
  for (size_t j = 1; j < first.group; ++j) {
    const TraceRecord& r = records[index + j];
    if (r.group != first.group || r.unit != first.unit || r.site != first.site || r.launch != first.launch ||
        r.warp != first.warp)
      return fail(index + j, "does not belong to the group of " + std::to_string(first.group) +
                                 " records that starts at record " + std::to_string(index) +
                                 " (group, unit, site, launch or warp differ)");
    if (r.lane >= kTraceWarpSize) return fail(index + j, "lane " + std::to_string(r.lane) + " out of range (0-31)");
    if (r.lane <= records[index + j - 1].lane)
      return fail(index + j, "lane " + std::to_string(r.lane) + " does not increase within its group");
  }
  return first.group;
}

llvm::Error checkTraceRecords(const Trace& trace, const TraceLimits& limits) {
  llvm::ArrayRef<TraceRecord> records = trace.records();
  uint64_t offset = 0;
  std::string problem;
  for (size_t i = 0; i < records.size();) {
    size_t size = checkTraceGroup(records, i, limits, offset, problem);
    if (size == 0) return traceError(trace.path(), offset, problem);
    i += size;
  }
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<TraceWriter>> TraceWriter::create(llvm::StringRef path, const TraceHeader& header) {
  llvm::StringRef parent = llvm::sys::path::parent_path(path);
  if (!parent.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(parent))
      return fileError(parent, "cannot create folder: " + ec.message());
  std::string error;
  std::unique_ptr<TraceWriter> writer(new TraceWriter());
  writer->file_ = TraceFileWriter::create(path.str(), header, error);
  if (!writer->file_) return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  return writer;
}

llvm::Error TraceWriter::finish() {
  if (std::string error = file_->finish(); !error.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
  return llvm::Error::success();
}

llvm::Error writeTrace(llvm::StringRef path, const TraceHeader& header, llvm::ArrayRef<TraceRecord> records) {
  auto writer = TraceWriter::create(path, header);
  if (!writer) return writer.takeError();
  (*writer)->append(records);
  return (*writer)->finish();
}

}  // namespace relayout
