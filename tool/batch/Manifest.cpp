#include "batch/Manifest.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <toml++/toml.h>
#include <algorithm>
#include <set>
#include <tuple>

namespace relayout::batch {

const std::vector<std::string>& appKeys() {
  static const std::vector<std::string> keys = {
      "name", "dir",    "sources",          "flags",   "build",   "run",     "compare", "ignore_lines", "rtol",
      "atol", "repeat", "recorded_profile", "timeout", "options", "variants", "variant_options", "data"};
  return keys;
}

bool isFileName(const std::string& name) {
  return !name.empty() && name[0] != '.' &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") ==
             std::string::npos;
}

namespace {

// Collects every problem of the manifest before any is reported.
struct Reader {
  std::string path, folder;
  std::vector<std::tuple<uint32_t, uint32_t, std::string>> errors;  // line, column, message: shown in order

  std::string where(const toml::source_region& at) const {
    return fmt::format("{}:{}:{}", path, at.begin.line, at.begin.column);
  }
  void error(const toml::source_region& at, const std::string& message) {
    errors.emplace_back(at.begin.line, at.begin.column, where(at) + ": error: " + message);
  }
  std::string absolute(const std::string& base, const std::string& p) const {
    if (llvm::sys::path::is_absolute(p)) return p;
    llvm::SmallString<256> out(base);
    llvm::sys::path::append(out, p);
    llvm::sys::path::remove_dots(out, true);
    return std::string(out);
  }

  std::optional<std::string> string(const toml::node& node, const std::string& key) {
    if (auto v = node.value<std::string>()) return *v;
    error(node.source(), fmt::format("'{}' must be a string", key));
    return std::nullopt;
  }
  std::vector<std::string> strings(const toml::node& node, const std::string& key) {
    std::vector<std::string> out;
    const toml::array* array = node.as_array();
    if (!array) {
      error(node.source(), fmt::format("'{}' must be an array of strings", key));
      return out;
    }
    for (const toml::node& item : *array) {
      if (auto v = item.value<std::string>()) out.push_back(*v);
      else error(item.source(), fmt::format("'{}' must hold strings only", key));
    }
    return out;
  }
  std::optional<double> number(const toml::node& node, const std::string& key) {
    if (auto v = node.value<double>(); v && *v >= 0) return *v;
    error(node.source(), fmt::format("'{}' must be a number of at least 0", key));
    return std::nullopt;
  }
  std::optional<unsigned> count(const toml::node& node, const std::string& key) {
    if (auto v = node.value<int64_t>(); v && *v >= 1 && *v <= 1000000) return static_cast<unsigned>(*v);
    error(node.source(), fmt::format("'{}' must be a whole number of at least 1", key));
    return std::nullopt;
  }

  // Applies one key of an [[app]] (or [defaults]) table to `app`; `dir` is resolved later.
  void apply(App& app, const std::string& key, const toml::node& node, std::string& dirText) {
    if (key == "name") {
      if (auto v = string(node, key)) app.name = *v;
    } else if (key == "dir") {
      if (auto v = string(node, key)) dirText = *v;
    } else if (key == "sources") {
      app.sources = strings(node, key);
    } else if (key == "flags") {
      app.flags = strings(node, key);
    } else if (key == "build") {
      if (auto v = string(node, key)) app.build = *v;
    } else if (key == "run") {
      if (auto v = string(node, key)) app.run = *v;
    } else if (key == "compare") {
      app.compare = strings(node, key);
    } else if (key == "data") {
      app.data = strings(node, key);
    } else if (key == "ignore_lines") {
      app.ignoreLines = strings(node, key);
    } else if (key == "rtol") {
      app.rtol = number(node, key);
    } else if (key == "atol") {
      app.atol = number(node, key);
    } else if (key == "repeat") {
      app.repeat = count(node, key);
    } else if (key == "recorded_profile") {
      if (auto v = string(node, key)) app.recordedProfile = *v;
    } else if (key == "timeout") {
      if (auto v = count(node, key)) app.timeoutSeconds = *v;
    } else if (key == "options") {
      app.options = strings(node, key);
    } else if (key == "variants") {
      app.variants = variants(node, key);
    } else if (key == "variant_options") {
      app.variantOptions = strings(node, key);
    }
  }

  // variants = { NAME = ["FILE", ...], ... }
  std::vector<Variant> variants(const toml::node& node, const std::string& key) {
    std::vector<Variant> out;
    const toml::table* table = node.as_table();
    if (!table) {
      error(node.source(), fmt::format("'{}' must be a table of variant names and their sources", key));
      return out;
    }
    for (const auto& [name, sources] : *table) {
      const std::string n(name.str());
      if (!isFileName(n))
        error(name.source(), fmt::format("variant name '{}': letters, digits, '_', '-' and '.' only", n));
      else if (std::vector<std::string> files = strings(sources, key + "." + n); sources.is_array())
        out.push_back({n, std::move(files)});
    }
    return out;
  }

  bool knownKey(const std::string& key, const toml::source_region& at) {
    for (const std::string& k : appKeys())
      if (k == key) return true;
    std::string list;
    for (const std::string& k : appKeys()) list += (list.empty() ? "" : ", ") + k;
    error(at, fmt::format("unknown key '{}' (an application has: {})", key, list));
    return false;
  }

  void checkFiles(App& app, const toml::source_region& at, const std::string& dirText) {
    app.dir = absolute(folder, dirText.empty() ? "." : dirText);
    if (!llvm::sys::fs::is_directory(app.dir)) {
      error(at, fmt::format("application '{}': folder '{}' does not exist", app.name, app.dir));
      return;
    }
    if (app.sources.empty()) error(at, fmt::format("application '{}' lists no sources", app.name));
    for (const std::string& s : app.sources)
      if (!llvm::sys::fs::exists(absolute(app.dir, s)))
        error(at, fmt::format("application '{}': source '{}' does not exist (in {})", app.name, s, app.dir));
    for (const Variant& v : app.variants) {
      if (v.sources.empty())
        error(at, fmt::format("application '{}': variant '{}' lists no sources", app.name, v.name));
      for (const std::string& s : v.sources)
        if (!llvm::sys::fs::exists(absolute(app.dir, s)))
          error(at, fmt::format("application '{}': variant '{}': source '{}' does not exist (in {})", app.name, v.name,
                                s, app.dir));
    }
    for (const std::string& d : app.data)
      if (llvm::sys::path::is_absolute(d) || llvm::StringRef(d).starts_with(".."))
        error(at, fmt::format("application '{}': data '{}' must be a path inside its folder {}", app.name, d, app.dir));
      else if (!llvm::sys::fs::exists(absolute(app.dir, d)))
        error(at, fmt::format("application '{}': data '{}' does not exist (in {})", app.name, d, app.dir));
    if (!app.build.empty()) {
      app.build = absolute(app.dir, app.build);
      if (!app.flags.empty()) error(at, fmt::format("application '{}' has both 'flags' and 'build'", app.name));
      if (!llvm::sys::fs::exists(app.build + "/compile_commands.json"))
        error(at, fmt::format("application '{}': '{}' holds no compile_commands.json", app.name, app.build));
    }
    if (!app.recordedProfile.empty()) {
      app.recordedProfile = absolute(app.dir, app.recordedProfile);
      if (!llvm::sys::fs::exists(app.recordedProfile))
        error(at, fmt::format("application '{}': recorded profile '{}' does not exist", app.name, app.recordedProfile));
    }
  }
};

}  // namespace

llvm::Expected<Manifest> readManifest(const std::string& path) {
  Reader reader;
  llvm::SmallString<256> absolutePath(path);
  llvm::sys::fs::make_absolute(absolutePath);
  reader.path = path;
  reader.folder = std::string(llvm::sys::path::parent_path(absolutePath));
  if (!llvm::sys::fs::is_regular_file(absolutePath))
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: error: no such manifest file", path.c_str());
  toml::table root;
  try {
    root = toml::parse_file(std::string(absolutePath));
  } catch (const toml::parse_error& e) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: error: %s", reader.where(e.source()).c_str(),
                                   std::string(e.description()).c_str());
  }
  App defaults;
  std::string defaultDir;
  for (const auto& [key, node] : root) {
    const std::string k(key.str());
    if (k == "defaults") {
      const toml::table* table = node.as_table();
      if (!table) {
        reader.error(node.source(), "'defaults' must be a table");
        continue;
      }
      for (const auto& [dk, dn] : *table) {
        const std::string d(dk.str());
        if (d == "name") reader.error(dn.source(), "'name' belongs to each application, not to [defaults]");
        else if (reader.knownKey(d, dk.source())) reader.apply(defaults, d, dn, defaultDir);
      }
    } else if (k != "app") {
      reader.error(key.source(), fmt::format("unknown table or key '{}' (a manifest has [defaults] and [[app]])", k));
    }
  }
  Manifest manifest;
  manifest.path = std::string(absolutePath);
  std::set<std::string> names;
  if (const toml::node* apps = root.get("app")) {
    const toml::array* list = apps->as_array();
    if (!list || !list->is_array_of_tables()) {
      reader.error(apps->source(), "'app' must be an array of tables, written [[app]]");
    } else {
      for (const toml::node& item : *list) {
        const toml::table& table = *item.as_table();
        App app = defaults;
        std::string dirText = defaultDir;
        for (const auto& [key, node] : table) {
          const std::string k(key.str());
          if (reader.knownKey(k, key.source())) reader.apply(app, k, node, dirText);
        }
        app.where = reader.where(table.source());
        if (app.name.empty()) {
          reader.error(table.source(), "an application has no 'name'");
          continue;
        }
        if (!isFileName(app.name)) {
          reader.error(table.source(), fmt::format("application name '{}': letters, digits, '_', '-' and '.' only (it "
                                                   "names files and folders)",
                                                   app.name));
          continue;
        }
        if (!names.insert(app.name).second) {
          reader.error(table.source(), fmt::format("a second application named '{}'", app.name));
          continue;
        }
        reader.checkFiles(app, table.source(), dirText);
        manifest.apps.push_back(std::move(app));
      }
    }
  }
  if (manifest.apps.empty() && reader.errors.empty())
    reader.errors.emplace_back(0, 0, path + ": error: the manifest lists no application ([[app]] tables)");
  if (!reader.errors.empty()) {
    std::stable_sort(reader.errors.begin(), reader.errors.end());
    std::string all;
    for (const auto& e : reader.errors) all += (all.empty() ? "" : "\n") + std::get<2>(e);
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s", all.c_str());
  }
  return manifest;
}

}  // namespace relayout::batch
