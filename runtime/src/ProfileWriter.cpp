// Registry of instrumented units and the profile writer: no CUDA here, so unit tests can use it.
// The profile JSON itself is written by relayout_formats (formats/src/Profile.cpp).
#include "relayout/rt_host.h"

#include "relayout/formats/Profile.h"

#include <nlohmann/json.hpp>

#include <cxxabi.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <algorithm>
#include <memory>
#include <mutex>

using nlohmann::json;

namespace relayout::rt {
namespace {

// Created on first use (units register from other files' static constructors, maybe before this
// file's) and never destroyed (the profile is written from atexit handlers).
std::mutex& registryMutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::vector<RelayoutUnitDesc>& registry() {
  static auto* units = new std::vector<RelayoutUnitDesc>;
  return *units;
}

static_assert(std::size(kProfileCounterColumns) == RELAYOUT_COUNTER_COLUMNS,
              "the device hooks count the profile's counter columns");

std::string str(const char* s) { return s ? s : ""; }

}  // namespace

void registerUnit(const void* descriptor) {
  // Older descriptors are prefixes of this one, all starting with abi_version: copy only what they have.
  static_assert(offsetof(RelayoutUnitDesc, abi_version) == 0);
  unsigned abi = 0;
  std::memcpy(&abi, descriptor, sizeof abi);
  const size_t size = abi >= 6   ? sizeof(RelayoutUnitDesc)
                      : abi == 5 ? offsetof(RelayoutUnitDesc, plain_blocks)
                      : abi == 4 ? offsetof(RelayoutUnitDesc, num_functions)
                      : abi == 3 ? offsetof(RelayoutUnitDesc, trace_warps)
                      : abi == 2 ? offsetof(RelayoutUnitDesc, num_kernels)
                                 : offsetof(RelayoutUnitDesc, num_loops);
  RelayoutUnitDesc copy{};
  std::memcpy(&copy, descriptor, size);
  std::lock_guard<std::mutex> lock(registryMutex());
  registry().push_back(copy);
}

std::vector<RelayoutUnitDesc> registeredUnits() {
  std::lock_guard<std::mutex> lock(registryMutex());
  return registry();
}

void clearRegisteredUnits() {
  std::lock_guard<std::mutex> lock(registryMutex());
  registry().clear();
}

std::string launcherRank() {
  // Open MPI, PMIx, MPICH/Intel MPI (PMI), MVAPICH2 and Slurm tasks, in that order.
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID"})
    if (const char* value = std::getenv(var); value && *value) return value;
  return "";
}

namespace {

std::mutex& defaultProfileMutex() {
  static std::mutex m;
  return m;
}
std::string& defaultProfile() {
  static std::string pattern;
  return pattern;
}

std::string programName() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "program";
  std::string path(buf, size_t(n));
  return path.substr(path.find_last_of('/') + 1);
}

std::string hostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || !buf[0]) return "host";
  return buf;
}

}  // namespace

void setDefaultProfile(const std::string& pattern) {
  std::lock_guard<std::mutex> lock(defaultProfileMutex());
  if (defaultProfile().empty()) defaultProfile() = pattern;
}

void clearDefaultProfile() {
  std::lock_guard<std::mutex> lock(defaultProfileMutex());
  defaultProfile().clear();
}

std::string expandProfilePattern(const std::string& pattern, const std::string& pid, const std::string& host,
                                 const std::string& program) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    switch (pattern[++i]) {
      case 'p': out += pid; break;
      case 'h': out += host; break;
      case 'm': out += program; break;
      case '%': out += '%'; break;
      default: out += '%', out += pattern[i];  // not a pattern: kept as written
    }
  }
  return out;
}

std::string profilePath() {
  const char* env = std::getenv("RELAYOUT_PROFILE");
  std::string pattern;
  {
    std::lock_guard<std::mutex> lock(defaultProfileMutex());
    pattern = env && *env ? env : !defaultProfile().empty() ? defaultProfile() : "relayout-profile.json";
  }
  std::string path = expandProfilePattern(pattern, std::to_string(getpid()), hostName(), programName());
  // Under an MPI launcher every rank writes its own profile (P.rankN.json); `relayout merge`
  // combines them.
  const std::string rank = launcherRank();
  if (rank.empty()) return path;
  const std::string suffix = ".json";
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return path.substr(0, path.size() - suffix.size()) + ".rank" + rank + suffix;
  return path + ".rank" + rank;
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string utcTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<std::string> commandLine() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    args.push_back(all.substr(start, end - start));
    start = end + 1;
  }
  return args;
}

std::string readUnit(const RelayoutUnitDesc& u, UnitData& into) {
  auto read = [&](RelayoutFetchFn fn, std::vector<unsigned long long>& sum, size_t words, unsigned count,
                  const char* what) -> std::string {
    if (!fn) return "unit " + str(u.source) + " has no function to read its " + what;
    std::vector<unsigned long long> part(words, 0);
    if (int err = fn(part.data(), count))
      return "cannot read the " + std::string(what) + " of " + str(u.source) + " (CUDA error " +
             std::to_string(err) + ")";
    sum.resize(words, 0);
    for (size_t i = 0; i < words; ++i) sum[i] += part[i];
    return "";
  };
  // A unit with no sites, loops or kernels has nothing on the GPU: a .cpp file the host compiler
  // builds has no device symbols at all, and reading them fails.
  if (u.num_sites == 0 && u.num_loops == 0 && (u.abi_version < 3 || u.num_kernels == 0)) {
    if (u.abi_version >= 3 && u.fetch_kernel_blocks) into.kernelBlocks.assign(2, 0);  // the unknown kernel's row
    return "";
  }
  const size_t columns = RELAYOUT_COUNTER_COLUMNS;
  std::string err = read(u.fetch, into.counters, size_t(u.num_sites) * columns, u.num_sites, "counters");
  if (err.empty() && u.num_loops) err = read(u.fetch_loops, into.loops, u.num_loops, u.num_loops, "loop counters");
  if (err.empty() && u.abi_version >= 3 && u.fetch_kernel_sites)
    err = read(u.fetch_kernel_sites, into.kernelSites, size_t(u.num_sites) * (u.num_kernels + 1) * columns,
               u.num_sites, "per-kernel counters");
  if (err.empty() && u.abi_version >= 3 && u.fetch_kernel_blocks)
    err = read(u.fetch_kernel_blocks, into.kernelBlocks, size_t(u.num_kernels + 1) * 2, u.num_kernels,
               "block counts");
  if (!err.empty() || u.abi_version < 3 || u.trace_capacity == 0) return err;
  if (!u.fetch_trace) return "unit " + str(u.source) + " has no function to read its trace";
  std::vector<RelayoutTraceRecord> records(u.trace_capacity);
  unsigned long long requested = 0;
  if (int e = u.fetch_trace(records.data(), &requested))
    return "cannot read the trace of " + str(u.source) + " (CUDA error " + std::to_string(e) + ")";
  // Groups are reserved whole and written whole; the buffer ends with the last group that fit.
  size_t written = 0;
  const size_t filled = std::min<unsigned long long>(requested, u.trace_capacity);
  while (written < filled && records[written].group != 0 && written + records[written].group <= filled)
    written += records[written].group;
  into.trace.insert(into.trace.end(), records.begin(), records.begin() + written);
  into.traceRequested += requested;
  return "";
}

std::string tracePath(const std::string& profilePath) {
  const std::string suffix = ".json";
  if (profilePath.size() > suffix.size() &&
      profilePath.compare(profilePath.size() - suffix.size(), suffix.size(), suffix) == 0)
    return profilePath.substr(0, profilePath.size() - suffix.size()) + ".trace";
  return profilePath + ".trace";
}

std::string writeFileAtomically(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "cannot create " + tmp + ": " + std::strerror(errno);
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return "cannot write " + path + ": " + why;
  }
  return "";
}

namespace {

SiteCounters counterRow(const unsigned long long* r) { return {r[0], r[1], r[2], r[3], r[4], r[5]}; }

// Rows of sites in helpers, per calling kernel: only those a kernel reached.
std::vector<KernelSiteCounters> kernelSites(const RelayoutUnitDesc& u, const UnitData& d) {
  std::vector<KernelSiteCounters> out;
  if (u.abi_version < 3 || !u.site_info || d.kernelSites.empty()) return out;
  const size_t rows = u.num_kernels + 1;
  for (unsigned s = 0; s < u.num_sites; ++s) {
    if (!u.site_info[s].in_helper) continue;
    for (size_t k = 0; k < rows; ++k) {
      const unsigned long long* r = &d.kernelSites[(s * rows + k) * RELAYOUT_COUNTER_COLUMNS];
      if (r[0] == 0) continue;
      out.push_back({s, k < u.num_kernels && u.kernel_names ? str(u.kernel_names[k]) : "?", counterRow(r)});
    }
  }
  return out;
}

// Per kernel: thread blocks run and blocks classified, so the analysis can undo the sampling.
std::vector<KernelBlocks> kernelBlocks(const RelayoutUnitDesc& u, const UnitData& d) {
  std::vector<KernelBlocks> out;
  if (u.abi_version < 3 || d.kernelBlocks.size() < size_t(u.num_kernels) * 2 || !u.kernel_names) return out;
  for (unsigned k = 0; k < u.num_kernels; ++k) {
    // Blocks of plain-clone launches were counted once, on the host: not per device.
    const unsigned long long plain = u.abi_version >= 6 && u.plain_blocks ? u.plain_blocks[k] : 0;
    out.push_back({str(u.kernel_names[k]), d.kernelBlocks[2 * k] + plain, d.kernelBlocks[2 * k + 1]});
  }
  return out;
}

// Per function of the unit (ABI 5): its token hash and its site ids in position order (ascending
// ids: the instrumenter numbers a function's sites in source order), with where each site lay in
// its struct, so that the analysis can reuse the counters of functions that did not change.
std::vector<ProfiledFunction> functions(const RelayoutUnitDesc& u) {
  std::vector<ProfiledFunction> out;
  if (u.abi_version < 5 || !u.num_functions || !u.function_names || !u.function_hashes || !u.site_functions)
    return out;
  std::vector<std::vector<unsigned>> sitesOf(u.num_functions);
  for (unsigned s = 0; s < u.num_sites; ++s)
    if (u.site_functions[s] < u.num_functions) sitesOf[u.site_functions[s]].push_back(s);
  for (unsigned f = 0; f < u.num_functions; ++f) {
    ProfiledFunction function{str(u.function_names[f]), str(u.function_hashes[f]), sitesOf[f], {}};
    if (u.site_info)
      for (unsigned s : sitesOf[f])
        function.layouts.push_back({u.site_info[s].struct_size, u.site_info[s].field, u.site_info[s].offset});
    out.push_back(std::move(function));
  }
  return out;
}

TraceInfo traceInfo(const TraceSummary& t, const std::string& file) {
  TraceInfo info{file, t.records, t.dropped, t.capacity, t.blockPeriod, t.launchesPerKernel, {}, t.warpsPerLaunch};
  for (const LaunchRecord& l : t.launches)
    info.launches.push_back({l.mangled.empty() ? "?" : demangle(l.mangled), l.gridId, l.stream, l.unitKernels});
  return info;
}

}  // namespace

std::string writeProfile(const std::string& path, const ProfileMeta& meta) {
  std::vector<RelayoutUnitDesc> units = registeredUnits();
  std::vector<UnitData> data(units.size());
  for (size_t i = 0; i < units.size(); ++i)
    if (std::string err = readUnit(units[i], data[i]); !err.empty()) return err;
  return writeProfile(path, meta, data);
}

std::string writeProfile(const std::string& path, const ProfileMeta& meta, const std::vector<UnitData>& data) {
  std::vector<RelayoutUnitDesc> units = registeredUnits();
  if (data.size() != units.size()) return "internal error: counters read for a different set of units";

  ProfileData profile;
  profile.device = meta.device;
  profile.created = utcTimestamp();
  profile.command = commandLine();
  for (const KernelRecord& k : meta.kernels)
    profile.kernels.push_back({demangle(k.mangled), k.mangled, k.launches, k.totalNs});
  if (!meta.hw.empty()) {
    try {
      profile.hw = hwFromJson(json::parse(meta.hw));
    } catch (const json::exception& e) {
      return std::string("internal error: the hw metrics do not make a profile's hw object: ") + e.what();
    }
  }
  for (size_t i = 0; i < units.size(); ++i) {
    const RelayoutUnitDesc& u = units[i];
    const UnitData& d = data[i];
    if (d.counters.size() != size_t(u.num_sites) * RELAYOUT_COUNTER_COLUMNS || d.loops.size() != u.num_loops)
      return "internal error: the counters of " + str(u.source) + " were not read";
    UnitProfile unit;
    unit.source = str(u.source);
    unit.sha256 = str(u.sha256);
    unit.blockPeriod = u.block_period;
    for (unsigned s = 0; s < u.num_sites; ++s)
      unit.sites.push_back(counterRow(&d.counters[size_t(s) * RELAYOUT_COUNTER_COLUMNS]));
    unit.loops.assign(d.loops.begin(), d.loops.end());
    unit.kernelSites = kernelSites(u, d);
    unit.kernelBlocks = kernelBlocks(u, d);
    if (u.abi_version >= 3) {
      unit.sampleLaunches = u.sample_launches;
      unit.execPeriod = std::max(1u, u.exec_period);
    }
    unit.functions = functions(u);
    profile.units.push_back(std::move(unit));
  }

  // The trace first: a profile must not describe a trace that could not be written.
  bool tracing = false;
  for (const RelayoutUnitDesc& u : units) tracing |= u.abi_version >= 3 && u.trace_capacity > 0;
  if (tracing) {
    TraceSummary summary;
    const std::string file = tracePath(path);
    if (std::string err = writeTrace(file, units, data, meta, summary); !err.empty()) return err;
    const size_t slash = file.find_last_of('/');
    profile.trace = traceInfo(summary, slash == std::string::npos ? file : file.substr(slash + 1));
  }
  return writeFileAtomically(path, profileText(profile));
}

}  // namespace relayout::rt

extern "C" void relayout_rt_set_default_profile(const char* pattern) {
  if (pattern && *pattern) relayout::rt::setDefaultProfile(pattern);
}
