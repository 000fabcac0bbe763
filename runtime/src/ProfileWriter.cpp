// Registry of instrumented units and the profile writer: no CUDA here, so unit tests can use it.
#include "relayout/rt_host.h"

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

const char* const kColumns[RELAYOUT_COUNTER_COLUMNS] = {"warp_execs", "lane_execs", "sectors",
                                                        "lines",      "near_lanes", "shared_warps"};

std::string str(const char* s) { return s ? s : ""; }

}  // namespace

void registerUnit(const RelayoutUnitDesc& unit) {
  // A version-1 descriptor ends before num_loops: copy only what it has.
  RelayoutUnitDesc copy{};
  std::memcpy(&copy, &unit, unit.abi_version >= 2 ? sizeof copy : offsetof(RelayoutUnitDesc, num_loops));
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

std::string profilePath() {
  const char* env = std::getenv("RELAYOUT_PROFILE");
  std::string path = env && *env ? env : "relayout-profile.json";
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

std::string writeProfile(const std::string& path, const ProfileMeta& meta, const FetchFn& fetch,
                         const FetchFn& fetchLoops) {
  std::vector<RelayoutUnitDesc> units = registeredUnits();

  // Read everything first: a unit whose counters cannot be read means no profile at all, rather
  // than one that silently lacks it.
  std::vector<std::vector<unsigned long long>> counters, loops;
  for (const RelayoutUnitDesc& u : units) {
    std::vector<unsigned long long> rows(size_t(u.num_sites) * RELAYOUT_COUNTER_COLUMNS, 0);
    int err = 0;
    if (fetch)
      err = fetch(u, rows.data());
    else if (u.fetch)
      err = u.fetch(rows.data(), u.num_sites);
    else
      return "unit " + str(u.source) + " has no fetch function";
    if (err != 0)
      return "cannot read the counters of " + str(u.source) + " (CUDA error " + std::to_string(err) + ")";
    counters.push_back(std::move(rows));
    std::vector<unsigned long long> loopRows(u.num_loops, 0);
    if (u.num_loops) {
      if (fetchLoops)
        err = fetchLoops(u, loopRows.data());
      else if (u.fetch_loops)
        err = u.fetch_loops(loopRows.data(), u.num_loops);
      else
        return "unit " + str(u.source) + " has no loop fetch function";
      if (err != 0)
        return "cannot read the loop counters of " + str(u.source) + " (CUDA error " + std::to_string(err) + ")";
    }
    loops.push_back(std::move(loopRows));
  }

  // Hand-laid JSON: one line per kernel and per site row keeps large profiles readable and diffable.
  std::string out = "{\n";
  auto field = [&](const char* key, const json& value, bool last = false) {
    out += "  " + json(key).dump() + ": " + value.dump() + (last ? "\n" : ",\n");
  };
  field("format", "relayout-profile");
  field("version", 1);
  field("device", meta.device);
  field("created", utcTimestamp());
  field("command", commandLine());
  out += "  \"kernels\": [";
  for (size_t i = 0; i < meta.kernels.size(); ++i) {
    const KernelRecord& k = meta.kernels[i];
    nlohmann::ordered_json row = {{"name", demangle(k.mangled)}, {"mangled", k.mangled}, {"launches", k.launches},
                {"total_ns", k.totalNs}};
    out += (i ? ",\n    " : "\n    ") + row.dump();
  }
  out += meta.kernels.empty() ? "],\n" : "\n  ],\n";
  out += "  \"units\": [";
  for (size_t i = 0; i < units.size(); ++i) {
    const RelayoutUnitDesc& u = units[i];
    out += i ? ",\n    {\n" : "\n    {\n";
    out += "      \"source\": " + json(str(u.source)).dump() + ",\n";
    out += "      \"sha256\": " + json(str(u.sha256)).dump() + ",\n";
    out += "      \"block_period\": " + std::to_string(u.block_period) + ",\n";
    out += "      \"counter_columns\": " + json(kColumns).dump() + ",\n";
    out += "      \"loops\": " + json(loops[i]).dump() + ",\n";
    out += "      \"sites\": [";
    for (unsigned s = 0; s < u.num_sites; ++s) {
      const unsigned long long* r = &counters[i][size_t(s) * RELAYOUT_COUNTER_COLUMNS];
      out += s ? ",\n        [" : "\n        [";
      for (unsigned c = 0; c < RELAYOUT_COUNTER_COLUMNS; ++c)
        out += (c ? ", " : "") + std::to_string(r[c]);
      out += "]";
    }
    out += u.num_sites ? "\n      ]\n    }" : "]\n    }";
  }
  out += units.empty() ? "]\n}\n" : "\n  ]\n}\n";

  std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return "cannot create " + tmp + ": " + std::strerror(errno);
  bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return "cannot write " + path + ": " + why;
  }
  return "";
}

}  // namespace relayout::rt
