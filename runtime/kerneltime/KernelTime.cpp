// librelayout_kerneltime.so: sums the GPU time of every kernel an UNMODIFIED program runs, for
// `relayout optimize --verify`. The CUDA driver loads it into the program when
// CUDA_INJECTION64_PATH names it and calls InitializeInjection() while it initializes; at exit the
// total goes to the file named by $RELAYOUT_KERNEL_TIME as one JSON line per process:
//   {"format":"relayout-kernel-time","version":1,"kernel_ns":N,"kernels":K,
//    "by_kernel":{"MANGLED":{"launches":L,"ns":T},...}}
// (docs/formats.md, "Verification"). Nothing else of relayout is linked: only CUPTI.
#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace {

std::atomic<bool> gWritten{false};
std::once_flag gInitOnce;
std::atomic<bool> gActive{false};  // CUPTI records kernels

// Per kernel (its mangled name), launches and summed time: which kernel a slow-down is in; the
// totals are their sums.
struct KernelTotal {
  uint64_t launches = 0, ns = 0;
};
std::mutex gByKernelMutex;
std::map<std::string, KernelTotal> gByKernel;

const char* cuptiText(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

constexpr size_t kBufferBytes = 8 << 20;

void CUPTIAPI onBufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *maxRecords = 0;
}

void CUPTIAPI onBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    // A forced flush may hand over a record whose kernel had not finished: it has no end yet.
    std::lock_guard<std::mutex> lock(gByKernelMutex);
    KernelTotal& total = gByKernel[k->name ? k->name : "?"];
    ++total.launches;
    if (k->end > k->start) total.ns += k->end - k->start;
  }
  std::free(buffer);
}

void flush() {
  if (gActive) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

// Records still buffered when a context goes away would be lost with it (the CUDA runtime may tear
// its context down before this library's atexit handler runs); cudaDeviceReset does the same.
void CUPTIAPI onCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) return flush();
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020 &&
      static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER)
    flush();
}

void writeTotal() {
  if (gWritten.exchange(true)) return;
  flush();
  const char* path = std::getenv("RELAYOUT_KERNEL_TIME");
  if (!path || !*path || !gActive) return;
  // Appended: a program that starts other CUDA processes gets one line from each.
  std::FILE* out = std::fopen(path, "a");
  if (!out) {
    std::fprintf(stderr, "relayout-kerneltime: cannot write %s\n", path);
    return;
  }
  std::lock_guard<std::mutex> lock(gByKernelMutex);
  KernelTotal all;
  for (const auto& [name, total] : gByKernel) all.launches += total.launches, all.ns += total.ns;
  std::fprintf(out,
               "{\"format\":\"relayout-kernel-time\",\"version\":1,\"kernel_ns\":%llu,\"kernels\":%llu,\"by_kernel\":{",
               static_cast<unsigned long long>(all.ns), static_cast<unsigned long long>(all.launches));
  const char* separator = "";
  for (const auto& [name, total] : gByKernel) {
    std::fputs(separator, out);
    separator = ",";
    // A mangled name is letters, digits, '_', '.' and '$'; anything else is written escaped.
    std::fputc('"', out);
    for (unsigned char c : name) {
      if (c == '"' || c == '\\' || c < 0x20) std::fprintf(out, "\\u%04x", c);
      else std::fputc(c, out);
    }
    std::fprintf(out, "\":{\"launches\":%llu,\"ns\":%llu}", static_cast<unsigned long long>(total.launches),
                 static_cast<unsigned long long>(total.ns));
  }
  std::fputs("}}\n", out);
  std::fclose(out);
}

void start() {
  CUptiResult r = cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted);
  if (r == CUPTI_SUCCESS) r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) {
    // The program still runs; relayout reports its kernel time as not measured.
    std::fprintf(stderr, "relayout-kerneltime: CUPTI unavailable (%s): kernel time not measured\n", cuptiText(r));
    return;
  }
  gActive = true;
  CUpti_SubscriberHandle subscriber = nullptr;
  if (cuptiSubscribe(&subscriber, onCallback, nullptr) == CUPTI_SUCCESS) {
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
  }
  std::atexit(writeTotal);
}

}  // namespace

// Called by the CUDA driver (CUDA_INJECTION64_PATH); 1 says the injection succeeded, which it does
// even without CUPTI, so that the program runs as it would without relayout.
extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  std::call_once(gInitOnce, start);
  return 1;
}
