// Which order of CUPTI calls makes the SASS Metrics API return counts (issue 4, `profile --hw`).
//
// The runtime's --hw got one record per instruction with every value 0 on an H100, while
// ../shared/probes/cupti_probe.cu read real counts on an H200. The two differ in where the calls
// are made; each variant below changes one of those things against the probe's order, and prints
// one line: records, and how many carry a non-zero smsp__sass_inst_executed and sectors value.
//
//   (none)      context exists, then initialize, configure, enable (lazy), launch, flush
//   act         CONCURRENT_KERNEL activity records on throughout (the runtime times kernels with them)
//   early       cuptiProfilerInitialize before the program's first CUDA call
//   cb-malloc   initialize, configure and enable inside the runtime-API callback at cudaMalloc's exit
//   cb-launch   the same at cudaLaunchKernel's entry (the context exists by then)
//   init-main   with cb-*: initialize in main once the context exists; configure and enable in the callback
//   atexit      the flush made from an atexit handler (where the runtime writes the profile)
//   eager       patch every loaded function at the enable (enableLazyPatching = 0)
//   flush-each  flush after advance's launches and again after damp's
//   reenable    with flush-each: disable and enable again between the two kernels
//   copy-first  first run the samples' bandwidth probe (1 GiB copy, events, frees), unprofiled;
//               no-free / no-events leave out its frees / its events
// Each run launches `advance` three times and then `damp`; the last line lists, per patched
// function, its records and how many counted instructions.
// Variants are comma-separated words, e.g. "act,cb-launch".
//
// Build: nvcc -std=c++17 -arch=sm_90 -lineinfo -O2 hw_call_order.cu -lcupti -lcuda
// Run:   ./a.out probe; ./a.out act; ./a.out cb-launch,init-main; ...
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Particle {
  float x, y, z, vx, vy, vz, m, pad;
};

__global__ void advance(Particle* p, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].x += p[i].vx * dt;
}

// The samples' bandwidth probe (samples/common/bench.h): run before the profiled kernels with
// "copy-first".
__global__ void copy4(const float4* in, float4* out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = in[i];
}

// Launched after advance: is a second kernel patched too?
__global__ void damp(Particle* p, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i].vx *= f;
}

const char* kMetrics[] = {"smsp__sass_inst_executed", "smsp__sass_sectors_mem_global"};
constexpr int kNumMetrics = 2;

bool gEager = false, gFlushEach = false, gReenable = false, gCopyFirst = false, gNoFree = false, gNoEvents = false;
bool gActivity = false, gCbMalloc = false, gCbLaunch = false, gEarly = false, gAtexit = false, gInitMain = false;
CUcontext gCtx = nullptr;
uint64_t gIds[kNumMetrics] = {};
bool gEnabled = false;

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  std::printf("FAIL %s: %s\n", what, s ? s : "?");
  std::exit(1);
}

void initialize() {
  CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  check(cuptiProfilerInitialize(&p), "cuptiProfilerInitialize");
}

void configureAndEnable(CUcontext ctx) {
  if (gEnabled) return;
  gEnabled = true;
  gCtx = ctx;
  if (!gEarly && !gInitMain) initialize();
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = 0;
  check(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");
  std::vector<CUpti_SassMetrics_Config> configs;
  for (int m = 0; m < kNumMetrics; ++m) {
    CUpti_SassMetrics_GetProperties_Params props{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
    props.pChipName = chip.pChipName;
    props.pMetricName = kMetrics[m];
    check(cuptiSassMetricsGetProperties(&props), "cuptiSassMetricsGetProperties");
    gIds[m] = props.metric.metricId;
    CUpti_SassMetrics_Config c{};
    c.metricId = props.metric.metricId;
    c.outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    configs.push_back(c);
  }
  CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
  set.pConfigs = configs.data();
  set.numOfMetricConfig = configs.size();
  set.deviceIndex = 0;
  check(cuptiSassMetricsSetConfig(&set), "cuptiSassMetricsSetConfig");
  CUpti_SassMetricsEnable_Params enable{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  enable.ctx = ctx;
  enable.enableLazyPatching = gEager ? 0 : 1;
  check(cuptiSassMetricsEnable(&enable), "cuptiSassMetricsEnable");
}

std::string gVariant;

void flushAndReport(bool disable) {
  cudaDeviceSynchronize();
  if (gActivity) cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  CUpti_SassMetricsGetDataProperties_Params props{CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  props.ctx = gCtx;
  check(cuptiSassMetricsGetDataProperties(&props), "cuptiSassMetricsGetDataProperties");
  const size_t records = props.numOfPatchedInstructionRecords, instances = props.numOfInstances;
  size_t nonzero[kNumMetrics] = {};
  uint64_t largest[kNumMetrics] = {};
  std::string functions;  // function: records/nonzero inst_executed
  if (records && instances) {
    std::vector<CUpti_SassMetrics_Data> data(records);
    std::vector<CUpti_SassMetrics_InstanceValue> values(records * instances);
    for (size_t i = 0; i < records; ++i) {
      data[i].structSize = sizeof(CUpti_SassMetrics_Data);
      data[i].pInstanceValues = &values[i * instances];
    }
    CUpti_SassMetricsFlushData_Params flush{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
    flush.ctx = gCtx;
    flush.numOfPatchedInstructionRecords = records;
    flush.numOfInstances = instances;
    flush.pMetricsData = data.data();
    check(cuptiSassMetricsFlushData(&flush), "cuptiSassMetricsFlushData");
    std::vector<std::pair<std::string, std::pair<size_t, size_t>>> perFunction;
    for (size_t i = 0; i < records; ++i) {
      const std::string name = data[i].functionName ? data[i].functionName : "?";
      if (perFunction.empty() || perFunction.back().first != name) perFunction.push_back({name, {0, 0}});
      ++perFunction.back().second.first;
      for (size_t k = 0; k < instances; ++k) {
        const CUpti_SassMetrics_InstanceValue& v = values[i * instances + k];
        for (int m = 0; m < kNumMetrics; ++m)
          if (v.metricId == gIds[m] && v.value) {
            ++nonzero[m];
            if (m == 0) ++perFunction.back().second.second;
            if (v.value > largest[m]) largest[m] = v.value;
          }
      }
    }
    for (const auto& [name, counts] : perFunction)
      functions += " " + name + ":" + std::to_string(counts.first) + "/" + std::to_string(counts.second);
  }
  if (disable) {
    CUpti_SassMetricsDisable_Params off{CUpti_SassMetricsDisable_Params_STRUCT_SIZE};
    off.ctx = gCtx;
    cuptiSassMetricsDisable(&off);
  }
  std::printf("%-9s records %zu instances %zu  nonzero inst_executed %zu (max %llu)  nonzero sectors %zu (max %llu)  %s |%s\n",
              gVariant.c_str(), records, instances, nonzero[0], (unsigned long long)largest[0], nonzero[1],
              (unsigned long long)largest[1], nonzero[0] ? "COUNTS" : "ZEROS", functions.c_str());
}

void CUPTIAPI onApi(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) return;
  const auto* cb = static_cast<const CUpti_CallbackData*>(data);
  if (!cb->context) return;
  if (gCbMalloc && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020 && cb->callbackSite == CUPTI_API_EXIT)
    configureAndEnable(cb->context);
  if (gCbLaunch && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 && cb->callbackSite == CUPTI_API_ENTER)
    configureAndEnable(cb->context);
}

void CUPTIAPI onBufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, 1 << 20));
  *size = 1 << 20;
  *maxRecords = 0;
}

void CUPTIAPI onBufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) { std::free(buffer); }

}  // namespace

int main(int argc, char** argv) {
  gVariant = argc > 1 ? argv[1] : "probe";
  const std::string words = "," + gVariant + ",";
  auto has = [&](const char* w) { return words.find(std::string(",") + w + ",") != std::string::npos; };
  gActivity = has("act");
  gEarly = has("early");
  gAtexit = has("atexit");
  gCbMalloc = has("cb-malloc");
  gCbLaunch = has("cb-launch");
  gInitMain = has("init-main");
  gEager = has("eager");
  gFlushEach = has("flush-each");
  gReenable = has("reenable");
  gCopyFirst = has("copy-first");
  gNoFree = has("no-free");
  gNoEvents = has("no-events");
  const bool callback = gCbMalloc || gCbLaunch;

  if (gEarly) initialize();
  CUpti_SubscriberHandle subscriber = nullptr;
  if (callback) {
    check(cuptiSubscribe(&subscriber, onApi, nullptr), "cuptiSubscribe");
    check(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020),
          "cuptiEnableCallback");
    check(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000),
          "cuptiEnableCallback");
  }
  if (gActivity) {
    check(cuptiActivityRegisterCallbacks(onBufferRequested, onBufferCompleted), "cuptiActivityRegisterCallbacks");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
  }
  if (gInitMain) {
    cudaFree(nullptr);  // creates the context
    initialize();
  }
  if (gCopyFirst) {  // as bench::copyBandwidthGBs: 1 GiB buffers, timed with events, freed
    const size_t m = (size_t(1) << 30) / sizeof(float4);
    float4 *a = nullptr, *b = nullptr;
    cudaMalloc(&a, m * sizeof(float4));
    cudaMalloc(&b, m * sizeof(float4));
    cudaMemset(a, 1, m * sizeof(float4));
    cudaEvent_t start, stop;
    if (!gNoEvents) cudaEventCreate(&start), cudaEventCreate(&stop);
    for (int r = 0; r < 3; ++r) {
      if (!gNoEvents) cudaEventRecord(start);
      copy4<<<132 * 8, 512>>>(a, b, m);
      if (!gNoEvents) cudaEventRecord(stop), cudaEventSynchronize(stop);
    }
    cudaDeviceSynchronize();
    if (!gNoEvents) cudaEventDestroy(start), cudaEventDestroy(stop);
    if (!gNoFree) cudaFree(a), cudaFree(b);
  }
  const int n = 1 << 20;
  Particle* p = nullptr;
  if (cudaMalloc(&p, n * sizeof(Particle)) != cudaSuccess) return std::printf("FAIL cudaMalloc\n"), 1;
  cudaMemset(p, 0, n * sizeof(Particle));
  if (!callback) {
    CUcontext ctx = nullptr;
    cuCtxGetCurrent(&ctx);
    configureAndEnable(ctx);
  }
  for (int r = 0; r < 3; ++r) advance<<<n / 256, 256>>>(p, n, 0.1f);
  if (gFlushEach) {
    flushAndReport(gReenable);
    if (gReenable) {  // a new enable range for the next kernel
      CUpti_SassMetricsEnable_Params enable{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
      enable.ctx = gCtx;
      enable.enableLazyPatching = 1;
      check(cuptiSassMetricsEnable(&enable), "cuptiSassMetricsEnable (again)");
    }
    damp<<<n / 256, 256>>>(p, n, 0.5f);
    flushAndReport(true);
    return 0;
  }
  damp<<<n / 256, 256>>>(p, n, 0.5f);
  if (gAtexit) {
    std::atexit([] { flushAndReport(true); });
    return 0;
  }
  flushAndReport(true);
  return 0;
}
