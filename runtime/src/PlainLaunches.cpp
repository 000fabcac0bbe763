// The host side of plain clones (rt.cuh, "Plain clones"): which launches run instrumented, and
// how a clone's kernel records join its instrumented kernel's.
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

extern "C" int relayout_rt_launch_hooked(const void* kernel, unsigned launches) {
  static std::mutex* mutex = new std::mutex;  // never destroyed: launches may come during exit
  static auto* counts = new std::map<const void*, unsigned>;
  std::lock_guard<std::mutex> lock(*mutex);
  unsigned& n = (*counts)[kernel];
  if (n >= launches) return 0;
  ++n;
  return 1;
}
