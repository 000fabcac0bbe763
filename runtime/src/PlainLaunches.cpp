// The host side of plain clones (rt.cuh, "Plain clones"): which launches run instrumented, and
// how a clone's kernel records join its instrumented kernel's.
#include "relayout/rt_common.h"
#include "relayout/rt_host.h"

#include <map>
#include <mutex>
#include <string>

namespace relayout::rt {

std::string hookedName(const std::string& mangled) {
  static const std::string kSuffix = "__rl_plain";
  const size_t at = mangled.find(kSuffix);
  if (at == std::string::npos) return mangled;
  const size_t end = at + kSuffix.size();
  // The identifier ending with the suffix is preceded by its length in decimal.
  for (size_t start = at; start > 0; --start) {
    size_t digits = start;
    while (digits > 0 && mangled[digits - 1] >= '0' && mangled[digits - 1] <= '9') --digits;
    if (digits == start || start - digits > 4) continue;
    if (std::stoul(mangled.substr(digits, start - digits)) != end - start) continue;
    return mangled.substr(0, digits) + std::to_string(at - start) + mangled.substr(start, at - start) +
           mangled.substr(end);
  }
  return mangled;
}

}  // namespace relayout::rt

namespace {

// Per kernel host function: its launches so far, those run instrumented among the first ones and
// for growth, and the most blocks of one of them.
struct HookedLaunches {
  unsigned long long launches = 0;
  unsigned first = 0, grown = 0;
  unsigned long long largest = 0;
};

int admit(const void* kernel, unsigned launches, unsigned checkpoints, unsigned long long blocks, bool known) {
  static std::mutex* mutex = new std::mutex;  // never destroyed: launches may come during exit
  static auto* kernels = new std::map<const void*, HookedLaunches>;
  std::lock_guard<std::mutex> lock(*mutex);
  HookedLaunches& k = (*kernels)[kernel];
  ++k.launches;
  if (k.first < launches) {
    ++k.first;
  } else if (known && k.grown < RELAYOUT_GROWTH_LAUNCHES && __rl_launch_grew(k.largest, blocks)) {
    ++k.grown;
  } else if (__rl_checkpoint_index(launches, checkpoints, k.launches) < 0) {
    return 0;
  }
  if (known && blocks > k.largest) k.largest = blocks;
  return 1;
}

}  // namespace

extern "C" int relayout_rt_launch_hooked(const void* kernel, unsigned launches) {
  return admit(kernel, launches, 0, 0, false);
}

extern "C" int relayout_rt_launch_hooked_grid(const void* kernel, unsigned launches, unsigned checkpoints,
                                              unsigned long long blocks) {
  return admit(kernel, launches, checkpoints, blocks, true);
}
