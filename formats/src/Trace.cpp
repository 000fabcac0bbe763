// The trace file's one writer and one header check (docs/formats.md, "Trace").
#include "relayout/formats/Trace.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace relayout {

TraceHeader makeTraceHeader(uint32_t blockPeriod, uint32_t launchesPerKernel, uint64_t capacity, uint64_t dropped) {
  TraceHeader h{};
  std::memcpy(h.magic, kTraceMagic, sizeof h.magic);
  h.version = kTraceVersion;
  h.recordSize = kTraceRecordBytes;
  h.dropped = dropped;
  h.blockPeriod = blockPeriod;
  h.launchesPerKernel = launchesPerKernel;
  h.capacity = capacity;
  return h;
}

std::optional<TraceProblem> checkTraceFile(const char* bytes, uint64_t size, TraceHeader& header) {
  auto problem = [](uint64_t offset, std::string message) { return TraceProblem{offset, std::move(message)}; };
  if (size < kTraceHeaderBytes)
    return problem(size, "the file ends inside the 64-byte trace header (" + std::to_string(size) + " bytes)");
  std::memcpy(&header, bytes, sizeof header);
  const TraceHeader& h = header;
  if (std::memcmp(h.magic, kTraceMagic, sizeof h.magic) != 0)
    return problem(0, "not a relayout trace (the magic is not RLTRACE)");
  if (h.version != kTraceVersion)
    return problem(offsetof(TraceHeader, version), "trace version " + std::to_string(h.version) +
                                                       " is not supported (this build reads version " +
                                                       std::to_string(kTraceVersion) + ")");
  if (h.recordSize != kTraceRecordBytes)
    return problem(offsetof(TraceHeader, recordSize), "record size " + std::to_string(h.recordSize) +
                                                          " bytes, expected " + std::to_string(kTraceRecordBytes));
  if (h.blockPeriod == 0)  // the replay scales by it: 0 would drop every record's weight
    return problem(offsetof(TraceHeader, blockPeriod), "block period 0, expected at least 1");
  const uint64_t have = (size - kTraceHeaderBytes) / kTraceRecordBytes;
  const std::string sizes = "(" + std::to_string(size) + " bytes, expected " +
                            std::to_string(traceRecordOffset(h.records)) + ")";
  if (h.records > have)
    return problem(size, "the file ends inside record " + std::to_string(have) + " of the " +
                             std::to_string(h.records) + " the header announces " + sizes);
  if (size != traceRecordOffset(h.records))
    return problem(traceRecordOffset(h.records),
                   "unexpected bytes after the " + std::to_string(h.records) + " records the header announces " + sizes);
  return std::nullopt;
}

std::unique_ptr<TraceFileWriter> TraceFileWriter::create(const std::string& path, const TraceHeader& header,
                                                         std::string& error) {
  std::unique_ptr<TraceFileWriter> writer(new TraceFileWriter());
  writer->path_ = path;
  writer->header_ = header;
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) {
    error = path + ": cannot create a temporary file beside it: " + std::strerror(errno);
    return nullptr;
  }
  writer->tempPath_ = temp;
  writer->out_ = fdopen(fd, "wb");
  if (!writer->out_) {
    error = path + ": cannot write: " + std::strerror(errno);
    close(fd);
    return nullptr;  // the destructor removes the temporary file
  }
  TraceHeader placeholder = header;
  placeholder.records = 0;
  writer->failed_ = std::fwrite(&placeholder, sizeof placeholder, 1, writer->out_) != 1;
  return writer;
}

void TraceFileWriter::append(const TraceRecord* records, size_t count) {
  if (count && std::fwrite(records, kTraceRecordBytes, count, out_) != count) failed_ = true;
  records_ += count;
}

std::string TraceFileWriter::finish() {
  header_.records = records_;
  if (!failed_ && std::fseek(out_, 0, SEEK_SET) == 0) failed_ = std::fwrite(&header_, sizeof header_, 1, out_) != 1;
  else failed_ = true;
  const int savedErrno = errno;
  const bool closed = std::fclose(out_) == 0;
  out_ = nullptr;
  if (failed_ || !closed) return path_ + ": cannot write: " + std::strerror(failed_ ? savedErrno : errno);
  if (std::rename(tempPath_.c_str(), path_.c_str()) != 0) return path_ + ": cannot write: " + std::strerror(errno);
  tempPath_.clear();  // renamed: nothing left to remove
  return "";
}

TraceFileWriter::~TraceFileWriter() {
  if (out_) std::fclose(out_);
  if (!tempPath_.empty()) std::remove(tempPath_.c_str());
}

}  // namespace relayout
