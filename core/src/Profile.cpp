#include "relayout/core/Profile.h"

#include "JsonRead.h"

using nlohmann::json;

namespace relayout {

const UnitProfile* Profile::findUnit(const std::string& sha256) const {
  for (const UnitProfile& u : units)
    if (u.sha256 == sha256) return &u;
  return nullptr;
}

// Site counters are stored as compact rows in this column order (see docs/formats.md).
static const char* const kCounterColumns[] = {"warp_execs", "lane_execs", "sectors",
                                              "lines",      "near_lanes", "shared_warps"};

static json counterRow(const SiteCounters& c) {
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
  if (v.size() != std::size(kCounterColumns))
    throw json::other_error::create(
        501, "a site row of unit " + unitSource + " has " + std::to_string(v.size()) + " counters", &row);
  return {v[0], v[1], v[2], v[3], v[4], v[5]};
}

static json functionsToJson(const std::vector<ProfiledFunction>& functions) {
  json out = json::array();
  for (const ProfiledFunction& f : functions) {
    json entry = {{"name", f.name}, {"hash", f.hash}, {"sites", f.sites}};
    if (!f.layouts.empty()) {
      json& layouts = entry["site_layouts"] = json::array();
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

json Profile::toJson() const {
  json doc = {{"format", kFormat}, {"version", kVersion}, {"device", device}, {"created", created},
              {"command", command}};
  json& kernelArray = doc["kernels"] = json::array();
  for (const KernelProfile& k : kernels)
    kernelArray.push_back({{"name", k.name}, {"mangled", k.mangled}, {"launches", k.launches},
                           {"total_ns", k.totalNs}});
  json& unitArray = doc["units"] = json::array();
  for (const UnitProfile& u : units) {
    json rows = json::array();
    for (const SiteCounters& c : u.sites) rows.push_back(counterRow(c));
    json unitJson = {{"source", u.source}, {"sha256", u.sha256}, {"block_period", u.blockPeriod},
                     {"counter_columns", kCounterColumns}, {"loops", u.loops}, {"sites", rows}};
    if (u.sampleLaunches) unitJson["sample_launches"] = u.sampleLaunches;
    if (u.execPeriod > 1) unitJson["exec_period"] = u.execPeriod;
    if (!u.kernelBlocks.empty()) {
      json& blocks = unitJson["kernel_blocks"] = json::array();
      for (const KernelBlocks& k : u.kernelBlocks)
        blocks.push_back({{"kernel", k.kernel}, {"blocks", k.blocks}, {"classified", k.classified}});
    }
    if (!u.kernelSites.empty()) {
      json& split = unitJson["kernel_sites"] = json::array();
      for (const KernelSiteCounters& k : u.kernelSites)
        split.push_back({{"site", k.site}, {"kernel", k.kernel}, {"counters", counterRow(k.counters)}});
    }
    if (!u.functions.empty()) unitJson["functions"] = functionsToJson(u.functions);
    unitArray.push_back(std::move(unitJson));
  }
  if (trace) {
    json launches = json::array();
    for (const TracedLaunch& l : trace->launches) {
      launches.push_back({{"kernel", l.kernel}, {"grid_id", l.gridId}, {"stream", l.stream}});
      if (!l.unitKernels.empty()) {
        json& ids = launches.back()["unit_kernels"] = json::object();
        for (const auto& [unit, kernel] : l.unitKernels) ids[std::to_string(unit)] = kernel;
      }
    }
    doc["trace"] = {{"file", trace->file},          {"records", trace->records},
                    {"dropped", trace->dropped},    {"capacity", trace->capacity},
                    {"block_period", trace->blockPeriod}, {"launches_per_kernel", trace->launchesPerKernel},
                    {"launches", launches}};
    if (trace->warpsPerLaunch) doc["trace"]["warps_per_launch"] = trace->warpsPerLaunch;
  }
  if (hw) doc["hw"] = hwToJson(*hw);
  if (!mergedFrom.empty()) doc["merged_from"] = mergedFrom;
  return doc;
}

llvm::Expected<Profile> Profile::fromJson(const json& doc, llvm::StringRef path) {
  return detail::parseDocument<Profile>(doc, path, kFormat, kVersion, [](const json& d) {
    Profile profile;
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
          std::vector<std::string>(std::begin(kCounterColumns), std::end(kCounterColumns)))
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
    return profile;
  });
}

llvm::Expected<Profile> Profile::load(llvm::StringRef path) {
  auto doc = readJsonFile(path);
  if (!doc) return doc.takeError();
  return fromJson(*doc, path);
}

}  // namespace relayout
