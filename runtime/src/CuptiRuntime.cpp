// The CUPTI side of the runtime linked into instrumented programs: counts launches and kernel
// durations per kernel, and writes the profile once, before the CUDA runtime tears itself down.
#include "relayout/rt_host.h"

#include "HwMetrics.h"
#include "relayout/rt_hw.h"

#include <cuda_runtime_api.h>
#include <cupti.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace relayout::rt {
namespace {

struct KernelStat {
  uint64_t launches = 0;  // from launch callbacks
  uint64_t execs = 0;     // from activity records (also covers graph launches)
  uint64_t totalNs = 0;
};

struct State {
  std::mutex mutex;
  std::map<std::string, KernelStat> kernels;  // by mangled name
  std::set<int> devices;                      // devices that launched kernels
  bool cuptiOk = false;
  // Kept only while some unit traces: the trace names launches by grid id and elements by
  // their allocation.
  std::vector<LaunchRecord> launches;
  std::vector<Allocation> allocations;
};
// Never destroyed: it is used from atexit handlers and CUPTI's threads.
State& state() {
  static State* s = new State;
  return *s;
}

std::atomic<bool> gWritten{false};
std::atomic<bool> gTracing{false};  // some registered unit was built with --trace
std::once_flag gAtexitOnce;
// Nonzero while this runtime calls CUDA itself: those calls come back as callbacks.
thread_local int tlInside = 0;

const char* cuptiText(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

void flushProfile();
void flushAtExit() { flushProfile(); }
// Registered only once the CUDA runtime is running, so that it runs before the runtime's own
// atexit teardown (handlers run in reverse order of registration).
void registerAtExit() {
  std::call_once(gAtexitOnce, [] { std::atexit(flushAtExit); });
}

void flushProfile() {
  if (gWritten.exchange(true)) return;
  ++tlInside;
  State& st = state();
  std::set<int> devices;
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    devices = st.devices;
  }
  int current = 0;
  cudaGetDevice(&current);
  if (devices.empty()) devices.insert(current);
  // Kernels must have finished before their counters and durations are read.
  for (int d : devices)
    if (cudaSetDevice(d) == cudaSuccess) cudaDeviceSynchronize();
  if (st.cuptiOk) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);

  ProfileMeta meta;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, *devices.begin()) == cudaSuccess) meta.device = prop.name;
  meta.hw = hw::collect(meta.device);  // relayout profile --hw
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    for (const auto& [name, k] : st.kernels)
      meta.kernels.push_back({name, k.launches ? k.launches : k.execs, k.totalNs});
  }
  std::stable_sort(meta.kernels.begin(), meta.kernels.end(),
                   [](const KernelRecord& a, const KernelRecord& b) { return a.totalNs > b.totalNs; });

  {
    std::lock_guard<std::mutex> lock(st.mutex);
    meta.launches = st.launches;
    meta.allocations = st.allocations;
  }

  // __device__ counters exist once per device: sum them over the devices that ran kernels.
  const std::vector<RelayoutUnitDesc> units = registeredUnits();
  std::vector<UnitData> data(units.size());
  std::string err;
  for (int d : devices) {
    if (cudaError_t e = cudaSetDevice(d); e != cudaSuccess) {
      err = std::string("cannot select device ") + std::to_string(d) + ": " + cudaGetErrorString(e);
      break;
    }
    for (size_t i = 0; i < units.size() && err.empty(); ++i) err = readUnit(units[i], data[i]);
    if (!err.empty()) break;
  }
  std::string path = profilePath();
  if (err.empty()) err = writeProfile(path, meta, data);
  cudaSetDevice(current);
  if (!err.empty()) {
    std::fprintf(stderr, "relayout: profile not written: %s\n", err.c_str());
  } else {
    size_t sites = 0, traced = 0;
    unsigned long long requested = 0;
    for (size_t i = 0; i < units.size(); ++i) {
      sites += units[i].num_sites;
      traced += data[i].trace.size();
      requested += data[i].traceRequested;
    }
    std::fprintf(stderr, "relayout: profile written to %s (%zu sites in %zu units)\n", path.c_str(), sites,
                 units.size());
    if (gTracing)
      std::fprintf(stderr, "relayout: trace written to %s: %zu records, %llu dropped%s\n", tracePath(path).c_str(),
                   traced, requested - traced,
                   requested > traced ? " (the buffer was full: instrument with a larger --trace-capacity)" : "");
  }
  --tlInside;
}

// Every cudaMalloc relative's parameters start with the out-pointer and the size, except pitch.
struct PointerAndSize {
  void** ptr;
  size_t size;
};

void noteAllocation(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
  uint64_t bytes = 0;
  void** out = nullptr;
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020: {
      const auto* p = static_cast<const cudaMallocPitch_v3020_params*>(cb->functionParams);
      out = p->devPtr;
      bytes = (p->pitch ? *p->pitch : p->width) * p->height;
      break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020: {
      const auto* p = static_cast<const PointerAndSize*>(cb->functionParams);
      out = p->ptr;
      bytes = p->size;
      break;
    }
    default:
      return;
  }
  const auto* result = static_cast<const cudaError_t*>(cb->functionReturnValue);
  if (!out || !*out || (result && *result != cudaSuccess)) return;
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  st.allocations.push_back({reinterpret_cast<uint64_t>(*out), bytes});
}

bool isLaunch(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
    // CUDA 13 compiles <<<...>>> to __cudaLaunchKernel.
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
      return true;
    default:
      return false;
  }
}

const CUpti_CallbackId kWatched[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020,
    // Allocations, for the trace's element indices (noteAllocation).
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020,
};

void CUPTIAPI onCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) return hw::onResource(cbid, data);
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || tlInside) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
    // The reset frees the counters: write the profile while they still exist.
    if (cb->callbackSite == CUPTI_API_ENTER) flushProfile();
    return;
  }
  if (cb->callbackSite == CUPTI_API_EXIT) {
    registerAtExit();
    if (gTracing) noteAllocation(cbid, cb);
    return;
  }
  if (!isLaunch(cbid)) return;
  // --hw: enabled on a context at its first launch. Enabled at the exit of the cudaMalloc that
  // created the context, CUPTI patched nothing (H100, CUDA 13.0; tests/gpu/hw_call_order.cu).
  hw::noteContext(cb->context, cb->symbolName);
  uint32_t device = 0;
  bool haveDevice = cb->context && cuptiGetDeviceId(cb->context, &device) == CUPTI_SUCCESS;
  State& st = state();
  std::lock_guard<std::mutex> lock(st.mutex);
  if (haveDevice) st.devices.insert(int(device));
  // Unnamed launches still get counted from their activity records.
  if (cb->symbolName && *cb->symbolName) ++st.kernels[hookedName(cb->symbolName)].launches;
}

constexpr size_t kActivityBufferBytes = 8 << 20;

void CUPTIAPI onBufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kActivityBufferBytes));
  *size = *buffer ? kActivityBufferBytes : 0;
  *maxRecords = 0;
}

void CUPTIAPI onBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
  State& st = state();
  CUpti_Activity* record = nullptr;
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    while (cuptiActivityGetNextRecord(buffer, validSize, &record) == CUPTI_SUCCESS) {
      if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && record->kind != CUPTI_ACTIVITY_KIND_KERNEL)
        continue;
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      if (gTracing) st.launches.push_back({uint64_t(k->gridId), k->name ? hookedName(k->name) : "", k->streamId});
      KernelStat& s = st.kernels[k->name ? hookedName(k->name) : "?"];
      ++s.execs;
      s.totalNs += k->end > k->start ? k->end - k->start : 0;
    }
  }
  std::free(buffer);
}

// Falls back to counters only; the atexit handler must still run before the CUDA runtime's
// teardown, so the runtime is started first (cudaGetDeviceCount creates no context).
void startWithoutCupti(const std::string& why) {
  std::fprintf(stderr, "relayout: CUPTI unavailable (%s): kernel times not recorded\n", why.c_str());
  int count = 0;
  ++tlInside;
  cudaGetDeviceCount(&count);
  --tlInside;
  registerAtExit();
}

void start() {
  hw::prepareProcess();  // before CUPTI or CUDA initialize the driver
  const char* off = std::getenv("RELAYOUT_NO_CUPTI");
  if (off && *off && std::string(off) != "0") return startWithoutCupti("RELAYOUT_NO_CUPTI is set");
  CUpti_SubscriberHandle subscriber = nullptr;
  CUptiResult r = cuptiSubscribe(&subscriber, onCallback, nullptr);
  if (r != CUPTI_SUCCESS) return startWithoutCupti(std::string("cuptiSubscribe: ") + cuptiText(r));
  for (CUpti_CallbackId cbid : kWatched)
    if ((r = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid)) != CUPTI_SUCCESS)
      break;
  // A --hw run records no kernel activity: with CONCURRENT_KERNEL records on, CUPTI patched the
  // kernels for SASS metrics but every count came back 0 (H100, CUDA 13.0; tests/gpu/hw_call_order.cu).
  // Such a run then has no kernel durations and names traced launches by kernel id.
  const bool timeKernels = !hw::requested();
  if (r == CUPTI_SUCCESS && timeKernels) r = cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted);
  if (r == CUPTI_SUCCESS && timeKernels) r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (r != CUPTI_SUCCESS) {
    cuptiUnsubscribe(subscriber);
    return startWithoutCupti(cuptiText(r));
  }
  state().cuptiOk = true;
  hw::start(subscriber);
}

std::once_flag gStartOnce;
void ensureStarted() { std::call_once(gStartOnce, start); }

__attribute__((constructor)) void startAtLoad() { ensureStarted(); }

// Says why no profile appeared when the program never launched a kernel through the runtime.
__attribute__((destructor)) void reportMissing() {
  if (!gWritten && !registeredUnits().empty())
    std::fprintf(stderr, "relayout: no kernel launch was seen, profile not written\n");
}

}  // namespace
}  // namespace relayout::rt

extern "C" void relayout_rt_register_unit(const RelayoutUnitDesc* unit) {
  if (!unit) return;
  if (unit->abi_version < 1 || unit->abi_version > RELAYOUT_ABI_VERSION) {  // 1 lacks only loop counters
    std::fprintf(stderr, "relayout: %s was instrumented for runtime ABI %u, this runtime has %u\n",
                 unit->source ? unit->source : "?", unit->abi_version, RELAYOUT_ABI_VERSION);
    return;
  }
  relayout::rt::registerUnit(unit);
  if (unit->abi_version >= 3 && unit->trace_capacity > 0) relayout::rt::gTracing = true;
  relayout::rt::ensureStarted();
}
