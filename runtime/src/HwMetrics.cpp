// `relayout profile --hw`: per-instruction hardware counters through the CUPTI SASS Metrics API
// (compute capability 7.0 and later), mapped to source lines through the cubins' line tables
// (programs built with -lineinfo).
//
// Sequence (NVIDIA's sass_metrics and sass_source_map samples do the same, in one program):
//   program load (start)               -> watch module loads; no kernel activity records (CuptiRuntime)
//   module loaded (resource callback)  -> keep a copy of the cubin
//   first launch on a context          -> cuptiProfilerInitialize, cuptiDeviceGetChipName,
//                                         cuptiSassMetricsGetProperties per metric,
//                                         cuptiSassMetricsSetConfig (once per device),
//                                         cuptiSassMetricsEnable (lazy patching) on the context
//   profile flush (kernels finished)   -> cuptiSassMetricsGetDataProperties, cuptiSassMetricsFlushData,
//                                         cuptiSassMetricsDisable, cuptiSassMetricsUnsetConfig;
//                                         cuptiGetCubinCrc, cuptiGetSassToSourceCorrelation per
//                                         global memory instruction
// Two mutexes: module loads can come from threads inside the driver, so the cubin list has its
// own lock, never held while calling CUPTI.
#include "HwMetrics.h"

#include "relayout/rt_hw.h"

#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace relayout::rt::hw {
namespace {

struct DeviceConfig {
  std::string chip;
  uint64_t ids[kNumMetrics] = {};        // from cuptiSassMetricsGetProperties, as given to SetConfig
  std::map<uint64_t, unsigned> byId;     // every id that names one of our metrics -> its index
  std::map<uint64_t, std::string> names; // every metric id of the chip -> its name (debug output)
};

// RELAYOUT_HW_DEBUG=1: the raw records on stderr.
bool hwDebug() {
  static const bool on = [] {
    const char* v = std::getenv("RELAYOUT_HW_DEBUG");
    return v && *v && std::string(v) != "0";
  }();
  return on;
}

// RELAYOUT_HW_KERNEL: the mangled name of the one kernel to patch, or null for the first launched.
// CUPTI patches only the first kernel launched after the enable, so `relayout profile --hw` runs
// the program once per kernel.
const char* onlyKernel() {
  static const char* only = [] {
    const char* v = std::getenv("RELAYOUT_HW_KERNEL");
    return v && *v ? v : nullptr;
  }();
  return only;
}

// Marks instance-value slots CUPTI did not write (the buffer has room for more than it fills).
constexpr uint64_t kUnwritten = ~uint64_t(0);

struct Cubin {
  std::string bytes;
  bool haveCrc = false;
  uint64_t crc = 0;
};

struct HwState {
  std::recursive_mutex mutex;  // configuration and collection
  bool on = false;             // requested, and CUPTI's subscriber exists
  bool failed = false;         // warned; no hw object will be written
  bool profilerReady = false;
  std::map<uint32_t, DeviceConfig> devices;             // SetConfig done
  std::vector<std::pair<CUcontext, uint32_t>> enabled;  // patching enabled, with the device
  std::set<CUcontext> seen;

  std::mutex cubinMutex;  // only for cubins
  std::vector<Cubin> cubins;
};
// Never destroyed: used from atexit handlers and CUPTI's threads.
HwState& hwState() {
  static auto* s = new HwState;
  return *s;
}

// CUPTI's parameter structs: zeroed, with their size set.
template <class P>
P params(size_t structSize) {
  P p{};
  p.structSize = structSize;
  return p;
}

const char* text(CUptiResult r) {
  const char* s = nullptr;
  cuptiGetResultString(r, &s);
  return s ? s : "unknown CUPTI error";
}

// With s.mutex held.
void fail(HwState& s, const std::string& what) {
  if (!s.failed)
    std::fprintf(stderr, "relayout: --hw: %s; the profile will have no hardware metrics\n", what.c_str());
  s.failed = true;
}

bool ok(HwState& s, CUptiResult r, const char* call) {
  if (r == CUPTI_SUCCESS) return true;
  fail(s, std::string(call) + " failed: " + text(r));
  return false;
}

// Configures the device for the metrics (with s.mutex held). False after a warning.
bool configureDevice(HwState& s, uint32_t device) {
  if (s.devices.count(device)) return true;
  // Only once a context exists: before the program's first CUDA call it fails (CUPTI_ERROR_UNKNOWN,
  // H100, CUDA 13.0; tests/gpu/hw_call_order.cu).
  if (!s.profilerReady) {
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (!ok(s, cuptiProfilerInitialize(&init), "cuptiProfilerInitialize")) return false;
    s.profilerReady = true;
  }
  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = device;
  if (!ok(s, cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName")) return false;
  if (!chip.pChipName) return fail(s, "CUPTI named no chip for device " + std::to_string(device)), false;

  DeviceConfig config;
  config.chip = chip.pChipName;
  std::vector<CUpti_SassMetrics_Config> metrics;
  for (unsigned m = 0; m < kNumMetrics; ++m) {
    auto props = params<CUpti_SassMetrics_GetProperties_Params>(CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
    props.pChipName = chip.pChipName;
    props.pMetricName = kMetricNames[m];
    CUptiResult r = cuptiSassMetricsGetProperties(&props);
    if (r != CUPTI_SUCCESS)
      return fail(s, std::string("SASS metric ") + kMetricNames[m] + " is not available on " + config.chip + " (" +
                         text(r) + ")"),
             false;
    config.ids[m] = props.metric.metricId;
    config.byId.emplace(props.metric.metricId, m);
    config.names[props.metric.metricId] = kMetricNames[m];
    CUpti_SassMetrics_Config c{};
    c.metricId = props.metric.metricId;
    c.outputGranularity = CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU;
    metrics.push_back(c);
  }
  // The chip's whole list too: an id the data carries may be found there by name even where it
  // differs from GetProperties' (failures here only cost that second chance).
  {
    auto num = params<CUpti_SassMetrics_GetNumOfMetrics_Params>(CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE);
    num.pChipName = chip.pChipName;
    if (cuptiSassMetricsGetNumOfMetrics(&num) == CUPTI_SUCCESS && num.numOfMetrics > 0) {
      std::vector<CUpti_SassMetrics_MetricDetails> list(num.numOfMetrics);
      auto get = params<CUpti_SassMetrics_GetMetrics_Params>(CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE);
      get.pChipName = chip.pChipName;
      get.numOfMetrics = list.size();
      get.pMetricsList = list.data();
      if (cuptiSassMetricsGetMetrics(&get) == CUPTI_SUCCESS)
        for (const CUpti_SassMetrics_MetricDetails& d : list) {
          if (!d.pMetricName) continue;
          config.names.emplace(d.metricId, d.pMetricName);
          for (unsigned m = 0; m < kNumMetrics; ++m)
            if (std::string(d.pMetricName) == kMetricNames[m]) config.byId.emplace(d.metricId, m);
        }
    }
  }
  if (hwDebug()) {
    std::fprintf(stderr, "relayout: --hw debug: device %u chip %s, %zu metric(s) registered with SetConfig:\n", device,
                 config.chip.c_str(), metrics.size());
    for (unsigned m = 0; m < kNumMetrics; ++m)
      std::fprintf(stderr, "relayout: --hw debug:   id %llu (0x%llx) %s\n", (unsigned long long)config.ids[m],
                   (unsigned long long)config.ids[m], kMetricNames[m]);
    for (const auto& [id, m] : config.byId)
      if (id != config.ids[m])
        std::fprintf(stderr, "relayout: --hw debug:   also id %llu (0x%llx) for %s (cuptiSassMetricsGetMetrics)\n",
                     (unsigned long long)id, (unsigned long long)id, kMetricNames[m]);
  }
  auto set = params<CUpti_SassMetricsSetConfig_Params>(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
  set.numOfMetricConfig = metrics.size();
  set.pConfigs = metrics.data();
  set.deviceIndex = device;
  if (!ok(s, cuptiSassMetricsSetConfig(&set), "cuptiSassMetricsSetConfig")) return false;
  s.devices.emplace(device, config);
  return true;
}

using PcKey = std::tuple<uint32_t, std::string, uint32_t>;  // cubin CRC, function, pc offset
using PcValues = std::array<uint64_t, kNumMetrics>;

// What the flush found, for the warning when nothing usable came back.
struct ReadStats {
  size_t records = 0;    // patched instruction records CUPTI reported
  size_t instances = 0;  // largest numOfInstances seen
  size_t matched = 0;    // instance values whose metric id is one of ours
  size_t unknown = 0;    // written instance values whose metric id is not one of ours
  size_t debugged = 0;   // records printed for RELAYOUT_HW_DEBUG
  size_t perMetric[kNumMetrics] = {};  // matched values per metric
  size_t nonzero[kNumMetrics] = {};    // of those, values other than 0
  std::set<uint64_t> unknownIds;       // a few of them, for the warning
};

// Reads and clears the records of one context (with s.mutex held, inside its enable range).
void readContext(HwState& s, CUcontext ctx, const DeviceConfig& config, std::map<PcKey, PcValues>& out,
                 ReadStats& stats) {
  auto props = params<CUpti_SassMetricsGetDataProperties_Params>(CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
  props.ctx = ctx;
  if (!ok(s, cuptiSassMetricsGetDataProperties(&props), "cuptiSassMetricsGetDataProperties")) return;
  const size_t records = props.numOfPatchedInstructionRecords, instances = props.numOfInstances;
  stats.records += records;
  if (instances > stats.instances) stats.instances = instances;
  if (records == 0 || instances == 0) return;
  // Two readings of the layout: NVIDIA's sass_metrics sample gives each record `instances` values,
  // each naming its metric (so one record per instruction and metric); a record could also hold
  // `instances` values of every metric. Room is made for the larger, the slots are marked
  // unwritten first, and every written value is attributed by its own metric id: right either way.
  // (Unmarked zero padding would read as metric id 0 with value 0.)
  const size_t perRecord = instances * kNumMetrics;
  std::vector<CUpti_SassMetrics_Data> data(records);
  CUpti_SassMetrics_InstanceValue unwritten{};
  unwritten.metricId = kUnwritten;
  unwritten.value = 0;
  std::vector<CUpti_SassMetrics_InstanceValue> values(records * perRecord, unwritten);
  for (size_t i = 0; i < records; ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = &values[i * perRecord];
  }
  auto flush = params<CUpti_SassMetricsFlushData_Params>(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
  flush.ctx = ctx;
  flush.numOfPatchedInstructionRecords = records;
  flush.numOfInstances = instances;
  flush.pMetricsData = data.data();
  if (!ok(s, cuptiSassMetricsFlushData(&flush), "cuptiSassMetricsFlushData")) return;
  for (size_t i = 0; i < records; ++i) {
    // functionName is CUPTI's allocation; it is copied and left alone (a few bytes, once per run).
    PcValues& sums = out[PcKey{data[i].cubinCrc, data[i].functionName ? data[i].functionName : "", data[i].pcOffset}];
    const bool debug = hwDebug() && stats.debugged < 5;
    if (debug) {
      ++stats.debugged;
      std::fprintf(stderr, "relayout: --hw debug: record %zu/%zu: cubinCrc %u (0x%x) functionIndex %u function %s pcOffset 0x%x\n",
                   i, records, data[i].cubinCrc, data[i].cubinCrc, data[i].functionIndex,
                   data[i].functionName ? data[i].functionName : "(null)", data[i].pcOffset);
    }
    for (size_t v = 0; v < perRecord; ++v) {
      const CUpti_SassMetrics_InstanceValue& iv = values[i * perRecord + v];
      if (iv.metricId == kUnwritten) continue;
      auto it = config.byId.find(iv.metricId);
      if (debug) {
        auto name = config.names.find(iv.metricId);
        std::fprintf(stderr, "relayout: --hw debug:   [%zu] metricId %llu (0x%llx) %s value %llu%s\n", v,
                     (unsigned long long)iv.metricId, (unsigned long long)iv.metricId,
                     name != config.names.end() ? name->second.c_str() : "(unknown id)", (unsigned long long)iv.value,
                     it == config.byId.end() ? " -- not one of ours" : "");
      }
      if (it == config.byId.end()) {
        ++stats.unknown;
        if (stats.unknownIds.size() < 8) stats.unknownIds.insert(iv.metricId);
        continue;
      }
      const unsigned m = it->second;
      sums[m] += iv.value;
      ++stats.matched, ++stats.perMetric[m];
      if (iv.value) ++stats.nonzero[m];
    }
  }
}

// file:line of one instruction, or false when this cubin has no such function or no line info.
bool correlate(const Cubin& cubin, const std::string& function, uint32_t pcOffset, PcSample& pc) {
  CUpti_GetSassToSourceCorrelationParams params{};
  params.size = CUpti_GetSassToSourceCorrelationParamsSize;
  params.cubin = cubin.bytes.data();
  params.cubinSize = cubin.bytes.size();
  params.functionName = function.c_str();
  params.pcOffset = pcOffset;
  if (cuptiGetSassToSourceCorrelation(&params) != CUPTI_SUCCESS) return false;
  pc.file = sourcePath(params.fileName, params.dirName);
  pc.line = params.lineNumber;
  std::free(params.fileName);  // the caller frees both (cupti_pcsampling.h)
  std::free(params.dirName);
  return true;
}

}  // namespace

void prepareProcess() {
  // A kernel whose module CUDA loads lazily, at its own first launch, is never patched: the
  // first kernel of idw, himeno, particlefilter and hpcg came back without records until the
  // modules were loaded when the context was made (H100, CUDA 13.0). The driver reads this at
  // initialization, which has not happened yet; a value the user set is kept.
  if (requested()) setenv("CUDA_MODULE_LOADING", "EAGER", 0);
}

void start(CUpti_SubscriberHandle subscriber) {
  if (!requested()) return;
  HwState& s = hwState();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  s.on = ok(s, cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED),
            "cuptiEnableCallback(MODULE_LOADED)");
}

void onResource(CUpti_CallbackId cbid, const void* data) {
  if (cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED || !data) return;
  const auto* resource = static_cast<const CUpti_ResourceData*>(data);
  const auto* module = static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor);
  if (!module || !module->pCubin || module->cubinSize == 0) return;
  HwState& s = hwState();
  std::lock_guard<std::mutex> lock(s.cubinMutex);
  std::string bytes(module->pCubin, module->cubinSize);
  for (const Cubin& c : s.cubins)
    if (c.bytes == bytes) return;
  s.cubins.push_back({std::move(bytes)});
}

void noteContext(CUcontext ctx, const char* kernel) {
  if (!ctx) return;
  if (const char* only = onlyKernel(); only && (!kernel || std::string(kernel) != only)) return;
  HwState& s = hwState();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  if (!s.on || s.failed || !s.seen.insert(ctx).second) return;
  uint32_t device = 0;
  if (!ok(s, cuptiGetDeviceId(ctx, &device), "cuptiGetDeviceId")) return;
  if (!configureDevice(s, device)) return;
  auto enable = params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
  enable.ctx = ctx;
  enable.enableLazyPatching = 1;
  if (!ok(s, cuptiSassMetricsEnable(&enable), "cuptiSassMetricsEnable")) return;
  s.enabled.emplace_back(ctx, device);
}

std::string collect(const std::string& device) {
  if (!requested()) return "";
  HwState& s = hwState();
  std::lock_guard<std::recursive_mutex> lock(s.mutex);
  if (!s.on) {
    fail(s, "CUPTI is not in use in this run");
    return "";
  }
  s.on = false;  // once: launches after this flush (e.g. after cudaDeviceReset) are not patched again
  if (s.enabled.empty() && !s.failed) {
    const char* only = onlyKernel();
    fail(s, only ? std::string("kernel ") + only + " was not launched through the CUDA runtime API"
                 : std::string("no kernel launch went through the CUDA runtime API"));
  }

  std::map<PcKey, PcValues> raw;
  std::string chip;
  ReadStats stats;
  const size_t contexts = s.enabled.size();
  for (const auto& [ctx, dev] : s.enabled) {
    const DeviceConfig& config = s.devices.at(dev);
    if (chip.empty()) chip = config.chip;
    if (!s.failed) readContext(s, ctx, config, raw, stats);
    auto disable = params<CUpti_SassMetricsDisable_Params>(CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
    disable.ctx = ctx;
    CUptiResult r = cuptiSassMetricsDisable(&disable);
    if (!s.failed) ok(s, r, "cuptiSassMetricsDisable");
  }
  for (const auto& entry : s.devices) {
    auto unset = params<CUpti_SassMetricsUnsetConfig_Params>(CUpti_SassMetricsUnsetConfig_Params_STRUCT_SIZE);
    unset.deviceIndex = entry.first;
    CUptiResult r = cuptiSassMetricsUnsetConfig(&unset);
    if (!s.failed) ok(s, r, "cuptiSassMetricsUnsetConfig");
  }
  s.enabled.clear();
  s.devices.clear();
  if (s.failed) return "";
  // An empty result is never silent.
  if (stats.records == 0)
    std::fprintf(stderr,
                 "relayout: --hw: CUPTI returned no SASS metric records (%zu context(s) enabled, lazy patching): no "
                 "kernel was patched; the profile's hw object is empty\n",
                 contexts);
  else if (stats.matched == 0) {
    std::string ids;
    for (uint64_t id : stats.unknownIds) ids += " " + std::to_string(id);
    std::fprintf(stderr,
                 "relayout: --hw: CUPTI returned %zu SASS metric records (%zu instance(s) each) but no value carried "
                 "a configured metric id (%zu values with other ids:%s); the profile's hw object is empty; "
                 "RELAYOUT_HW_DEBUG=1 prints the raw records\n",
                 stats.records, stats.instances, stats.unknown, ids.c_str());
  }

  std::vector<Cubin> cubins;
  {
    std::lock_guard<std::mutex> cubinLock(s.cubinMutex);
    cubins = s.cubins;
  }
  for (Cubin& c : cubins) {
    CUpti_GetCubinCrcParams crc{};
    crc.size = CUpti_GetCubinCrcParamsSize;
    crc.cubinSize = c.bytes.size();
    crc.cubin = c.bytes.data();
    if (cuptiGetCubinCrc(&crc) == CUPTI_SUCCESS) c.haveCrc = true, c.crc = crc.cubinCrc;
  }

  // Only global memory instructions are mapped: the others are not reported.
  std::vector<PcSample> pcs;
  std::map<std::string, size_t> cubinOf;  // function -> the cubin that last resolved it
  size_t unresolved = 0;
  for (const auto& [key, values] : raw) {
    PcSample pc;
    pc.function = std::get<1>(key);
    for (unsigned m = 0; m < kNumMetrics; ++m) pc.values[m] = values[m];
    if (!isGlobalMemory(pc)) continue;
    const uint32_t crc = std::get<0>(key);
    const uint32_t pcOffset = std::get<2>(key);
    // The cubin whose CRC matches first (CUPTI reports 32 bits of it), then the one that held this
    // function before, then any other.
    std::vector<size_t> order;
    for (size_t i = 0; i < cubins.size(); ++i)
      if (cubins[i].haveCrc && uint32_t(cubins[i].crc) == crc) order.push_back(i);
    if (auto it = cubinOf.find(pc.function); it != cubinOf.end()) order.push_back(it->second);
    for (size_t i = 0; i < cubins.size(); ++i) order.push_back(i);
    std::set<size_t> tried;
    bool found = false;
    for (size_t i : order) {
      if (!tried.insert(i).second) continue;
      if (correlate(cubins[i], pc.function, pcOffset, pc)) {
        cubinOf[pc.function] = i;
        found = true;
        break;
      }
    }
    if (!found || pc.line == 0) ++unresolved;  // counted as unmapped
    pcs.push_back(std::move(pc));
  }
  if (pcs.empty() && stats.matched > 0) {
    std::string perMetric;
    for (unsigned m = 0; m < kNumMetrics; ++m)
      perMetric += std::string(m ? ", " : "") + kMetricNames[m] + " " + std::to_string(stats.perMetric[m]) + "/" +
                   std::to_string(stats.nonzero[m]);
    std::fprintf(stderr,
                 "relayout: --hw: CUPTI returned %zu SASS metric records, none of a global memory instruction "
                 "(values/nonzero per metric: %s; %zu values with other ids); the profile's hw object is empty; "
                 "RELAYOUT_HW_DEBUG=1 prints the raw records\n",
                 stats.records, perMetric.c_str(), stats.unknown);
  }
  if (!pcs.empty() && unresolved == pcs.size())
    std::fprintf(stderr,
                 "relayout: --hw: no instruction could be mapped to a source line (%zu cubins seen); build the "
                 "program with -lineinfo\n",
                 cubins.size());
  return renderHwJson(device, chip, pcs);
}

}  // namespace relayout::rt::hw
