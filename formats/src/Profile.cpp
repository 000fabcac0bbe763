// The profile JSON's one writer and one reader (docs/formats.md, "relayout-profile").
#include "relayout/formats/Profile.h"

#include "relayout/formats/JsonNumbers.h"

#include <algorithm>
#include <iterator>

using nlohmann::json;
using nlohmann::ordered_json;

namespace relayout {

const UnitProfile* ProfileData::findUnit(const std::string& sha256) const {
  for (const UnitProfile& u : units)
    if (u.sha256 == sha256) return &u;
  return nullptr;
}

static ordered_json counterRow(const SiteCounters& c) {
  return {c.warpExecs, c.laneExecs, c.sectors, c.lines, c.nearLanes, c.sharedWarps};
}

// A key of trace.launches[].unit_kernels: a unit index, in decimal.
static unsigned unitIndexFrom(const std::string& key, const json& where) {
  if (key.empty() || key.size() > 9 || key.find_first_not_of("0123456789") != std::string::npos)
    throw json::other_error::create(501, "unit_kernels has the key '" + key + "', which is no unit index", &where);
  return static_cast<unsigned>(std::stoul(key));
}

static SiteCounters counterRowFrom(const json& row, const std::string& unitSource) {
  auto v = row.get<std::vector<uint64_t>>();
  if (v.size() != std::size(kProfileCounterColumns))
    throw json::other_error::create(
        501, "a site row of unit " + unitSource + " has " + std::to_string(v.size()) + " counters", &row);
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

static ordered_json functionsToJson(const std::vector<ProfiledFunction>& functions) {
  ordered_json out = ordered_json::array();
  for (const ProfiledFunction& f : functions) {
    ordered_json entry = {{"name", f.name}, {"hash", f.hash}, {"sites", f.sites}};
    if (!f.layouts.empty()) {
      ordered_json& layouts = entry["site_layouts"] = ordered_json::array();
      for (const SiteLayout& l : f.layouts) layouts.push_back({l.structSize, l.field, l.offset});
    }
    out.push_back(std::move(entry));
  }
  return out;
}

static std::vector<ProfiledFunction> functionsFromJson(const json& array, const UnitProfile& unit) {
  std::vector<ProfiledFunction> functions;
  for (const json& f : array) {
    ProfiledFunction function{f.at("name").get<std::string>(), f.at("hash").get<std::string>(),
                              f.at("sites").get<std::vector<unsigned>>(), {}};
    for (unsigned site : function.sites)
      if (site >= unit.sites.size())
        throw json::other_error::create(501, "function " + function.name + " of unit " + unit.source +
                                                 " names site " + std::to_string(site) + ", but the unit has " +
                                                 std::to_string(unit.sites.size()) + " sites", &f);
    if (f.contains("site_layouts")) {
      for (const json& l : f.at("site_layouts")) {
        auto v = l.get<std::vector<unsigned>>();
        if (v.size() != 3)
          throw json::other_error::create(501, "a site layout of function " + function.name + " has " +
                                                   std::to_string(v.size()) + " numbers (expected 3)", &l);
        function.layouts.push_back({v[0], v[1], v[2]});
      }
      if (function.layouts.size() != function.sites.size())
        throw json::other_error::create(501, "function " + function.name + " of unit " + unit.source + " has " +
                                                 std::to_string(function.sites.size()) + " sites but " +
                                                 std::to_string(function.layouts.size()) + " site layouts", &f);
    }
    functions.push_back(std::move(function));
  }
  return functions;
}

// Members in the order a reader scans them: what ran, then the long per-unit counters last.
ordered_json profileToJson(const ProfileData& p) {
  ordered_json doc = {{"format", ProfileData::kFormat}, {"version", ProfileData::kVersion}, {"device", p.device},
                      {"created", p.created},          {"command", p.command}};
  if (!p.mergedFrom.empty()) doc["merged_from"] = p.mergedFrom;
  ordered_json& kernelArray = doc["kernels"] = ordered_json::array();
  for (const KernelProfile& k : p.kernels)
    kernelArray.push_back({{"name", k.name}, {"mangled", k.mangled}, {"launches", k.launches},
                           {"total_ns", k.totalNs}});
  if (p.trace) {
    const TraceInfo& t = *p.trace;
    ordered_json launches = ordered_json::array();
    for (const TracedLaunch& l : t.launches) {
      launches.push_back({{"kernel", l.kernel}, {"grid_id", l.gridId}, {"stream", l.stream}});
      if (!l.unitKernels.empty()) {
        ordered_json& ids = launches.back()["unit_kernels"] = ordered_json::object();
        for (const auto& [unit, kernel] : l.unitKernels) ids[std::to_string(unit)] = kernel;
      }
    }
    ordered_json& trace = doc["trace"] = {{"file", t.file},
                                          {"records", t.records},
                                          {"dropped", t.dropped},
                                          {"capacity", t.capacity},
                                          {"block_period", t.blockPeriod},
                                          {"launches_per_kernel", t.launchesPerKernel}};
    if (t.warpsPerLaunch) trace["warps_per_launch"] = t.warpsPerLaunch;
    trace["launches"] = std::move(launches);
  }
  if (p.hw) doc["hw"] = ordered_json(hwToJson(*p.hw));
  ordered_json& unitArray = doc["units"] = ordered_json::array();
  for (const UnitProfile& u : p.units) {
    ordered_json unitJson = {{"source", u.source}, {"sha256", u.sha256}, {"block_period", u.blockPeriod}};
    if (u.sampleLaunches) unitJson["sample_launches"] = u.sampleLaunches;
    if (u.execPeriod > 1) unitJson["exec_period"] = u.execPeriod;
    if (!u.kernelBlocks.empty()) {
      ordered_json& blocks = unitJson["kernel_blocks"] = ordered_json::array();
      for (const KernelBlocks& k : u.kernelBlocks)
        blocks.push_back({{"kernel", k.kernel}, {"blocks", k.blocks}, {"classified", k.classified}});
    }
    unitJson["counter_columns"] = kProfileCounterColumns;
    unitJson["loops"] = u.loops;
    if (!u.functions.empty()) unitJson["functions"] = functionsToJson(u.functions);
    if (!u.kernelSites.empty()) {
      ordered_json& split = unitJson["kernel_sites"] = ordered_json::array();
      for (const KernelSiteCounters& k : u.kernelSites)
        split.push_back({{"site", k.site}, {"kernel", k.kernel}, {"counters", counterRow(k.counters)}});
    }
    ordered_json& rows = unitJson["sites"] = ordered_json::array();
    for (const SiteCounters& c : u.sites) rows.push_back(counterRow(c));
    unitArray.push_back(std::move(unitJson));
  }
  return doc;
}

// Lays out a value at `indent`: arrays of objects or arrays one element per line, the profile and
// its units one member per line, everything else on one line.
static void layOut(const ordered_json& v, size_t indent, bool expandObject, std::string& out) {
  const std::string pad(indent + 2, ' ');
  if (v.is_object() && expandObject && !v.empty()) {
    out += "{";
    bool first = true;
    for (const auto& [key, value] : v.items()) {
      out += (first ? "\n" : ",\n") + pad + ordered_json(key).dump() + ": ";
      layOut(value, indent + 2, false, out);
      first = false;
    }
    out += "\n" + std::string(indent, ' ') + "}";
    return;
  }
  const bool ofContainers = v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const ordered_json& e) {
                              return e.is_structured();
                            });
  if (!ofContainers) {
    out += v.dump();
    return;
  }
  out += "[";
  bool first = true;
  for (const ordered_json& e : v) {
    out += (first ? "\n" : ",\n") + pad;
    // A unit (an element of a top-level array holding site rows) gets one member per line.
    layOut(e, indent + 2, indent == 2 && e.is_object() && e.contains("sites"), out);
    first = false;
  }
  out += "\n" + std::string(indent, ' ') + "]";
}

std::string profileText(const ProfileData& profile) {
  std::string out;
  layOut(profileToJson(profile), 0, true, out);
  return out + "\n";
}

std::string profileFromJson(const json& d, ProfileData& out) {
  const std::string format = ProfileData::kFormat;
  if (!d.is_object() || !d.contains("format") || !d["format"].is_string())
    return "not a relayout " + format + " (no \"format\" field)";
  if (const std::string actual = d["format"].get<std::string>(); actual != format)
    return "expected a " + format + ", found a " + actual;
  if (!d.contains("version") || !d["version"].is_number_integer() || d["version"].get<int>() != ProfileData::kVersion)
    return format + " version " + (d.contains("version") ? d["version"].dump() : "missing") +
           " is not supported (this build reads version " + std::to_string(ProfileData::kVersion) + ")";
  if (std::string where = findNonIntegerNumber(d); !where.empty()) return "malformed " + format + ": " + where;
  try {
    ProfileData& profile = out;
    profile = ProfileData{};
    profile.device = d.at("device").get<std::string>();
    profile.created = d.at("created").get<std::string>();
    profile.command = d.at("command").get<std::vector<std::string>>();
    profile.mergedFrom = d.value("merged_from", std::vector<std::string>{});
    for (const json& k : d.at("kernels"))
      profile.kernels.push_back({k.at("name").get<std::string>(), k.at("mangled").get<std::string>(),
                                 k.at("launches").get<uint64_t>(), k.at("total_ns").get<uint64_t>()});
    for (const json& u : d.at("units")) {
      UnitProfile unit{u.at("source").get<std::string>(), u.at("sha256").get<std::string>(),
                       u.at("block_period").get<unsigned>(), {}, {}};
      if (u.at("counter_columns").get<std::vector<std::string>>() !=
          std::vector<std::string>(std::begin(kProfileCounterColumns), std::end(kProfileCounterColumns)))
        throw json::other_error::create(501, "unit " + unit.source + " has unexpected counter columns", &u);
      for (const json& row : u.at("sites")) unit.sites.push_back(counterRowFrom(row, unit.source));
      // Optional members, added later in version 1.
      if (u.contains("loops")) unit.loops = u.at("loops").get<std::vector<uint64_t>>();
      unit.sampleLaunches = u.value("sample_launches", 0u);
      unit.execPeriod = std::max(1u, u.value("exec_period", 1u));
      if (u.contains("kernel_blocks"))
        for (const json& k : u.at("kernel_blocks"))
          unit.kernelBlocks.push_back(
              {k.at("kernel").get<std::string>(), k.at("blocks").get<uint64_t>(), k.at("classified").get<uint64_t>()});
      if (u.contains("kernel_sites"))
        for (const json& k : u.at("kernel_sites")) {
          const unsigned site = k.at("site").get<unsigned>();
          if (site >= unit.sites.size())
            throw json::other_error::create(501, "kernel_sites names site " + std::to_string(site) + " of unit " +
                                                     unit.source + ", which has " +
                                                     std::to_string(unit.sites.size()) + " sites", &k);
          unit.kernelSites.push_back(
              {site, k.at("kernel").get<std::string>(), counterRowFrom(k.at("counters"), unit.source)});
        }
      if (u.contains("functions")) unit.functions = functionsFromJson(u.at("functions"), unit);
      profile.units.push_back(std::move(unit));
    }
    if (d.contains("trace")) {
      const json& t = d.at("trace");
      TraceInfo trace{t.at("file").get<std::string>(), t.at("records").get<uint64_t>(),
                      t.at("dropped").get<uint64_t>(), t.at("capacity").get<uint64_t>(),
                      t.at("block_period").get<unsigned>(), t.at("launches_per_kernel").get<unsigned>(), {}};
      for (const json& l : t.at("launches")) {
        trace.launches.push_back({l.at("kernel").get<std::string>(), l.at("grid_id").get<uint64_t>(),
                                  l.at("stream").get<uint64_t>(), {}});
        if (l.contains("unit_kernels"))  // optional: added later in version 1
          for (const auto& [unit, kernel] : l.at("unit_kernels").items())
            trace.launches.back().unitKernels[unitIndexFrom(unit, l)] = kernel.get<unsigned>();
      }
      trace.warpsPerLaunch = t.value("warps_per_launch", 0u);
      profile.trace = std::move(trace);
    }
    if (d.contains("hw")) profile.hw = hwFromJson(d.at("hw"));
      return "";
  } catch (const json::exception& e) {
    // e.what() reads "[json.exception.type_error.302] type must be string, but is null"
    const std::string what = e.what();
    const size_t text = what.find("] ");
    return "malformed " + format + ": " + (text == std::string::npos ? what : what.substr(text + 2));
  }
}

}  // namespace relayout
