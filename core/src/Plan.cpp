#include "relayout/core/Plan.h"

#include "JsonRead.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

using nlohmann::json;

namespace relayout {

const char* toString(Layout layout) {
  switch (layout) {
    case Layout::AoS: return "aos";
    case Layout::SoA: return "soa";
    case Layout::Clustered: return "clustered";
    case Layout::Aligned: return "aligned";
  }
  return "aos";
}

std::optional<Layout> parseLayoutName(std::string_view name) {
  for (Layout layout : kLayouts)
    if (llvm::StringRef(name).equals_insensitive(toString(layout))) return layout;
  return std::nullopt;
}

// A plan spells layouts as toString does; other spellings are not the format.
static Layout layoutFromString(const std::string& text, const json& where) {
  for (Layout layout : kLayouts)
    if (text == toString(layout)) return layout;
  throw json::other_error::create(501, "unknown layout \"" + text + "\" (expected aos, soa, clustered or aligned)",
                                  &where);
}

std::vector<Cluster> soaClusters(const std::vector<std::string>& fieldNames) {
  std::vector<Cluster> clusters;
  for (const std::string& f : fieldNames) clusters.push_back({f, {f}});
  return clusters;
}

const StructPlan* Plan::findStruct(const std::string& name) const {
  for (const StructPlan& s : structs)
    if (s.name == name) return &s;
  return nullptr;
}

json Plan::toJson() const {
  json doc = {{"format", kFormat}, {"version", kVersion}, {"mode", mode}};
  json& sourceArray = doc["sources"] = json::array();
  for (const PlanSource& s : sources) {
    json source = {{"path", s.path}, {"sha256", s.sha256}};
    if (!s.functions.empty()) {
      json& functions = source["functions"] = json::array();
      for (const FunctionHash& f : s.functions) functions.push_back({{"name", f.name}, {"hash", f.hash}});
    }
    sourceArray.push_back(std::move(source));
  }
  json& structArray = doc["structs"] = json::array();
  for (const StructPlan& s : structs) {
    json clusterArray = json::array();
    for (const Cluster& c : s.clusters) {
      json cluster = {{"name", c.name}, {"fields", c.fields}};
      if (s.layout == Layout::Clustered) cluster["padding_bytes"] = c.paddingBytes;
      clusterArray.push_back(std::move(cluster));
    }
    json entry = {{"name", s.name},
                  {"fields", s.fields},
                  {"layout", toString(s.layout)},
                  {"clusters", clusterArray},
                  {"score", s.score},
                  {"reason", s.reason},
                  {"details", s.details.is_null() ? json::object() : s.details}};
    if (s.align) entry["align"] = s.align;
    if (s.transpose) entry["transpose"] = s.transpose;
    structArray.push_back(std::move(entry));
  }
  return doc;
}

static std::string quoted(const std::string& text) { return json(text).dump(); }

// What the schema cannot say: names are unique, clusters partition the struct's fields (when the
// plan lists them), an SoA cluster holds one field, and the score is a finite number.
static llvm::Error checkPlanMeaning(const Plan& plan, llvm::StringRef path) {
  for (size_t i = 0; i < plan.structs.size(); ++i) {
    const StructPlan& s = plan.structs[i];
    auto at = [&](std::initializer_list<json> rest) {
      std::string pointer = jsonPointer({"structs", i});
      for (const json& part : rest) pointer += jsonPointer({part});
      return pointer;
    };
    for (size_t j = 0; j < i; ++j)
      if (plan.structs[j].name == s.name)
        return documentError(path, at({"name"}),
                             "a struct no other entry plans (" + jsonPointer({"structs", j, "name"}) + " plans it)",
                             quoted(s.name));
    if (!std::isfinite(s.score)) return documentError(path, at({"score"}), "a finite number", std::to_string(s.score));
    for (size_t f = 0; f < s.fields.size(); ++f)
      for (size_t g = 0; g < f && !s.fields[f].empty(); ++g)  // unnamed members may be several
        if (s.fields[g] == s.fields[f])
          return documentError(path, at({"fields", f}),
                               "a field no other entry names (" + at({"fields", g}) + " names it)",
                               quoted(s.fields[f]));
    if (!splitsFields(s.layout) && !s.clusters.empty())
      return documentError(path, at({"clusters"}), fmt::format("no clusters for layout \"{}\"", toString(s.layout)),
                           shownValue(json(s.clusters.size(), 0)));
    if (s.align && s.layout != Layout::Aligned)
      return documentError(path, at({"align"}), "no alignment for layout \"" + std::string(toString(s.layout)) + "\"",
                           std::to_string(s.align));
    if (s.transpose && s.layout != Layout::SoA)
      return documentError(path, at({"transpose"}),
                           "no transposition for layout \"" + std::string(toString(s.layout)) + "\"",
                           std::to_string(s.transpose));
    if (splitsFields(s.layout) && s.clusters.empty())
      return documentError(path, at({"clusters"}), fmt::format("clusters for layout \"{}\"", toString(s.layout)),
                           "none");
    std::map<std::string, std::string> placed;  // field -> where a cluster names it
    for (size_t c = 0; c < s.clusters.size(); ++c) {
      const Cluster& cluster = s.clusters[c];
      if (s.layout == Layout::SoA && cluster.fields.size() != 1)
        return documentError(path, at({"clusters", c, "fields"}), "one field per cluster for layout \"soa\"",
                             shownValue(json(cluster.fields)));
      for (size_t f = 0; f < cluster.fields.size(); ++f) {
        const std::string& field = cluster.fields[f];
        const std::string where = at({"clusters", c, "fields", f});
        if (!s.fields.empty() && std::find(s.fields.begin(), s.fields.end(), field) == s.fields.end()) {
          std::string list;
          for (const std::string& name : s.fields) list += (list.empty() ? "" : ", ") + name;
          return documentError(path, where, "a field of " + s.name + " (" + list + ")", quoted(field));
        }
        if (auto [it, fresh] = placed.try_emplace(field, where); !fresh && !field.empty())
          return documentError(path, where, "a field no other cluster holds (" + it->second + " holds it)",
                               quoted(field));
      }
    }
    if (splitsFields(s.layout)) {  // every field left out, so that one edit mends the plan
      std::string missing;
      for (size_t f = 0; f < s.fields.size(); ++f)
        if (!placed.count(s.fields[f]))
          missing += (missing.empty() ? "" : ", ") + quoted(s.fields[f]) + " (" + at({"fields", f}) + ")";
      if (!missing.empty())
        return documentError(path, at({"clusters"}), "clusters that hold every field of " + s.name,
                             "none holding " + missing);
    }
  }
  return llvm::Error::success();
}

llvm::Expected<Plan> Plan::fromJson(const json& doc, llvm::StringRef path) {
  auto plan = detail::parseDocument<Plan>(doc, path, kFormat, kVersion, SchemaKind::Plan, [](const json& d) {
    Plan plan;
    plan.mode = d.at("mode").get<std::string>();
    for (const json& s : d.at("sources")) {
      PlanSource source{s.at("path").get<std::string>(), s.at("sha256").get<std::string>(), {}};
      if (s.contains("functions"))
        for (const json& f : s.at("functions"))
          source.functions.push_back({f.at("name").get<std::string>(), f.at("hash").get<std::string>()});
      plan.sources.push_back(std::move(source));
    }
    for (const json& s : d.at("structs")) {
      StructPlan sp;
      sp.name = s.at("name").get<std::string>();
      sp.fields = s.value("fields", std::vector<std::string>{});
      sp.layout = layoutFromString(s.at("layout").get<std::string>(), s);
      // A plan written by hand may leave out what its layout implies: none for aos, one per field
      // for soa (a clustered layout must name its clusters; checkPlanMeaning says so).
      if (!s.contains("clusters") && sp.layout == Layout::SoA) sp.clusters = soaClusters(sp.fields);
      for (const json& c : s.value("clusters", json::array()))
        sp.clusters.push_back({c.at("name").get<std::string>(), c.at("fields").get<std::vector<std::string>>(),
                               c.value("padding_bytes", 0u)});  // a checked count: the schema
      // 8 or 16: the schema.
      sp.align = s.value("align", 0u);
      sp.transpose = s.value("transpose", 0u);  // 2 or more: the schema
      sp.score = s.at("score").get<double>();
      sp.reason = s.at("reason").get<std::string>();
      sp.details = s.value("details", json::object());
      plan.structs.push_back(std::move(sp));
    }
    return plan;
  });
  if (!plan) return plan.takeError();
  if (llvm::Error err = checkPlanMeaning(*plan, path)) return err;
  return plan;
}

llvm::Error checkPlanFitsSiteMap(const Plan& plan, llvm::StringRef planPath, const SiteMap& current) {
  const PlanSource* source = nullptr;
  for (const PlanSource& s : plan.sources)
    if (s.sha256 == current.sourceSha256) return llvm::Error::success();
  for (const PlanSource& s : plan.sources)
    if (s.path == current.sourcePath) source = &s;
  if (!source)
    return fileError(planPath, "was not made for " + current.sourcePath + "; analyze its profile again");
  if (source->functions.empty())
    return fileError(planPath, "was made for another version of " + current.sourcePath +
                                   " and records no function hashes to check it by; analyze its profile again");
  std::vector<std::string> changed;
  for (const FunctionHash& f : source->functions) {
    auto now = std::find_if(current.functions.begin(), current.functions.end(),
                            [&](const FunctionInfo& c) { return c.name == f.name; });
    if (now == current.functions.end())
      changed.push_back(f.name + " (removed)");
    else if (now->hash != f.hash)
      changed.push_back(f.name + " (hash " + now->hash.substr(0, 12) + ", planned " + f.hash.substr(0, 12) + ")");
  }
  for (const StructInfo& s : current.structs) {
    const StructPlan* planned = plan.findStruct(s.name);
    if (!planned || planned->fields.empty()) continue;
    std::vector<std::string> fields;
    for (const FieldInfo& f : s.fields) fields.push_back(f.name);
    if (fields != planned->fields) changed.push_back("struct " + s.name + " (fields differ)");
  }
  if (changed.empty()) return llvm::Error::success();
  std::string list;
  for (const std::string& c : changed) list += (list.empty() ? "" : ", ") + c;
  return fileError(planPath, "was made for another version of " + current.sourcePath +
                                 ", and what it decided on changed since: " + list + "; analyze its profile again");
}

llvm::Expected<Plan> Plan::load(llvm::StringRef path) {
  auto doc = readJsonFile(path);
  if (!doc) return doc.takeError();
  return fromJson(*doc, path);
}

}  // namespace relayout
