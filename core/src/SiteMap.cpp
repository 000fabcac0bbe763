#include "relayout/core/SiteMap.h"

#include "JsonRead.h"

#include <algorithm>

#include <fmt/format.h>

using nlohmann::json;

namespace relayout {

// An array field's extents read from its spelled type ("float [4][3]": {4, 3}), for site maps
// written before `extents` was: the only place that reads extents from a type's text.
static std::vector<uint64_t> extentsFromType(std::string type) {
  std::vector<uint64_t> extents;
  while (!type.empty() && type.back() == ']') {
    const size_t open = type.rfind('[');
    if (open == std::string::npos) return {};
    const std::string extent = type.substr(open + 1, type.size() - open - 2);
    if (extent.empty() || extent.size() > 18 || extent.find_first_not_of("0123456789") != std::string::npos) return {};
    extents.insert(extents.begin(), std::stoull(extent));
    type.resize(open);
    while (!type.empty() && type.back() == ' ') type.pop_back();
  }
  if (!type.empty() && type.back() == ')') return {};  // "int (*)[4]": a pointer to an array
  return extents;
}

std::string SourceLocation::str() const { return fmt::format("{}:{}:{}", file, line, column); }

const FieldInfo* StructInfo::field(const std::string& fieldName) const {
  for (const FieldInfo& f : fields)
    if (f.name == fieldName) return &f;
  return nullptr;
}

const char* toString(AccessKind kind) {
  switch (kind) {
    case AccessKind::Read: return "read";
    case AccessKind::Write: return "write";
    case AccessKind::ReadWrite: return "readwrite";
  }
  return "read";
}

std::optional<AccessKind> accessKindFromString(const std::string& text) {
  if (text == "read") return AccessKind::Read;
  if (text == "write") return AccessKind::Write;
  if (text == "readwrite") return AccessKind::ReadWrite;
  return std::nullopt;
}

const StructInfo* SiteMap::findStruct(const std::string& name) const {
  for (const StructInfo& s : structs)
    if (s.name == name) return &s;
  return nullptr;
}

static json locationJson(const SourceLocation& loc) {
  return {{"file", loc.file}, {"line", loc.line}, {"col", loc.column}};
}

static SourceLocation locationFrom(const json& j) {
  return {j.at("file").get<std::string>(), j.at("line").get<unsigned>(), j.at("col").get<unsigned>()};
}

static json optionalId(const std::optional<unsigned>& id) { return id ? json(*id) : json(nullptr); }

static std::optional<unsigned> optionalIdFrom(const json& j) {
  if (j.is_null()) return std::nullopt;
  return j.get<unsigned>();
}

json SiteMap::toJson() const {
  json doc = {{"format", kFormat}, {"version", kVersion},
              {"source", {{"path", sourcePath}, {"sha256", sourceSha256}}},
              {"block_period", blockPeriod}};
  json& structArray = doc["structs"] = json::array();
  for (const StructInfo& s : structs) {
    json fieldArray = json::array();
    for (const FieldInfo& f : s.fields)
      fieldArray.push_back({{"name", f.name}, {"type", f.type}, {"offset", f.offset}, {"size", f.size},
                            {"align", f.align}, {"extents", f.extents}});
    structArray.push_back({{"name", s.name}, {"location", locationJson(s.location)}, {"size", s.size},
                           {"align", s.align}, {"fields", fieldArray}});
  }
  json& functionArray = doc["functions"] = json::array();
  for (const FunctionInfo& f : functions)
    functionArray.push_back({{"name", f.name}, {"kernel", f.isKernel}, {"location", locationJson(f.location)},
                             {"kernels", f.kernels}, {"instantiations", f.instantiations}, {"hash", f.hash}});
  json& kernelArray = doc["kernels"] = json::array();
  for (size_t id = 0; id < kernels.size(); ++id) kernelArray.push_back({{"id", id}, {"name", kernels[id]}});
  json& loopArray = doc["loops"] = json::array();
  for (const LoopInfo& l : loops)
    loopArray.push_back({{"id", l.id}, {"kind", l.kind}, {"function", l.function},
                         {"location", locationJson(l.location)}, {"parent", optionalId(l.parent)}});
  json& siteArray = doc["sites"] = json::array();
  for (const SiteInfo& s : sites) {
    siteArray.push_back({{"id", s.id}, {"location", locationJson(s.location)}, {"struct", s.structName},
                         {"field", s.field}, {"member", s.member.empty() ? s.field : s.member}, {"offset", s.offset}, {"size", s.size},
                         {"access", toString(s.access)}, {"function", s.function}, {"kernels", s.kernels},
                         {"loop", optionalId(s.loop)}, {"position", s.position}});
    if (s.rowWidth) siteArray.back()["row_width"] = s.rowWidth;
    if (!s.element.empty()) siteArray.back()["element"] = s.element;
    if (s.unread) siteArray.back()["unread"] = true;
  }
  json& fileArray = doc["files"] = json::array();
  for (const InstrumentedFile& f : files)
    fileArray.push_back({{"path", f.path}, {"sha256", f.sha256}, {"first_site", f.firstSite}, {"sites", f.numSites},
                         {"first_loop", f.firstLoop}, {"loops", f.numLoops}, {"first_kernel", f.firstKernel},
                         {"kernels", f.numKernels}});
  return doc;
}

static std::string namesOf(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list.empty() ? "none" : list;
}

static std::string quoted(const std::string& text) { return json(text).dump(); }

// What the schema cannot say: ids are positions (the runtime's counter arrays are indexed by
// them), names are unique, fields lie inside their struct, and every reference names something
// the map declares.
static llvm::Error checkSiteMapMeaning(const SiteMap& map, const json& doc, llvm::StringRef path) {
  if (doc.contains("kernels"))  // kept as names only: their ids are checked here
    for (size_t i = 0; i < doc["kernels"].size(); ++i)
      if (doc["kernels"][i]["id"] != i)
        return documentError(path, jsonPointer({"kernels", i, "id"}), fmt::format("{} (kernel ids are positions)", i),
                             doc["kernels"][i]["id"].dump());
  std::vector<std::string> structNames;
  for (size_t i = 0; i < map.structs.size(); ++i) {
    const StructInfo& s = map.structs[i];
    for (size_t j = 0; j < i; ++j)
      if (map.structs[j].name == s.name)
        return documentError(path, jsonPointer({"structs", i, "name"}),
                             "a name no other struct has (" + jsonPointer({"structs", j, "name"}) + " has it)",
                             quoted(s.name));
    structNames.push_back(s.name);
    for (size_t f = 0; f < s.fields.size(); ++f) {
      const FieldInfo& field = s.fields[f];
      // The instrumenter writes a bit-field with size and align 0; every other field has bytes.
      if ((field.size == 0) != (field.align == 0))
        return documentError(path, jsonPointer({"structs", i, "fields", f, field.size == 0 ? "size" : "align"}),
                             "at least 1 (0, with align 0, only for a bit-field)", "0");
      for (size_t g = 0; g < f && !field.name.empty(); ++g)  // unnamed members may be several
        if (s.fields[g].name == field.name)
          return documentError(path, jsonPointer({"structs", i, "fields", f, "name"}),
                               "a name no other field of " + s.name + " has (" +
                                   jsonPointer({"structs", i, "fields", g, "name"}) + " has it)",
                               quoted(field.name));
      if (uint64_t(field.offset) + field.size > s.size)
        return documentError(path, jsonPointer({"structs", i, "fields", f, "offset"}),
                             fmt::format("at most {} (the field's {} bytes inside {}'s {})",
                                         s.size - std::min(s.size, field.size), field.size, s.name, s.size),
                             std::to_string(field.offset));
    }
  }
  for (size_t i = 0; i < map.loops.size(); ++i) {
    const LoopInfo& loop = map.loops[i];
    if (loop.id != i)
      return documentError(path, jsonPointer({"loops", i, "id"}), fmt::format("{} (loop ids are positions)", i),
                           std::to_string(loop.id));
    if (!loop.parent) continue;
    const std::string where = jsonPointer({"loops", i, "parent"});
    if (*loop.parent >= map.loops.size())
      return documentError(path, where, fmt::format("null or a loop id below {}", map.loops.size()),
                           std::to_string(*loop.parent));
    if (*loop.parent == i)
      return documentError(path, where, "null or the id of the loop that encloses loop " + std::to_string(i),
                           std::to_string(i) + " (the loop itself)");
    // Parents lead out to a loop without one: a cycle would make the access tree endless.
    std::optional<unsigned> up = loop.parent;
    for (size_t steps = 0; up; ++steps, up = map.loops[*up].parent)
      if (steps > map.loops.size() || *up >= map.loops.size())
        return documentError(path, where, "a chain of enclosing loops that ends",
                             "a cycle through loop " + std::to_string(i));
  }
  for (size_t i = 0; i < map.sites.size(); ++i) {
    const SiteInfo& site = map.sites[i];
    if (site.id != i)
      return documentError(path, jsonPointer({"sites", i, "id"}), fmt::format("{} (site ids are positions)", i),
                           std::to_string(site.id));
    const StructInfo* s = map.findStruct(site.structName);
    if (!s)
      return documentError(path, jsonPointer({"sites", i, "struct"}),
                           "a struct the site map declares (" + namesOf(structNames) + ")", quoted(site.structName));
    if (!s->field(site.field)) {
      std::vector<std::string> fields;
      for (const FieldInfo& f : s->fields) fields.push_back(f.name);
      return documentError(path, jsonPointer({"sites", i, "field"}),
                           "a field of " + s->name + " (" + namesOf(fields) + ")", quoted(site.field));
    }
    // What a site touched lies inside its field (a bit-field has no bytes of its own to check):
    // the model replays addresses and the traffic estimate strides by these bytes.
    const FieldInfo& field = *s->field(site.field);
    if (field.size > 0 &&
        (site.offset < field.offset || uint64_t(site.offset) + site.size > uint64_t(field.offset) + field.size))
      return documentError(path, jsonPointer({"sites", i, site.offset < field.offset ? "offset" : "size"}),
                           fmt::format("bytes inside field {} of {} (offsets {} to {})", site.field, s->name,
                                       field.offset, field.offset + field.size),
                           fmt::format("{} bytes at offset {}", site.size, site.offset));
    if (site.loop && *site.loop >= map.loops.size())
      return documentError(path, jsonPointer({"sites", i, "loop"}),
                           fmt::format("null or a loop id below {}", map.loops.size()), std::to_string(*site.loop));
  }
  // Each file's own ids are a range of the unit's: it cannot end past the unit's last id.
  for (size_t i = 0; i < map.files.size(); ++i) {
    const InstrumentedFile& f = map.files[i];
    struct Range {
      const char *first, *count, *what;
      unsigned start, size;
      size_t total;
    };
    std::vector<Range> ranges = {{"first_site", "sites", "sites", f.firstSite, f.numSites, map.sites.size()},
                                 {"first_loop", "loops", "loops", f.firstLoop, f.numLoops, map.loops.size()}};
    if (doc.contains("kernels"))  // optional: added later in version 1
      ranges.push_back({"first_kernel", "kernels", "kernels", f.firstKernel, f.numKernels, map.kernels.size()});
    for (const Range& r : ranges)
      if (uint64_t(r.start) + r.size > r.total)
        return documentError(path, jsonPointer({"files", i, r.count}),
                             fmt::format("at most {} (ids from {} on, of the unit's {} {})",
                                         r.total - std::min<size_t>(r.total, r.start), r.start, r.total, r.what),
                             std::to_string(r.size));
  }
  return llvm::Error::success();
}

llvm::Expected<SiteMap> SiteMap::fromJson(const json& doc, llvm::StringRef path) {
  auto parsed = detail::parseDocument<SiteMap>(doc, path, kFormat, kVersion, SchemaKind::SiteMap, [](const json& d) {
    SiteMap map;
    map.sourcePath = d.at("source").at("path").get<std::string>();
    map.sourceSha256 = d.at("source").at("sha256").get<std::string>();
    map.blockPeriod = d.at("block_period").get<unsigned>();
    for (const json& s : d.at("structs")) {
      StructInfo info{s.at("name").get<std::string>(), locationFrom(s.at("location")), s.at("size").get<unsigned>(),
                      s.at("align").get<unsigned>(), {}};
      for (const json& f : s.at("fields"))
        info.fields.push_back({f.at("name").get<std::string>(), f.at("type").get<std::string>(),
                               f.at("offset").get<unsigned>(), f.at("size").get<unsigned>(),
                               f.at("align").get<unsigned>(),
                               f.contains("extents")  // optional: added later in version 1
                                   ? f.at("extents").get<std::vector<uint64_t>>()
                                   : extentsFromType(f.at("type").get<std::string>())});
      map.structs.push_back(std::move(info));
    }
    for (const json& f : d.at("functions")) {
      map.functions.push_back({f.at("name").get<std::string>(), f.at("kernel").get<bool>(),
                               locationFrom(f.at("location")), f.at("kernels").get<std::vector<std::string>>(), {}});
      if (f.contains("instantiations"))  // optional: added later in version 1
        map.functions.back().instantiations = f.at("instantiations").get<std::vector<std::string>>();
      map.functions.back().hash = f.value("hash", std::string());  // optional: added later in version 1
    }
    if (d.contains("kernels"))  // optional: added later in version 1
      for (const json& k : d.at("kernels")) {
        map.kernels.push_back(k.at("name").get<std::string>());
      }
    for (const json& l : d.at("loops"))
      map.loops.push_back({l.at("id").get<unsigned>(), l.at("kind").get<std::string>(),
                           l.at("function").get<std::string>(), locationFrom(l.at("location")),
                           optionalIdFrom(l.at("parent"))});
    for (const json& s : d.at("sites")) {
      SiteInfo site;
      site.id = s.at("id").get<unsigned>();
      site.location = locationFrom(s.at("location"));
      site.structName = s.at("struct").get<std::string>();
      site.field = s.at("field").get<std::string>();
      site.member = s.value("member", site.field);  // optional: added later in version 1
      site.offset = s.at("offset").get<unsigned>();
      site.size = s.at("size").get<unsigned>();
      auto access = accessKindFromString(s.at("access").get<std::string>());
      if (!access) throw json::other_error::create(501, "unknown access kind " + s.at("access").dump(), &s);
      site.access = *access;
      site.function = s.at("function").get<std::string>();
      site.kernels = s.at("kernels").get<std::vector<std::string>>();
      site.loop = optionalIdFrom(s.at("loop"));
      site.position = s.value("position", 0u);  // optional: added later in version 1
      site.rowWidth = s.value("row_width", 0u);  // optional: added later in version 1
      site.element = s.value("element", std::string());  // optional: added later in version 1
      site.unread = s.value("unread", false);            // optional: added later in version 1
      map.sites.push_back(std::move(site));
    }
    if (d.contains("files"))  // optional: added later in version 1
      for (const json& f : d.at("files"))
        map.files.push_back({f.at("path").get<std::string>(), f.at("sha256").get<std::string>(),
                             f.at("first_site").get<unsigned>(), f.at("sites").get<unsigned>(),
                             f.at("first_loop").get<unsigned>(), f.at("loops").get<unsigned>(),
                             f.at("first_kernel").get<unsigned>(), f.at("kernels").get<unsigned>()});
    return map;
  });
  if (!parsed) return parsed.takeError();
  if (llvm::Error err = checkSiteMapMeaning(*parsed, doc, path)) return err;
  return parsed;
}

llvm::Error checkDistinctUnits(const std::vector<std::string>& paths, const std::vector<const SiteMap*>& maps) {
  for (size_t i = 0; i < maps.size() && i < paths.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (maps[j]->sourceSha256 == maps[i]->sourceSha256)
        return fileError(paths[i], fmt::format("describes the same unit as {} ({}, sha256 {}); give each site map once",
                                               paths[j], maps[i]->sourcePath, maps[i]->sourceSha256.substr(0, 12)));
  return llvm::Error::success();
}

llvm::Expected<SiteMap> SiteMap::load(llvm::StringRef path) {
  auto doc = readJsonFile(path);
  if (!doc) return doc.takeError();
  return fromJson(*doc, path);
}

}  // namespace relayout
