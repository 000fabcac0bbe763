// The checks of hw_selftest.cu on the profile it wrote (host code: nlohmann::json stays away from nvcc).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct LineSums {
  unsigned long long instructions = 0, loads = 0, sectors = 0, ideal = 0;
};

LineSums lineOf(const nlohmann::json& lines, const std::string& file, int line) {
  LineSums s;
  for (const auto& l : lines)
    if (endsWith(l.at("file").get<std::string>(), file) && l.at("line").get<int>() == line) {
      s.instructions += l.at("instructions").get<unsigned long long>();
      s.loads += l.at("loads").get<unsigned long long>();
      s.sectors += l.at("sectors").get<unsigned long long>();
      s.ideal += l.at("ideal_sectors").get<unsigned long long>();
    }
  return s;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0; }

}  // namespace

// toolCounters: the unit's 2 sites x 6 columns (warp_execs, lane_execs, sectors, ...).
// checkAos/checkSoa: which kernel's line this run's profile must show (CUPTI patches one kernel per run).
int checkHwProfile(const char* path, const char* sourceName, int aosLine, int soaLine, unsigned long long warps,
                   const unsigned long long* toolCounters, bool checkAos, bool checkSoa) {
  std::ifstream in(path);
  if (!in) return check(false, std::string("the runtime wrote ") + path), failures;
  nlohmann::json profile;
  try {
    profile = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return check(false, std::string(path) + " is JSON: " + e.what()), failures;
  }
  if (!profile.contains("hw"))
    return check(false, std::string(path) + " has an hw object (see the relayout: --hw: message above)"), failures;
  const nlohmann::json& hw = profile["hw"];
  try {
    std::printf("hw: device %s, chip %s; lines of %s:\n", hw.at("device").get<std::string>().c_str(),
                hw.at("chip").get<std::string>().c_str(), sourceName);
    for (const auto& l : hw.at("lines"))
      if (endsWith(l.at("file").get<std::string>(), sourceName)) std::printf("  %s\n", l.dump().c_str());
    std::printf("  excluded %s\n", hw.at("excluded").dump().c_str());

    const LineSums aos = lineOf(hw.at("lines"), sourceName, aosLine);
    const LineSums soa = lineOf(hw.at("lines"), sourceName, soaLine);
    char buf[256];
    if (checkAos) {
      std::snprintf(buf, sizeof buf, "AoS line %d: %llu global loads executed (%llu global memory instructions), "
                    "expected %llu (one per warp)", aosLine, aos.loads, aos.instructions, warps);
      check(aos.loads == warps, buf);
      std::snprintf(buf, sizeof buf,
                    "AoS line %d: sectors %llu = %.2f x ideal %llu (expected 8x: 4 bytes of 32 per lane)", aosLine,
                    aos.sectors, ratio(aos.sectors, aos.ideal), aos.ideal);
      check(std::fabs(ratio(aos.sectors, aos.ideal) - 8.0) <= 0.5, buf);
    }
    if (checkSoa) {
      std::snprintf(buf, sizeof buf, "SoA line %d: %llu global loads executed (%llu global memory instructions), "
                    "expected %llu", soaLine, soa.loads, soa.instructions, warps);
      check(soa.loads == warps, buf);
      std::snprintf(buf, sizeof buf, "SoA line %d: sectors %llu = %.2f x ideal %llu (expected 1x)", soaLine,
                    soa.sectors, ratio(soa.sectors, soa.ideal), soa.ideal);
      check(std::fabs(ratio(soa.sectors, soa.ideal) - 1.0) <= 0.1, buf);
    }

    // The hooks' counter atomics live in rt.cuh: left out of the lines, counted apart.
    bool runtimeLines = false;
    for (const auto& l : hw.at("lines")) {
      const std::string file = l.at("file").get<std::string>();
      runtimeLines = runtimeLines || endsWith(file, "rt.cuh") || endsWith(file, "warp_classify.h");
    }
    std::snprintf(buf, sizeof buf, "no line of the runtime's own files (%llu of their instructions counted apart)",
                  hw.at("excluded").at("runtime_instructions").get<unsigned long long>());
    check(!runtimeLines, buf);

    // relayout's own counters against the hardware, per warp-level access (the reports' criterion).
    const double toolAos = ratio(toolCounters[2], toolCounters[0]), toolSoa = ratio(toolCounters[8], toolCounters[6]);
    const double hwAos = ratio(aos.sectors, aos.instructions), hwSoa = ratio(soa.sectors, soa.instructions);
    if (checkAos) {
      std::snprintf(buf, sizeof buf, "cross-check AoS: relayout %.2f sectors per warp access, hardware %.2f", toolAos,
                    hwAos);
      check(toolAos > 0 && std::fabs(toolAos - hwAos) <= 0.25 * std::max(toolAos, hwAos), buf);
    }
    if (checkSoa) {
      std::snprintf(buf, sizeof buf, "cross-check SoA: relayout %.2f sectors per warp access, hardware %.2f", toolSoa,
                    hwSoa);
      check(toolSoa > 0 && std::fabs(toolSoa - hwSoa) <= 0.25 * std::max(toolSoa, hwSoa), buf);
    }
  } catch (const nlohmann::json::exception& e) {
    check(false, std::string("the hw object is well formed: ") + e.what());
  }
  return failures;
}
