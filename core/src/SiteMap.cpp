#include "relayout/core/SiteMap.h"

#include "JsonRead.h"
#include "relayout/formats/JsonNumbers.h"

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
  for (const SiteInfo& s : sites)
    siteArray.push_back({{"id", s.id}, {"location", locationJson(s.location)}, {"struct", s.structName},
                         {"field", s.field}, {"member", s.member.empty() ? s.field : s.member}, {"offset", s.offset}, {"size", s.size},
                         {"access", toString(s.access)}, {"function", s.function}, {"kernels", s.kernels},
                         {"loop", optionalId(s.loop)}, {"position", s.position}});
  json& fileArray = doc["files"] = json::array();
  for (const InstrumentedFile& f : files)
    fileArray.push_back({{"path", f.path}, {"sha256", f.sha256}, {"first_site", f.firstSite}, {"sites", f.numSites},
                         {"first_loop", f.firstLoop}, {"loops", f.numLoops}, {"first_kernel", f.firstKernel},
                         {"kernels", f.numKernels}});
  return doc;
}

llvm::Expected<SiteMap> SiteMap::fromJson(const json& doc, llvm::StringRef path) {
  auto parsed = detail::parseDocument<SiteMap>(doc, path, kFormat, kVersion, [](const json& d) {
    if (std::string where = findNonIntegerNumber(d); !where.empty()) throw json::other_error::create(501, where, &d);
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
        if (k.at("id").get<size_t>() != map.kernels.size())
          throw json::other_error::create(501, "kernel ids must be 0, 1, 2, ...", &k);
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
  // Ids are positions: the runtime's counter arrays are indexed by them.
  for (size_t i = 0; i < parsed->sites.size(); ++i) {
    const SiteInfo& site = parsed->sites[i];
    if (site.id != i) return fileError(path, fmt::format("site {} has id {}; ids must be 0, 1, 2, ...", i, site.id));
    const StructInfo* s = parsed->findStruct(site.structName);
    if (!s || !s->field(site.field))
      return fileError(path, fmt::format("site {} names {}.{}, which the site map does not describe", i,
                                         site.structName, site.field));
  }
  return parsed;
}

llvm::Expected<SiteMap> SiteMap::load(llvm::StringRef path) {
  auto doc = readJsonFile(path);
  if (!doc) return doc.takeError();
  return fromJson(*doc, path);
}

}  // namespace relayout
