// Loading profiles: the format is relayout_formats' (formats/src/Profile.cpp); this checks the
// document against docs/formats/profile.schema.json and what a schema cannot say, and names the file.
#include "relayout/core/Profile.h"

#include "relayout/core/Files.h"
#include "relayout/core/Schema.h"

#include <fmt/format.h>

#include <set>

using nlohmann::json;

namespace relayout {

namespace {

// What one warp-level classification can add to a row of counters (warp_execs, lane_execs,
// sectors, lines, near_lanes, shared_warps): a row that no run can write is refused, naming the
// column, rather than deciding a layout.
std::string impossibleCounters(const json& row) {
  const uint64_t warps = row[0].get<uint64_t>(), lanes = row[1].get<uint64_t>(), sectors = row[2].get<uint64_t>(),
                 lines = row[3].get<uint64_t>(), near = row[4].get<uint64_t>(), shared = row[5].get<uint64_t>();
  constexpr uint64_t kLanes = 32, kSectorsPerLane = 32;  // a lane's access counts at most 32 sectors
  if (lanes < warps || lanes > kLanes * warps)
    return fmt::format("lane_execs {} for {} warp-level executions (each has 1 to 32 active lanes)", lanes, warps);
  if (lines > sectors) return fmt::format("lines {} above sectors {} (a 128-byte line holds sectors)", lines, sectors);
  if (sectors > kSectorsPerLane * lanes || (warps > 0 && sectors < warps))
    return fmt::format("sectors {} for {} lane executions in {} warp-level executions", sectors, lanes, warps);
  if (near > (kLanes - 1) * lanes) return fmt::format("near_lanes {} above 31 per lane execution ({})", near, lanes);
  if (shared > warps) return fmt::format("shared_warps {} above the warp-level executions {}", shared, warps);
  return "";
}

// Sampling sums and references between ids: what the schema cannot express.
llvm::Error checkProfileMeaning(const json& doc, llvm::StringRef path) {
  const json& units = doc["units"];
  for (size_t u = 0; u < units.size(); ++u) {
    const json& unit = units[u];
    const size_t sites = unit["sites"].size();
    for (size_t i = 0; i < sites; ++i)
      if (std::string why = impossibleCounters(unit["sites"][i]); !why.empty())
        return documentError(path, jsonPointer({"units", u, "sites", i}), "counters a run can write", why);
    if (unit.contains("kernel_sites"))
      for (size_t k = 0; k < unit["kernel_sites"].size(); ++k)
        if (std::string why = impossibleCounters(unit["kernel_sites"][k]["counters"]); !why.empty())
          return documentError(path, jsonPointer({"units", u, "kernel_sites", k, "counters"}),
                               "counters a run can write", why);
    // Kernels with counts of their own: a kernel that reaches no hook runs its plain copy in every
    // launch (__rl_pick_plain) and classifies no block.
    std::set<std::string> counted;
    if (unit.contains("kernel_sites"))
      for (const json& row : unit["kernel_sites"])
        for (const json& column : row["counters"])
          if (column.get<uint64_t>() != 0) counted.insert(row["kernel"].get<std::string>());
    if (unit.contains("kernel_blocks"))
      for (size_t k = 0; k < unit["kernel_blocks"].size(); ++k) {
        const json& row = unit["kernel_blocks"][k];
        const uint64_t blocks = row["blocks"].get<uint64_t>(), classified = row["classified"].get<uint64_t>();
        const std::string where = jsonPointer({"units", u, "kernel_blocks", k, "classified"});
        // No upper bound: a checkpoint launch's blocks count for the launches it stands for. Block 0
        // of every classified launch is classified, so a kernel with counts classified some.
        if (blocks > 0 && classified == 0 && counted.count(row["kernel"].get<std::string>()))
          return documentError(path, where,
                               fmt::format("at least 1 when blocks is {} and the kernel has counts", blocks), "0");
      }
    if (unit.contains("kernel_sites"))
      for (size_t k = 0; k < unit["kernel_sites"].size(); ++k) {
        const json& row = unit["kernel_sites"][k];
        const std::string where = jsonPointer({"units", u, "kernel_sites", k});
        if (row["site"].get<uint64_t>() >= sites)
          return documentError(path, where + "/site", fmt::format("a site id below {} (the unit's sites)", sites),
                               row["site"].dump());
      }
    if (unit.contains("functions"))
      for (size_t f = 0; f < unit["functions"].size(); ++f) {
        const json& function = unit["functions"][f];
        for (size_t i = 0; i < function["sites"].size(); ++i)
          if (function["sites"][i].get<uint64_t>() >= sites)
            return documentError(path, jsonPointer({"units", u, "functions", f, "sites", i}),
                                 fmt::format("a site id below {} (the unit's sites)", sites),
                                 function["sites"][i].dump());
        if (function.contains("site_layouts") && function["site_layouts"].size() != function["sites"].size())
          return documentError(path, jsonPointer({"units", u, "functions", f, "site_layouts"}),
                               fmt::format("one layout per site ({})", function["sites"].size()),
                               shownValue(function["site_layouts"]));
      }
  }
  if (doc.contains("trace")) {
    const json& launches = doc["trace"]["launches"];
    for (size_t l = 0; l < launches.size(); ++l)
      if (launches[l].contains("unit_kernels"))
        for (const auto& [unit, kernel] : launches[l]["unit_kernels"].items())
          if (std::stoull(unit) >= units.size())
            return documentError(
                path, jsonPointer({"trace", "launches", l, "unit_kernels", unit}),
                fmt::format("a member named by a unit index below {} (the profile's units)", units.size()),
                "unit " + unit);
  }
  return llvm::Error::success();
}

}  // namespace

json Profile::toJson() const { return json(profileToJson(*this)); }

llvm::Expected<Profile> Profile::fromJson(const json& doc, llvm::StringRef path) {
  if (llvm::Error err = checkFormat(doc, path, ProfileData::kFormat, ProfileData::kVersion)) return err;
  if (llvm::Error err = validateAgainstSchema(doc, path, SchemaKind::Profile)) return err;
  if (llvm::Error err = checkProfileMeaning(doc, path)) return err;
  Profile profile;
  if (std::string error = profileFromJson(doc, profile); !error.empty()) return fileError(path, error);
  return profile;
}

llvm::Expected<Profile> Profile::load(llvm::StringRef path) {
  auto doc = readJsonFile(path);
  if (!doc) return doc.takeError();
  return fromJson(*doc, path);
}

}  // namespace relayout
