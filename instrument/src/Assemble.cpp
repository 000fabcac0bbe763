#include "Assemble.h"

#include "FileUnion.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <algorithm>
#include <functional>
#include <set>

namespace relayout {

std::string cStringLiteral(llvm::StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

namespace {

llvm::Error error(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string relativeTo(const std::string& path, const std::string& folder) {
  llvm::StringRef rest(path);
  if (folder.empty() || !rest.consume_front(folder)) return path;
  if (folder.back() != '/' && !rest.consume_front("/")) return path;
  return rest.str();
}

// The working folder's view of a file: relative where it lies below it.
std::string displayPath(const std::string& absolute) {
  llvm::SmallString<256> cwd;
  if (llvm::sys::fs::current_path(cwd)) return absolute;
  std::string rel = relativeTo(absolute, resolvedPath(cwd.str().str()));
  return rel;
}

std::string commonFolder(const std::vector<std::string>& paths) {
  std::string common;
  bool first = true;
  for (const std::string& p : paths) {
    std::string folder = llvm::sys::path::parent_path(p).str();
    if (first) {
      common = folder, first = false;
      continue;
    }
    while (!common.empty() && common != "/" && relativeTo(folder, common) == folder && folder != common)
      common = llvm::sys::path::parent_path(common).str();
  }
  return common.empty() ? "/" : common;
}

std::string identifierOf(llvm::StringRef text) {
  std::string out;
  for (char c : text) out += llvm::isAlnum(c) ? c : '_';
  return out;
}

// Another unit's sites of a template's field access, which may see other instantiations: each
// site joins the one that counts the same thing, with its conditions, or is added. False when
// either access is not such an access.
bool mergeInstances(RawAccess& known, const RawAccess& other) {
  if (!hasInstances(known) || !hasInstances(other)) return false;
  for (size_t i = 0; i < other.sites.size(); ++i) addInstanceSite(known, other.sites[i], other.instances[i]);
  return true;
}

// The site id of a hooked field access: one number, or where the template's instantiations reach
// different structs, a choice by its template arguments, the last site for any other instantiation.
std::string siteIdExpression(const RawAccess& access, const std::function<std::string(unsigned)>& idOf) {
  if (access.sites.size() == 1) return idOf(0);
  std::string chain;
  for (size_t i = 0; i + 1 < access.sites.size(); ++i) {
    std::string condition;
    for (const std::string& c : access.instances[i]) condition += (condition.empty() ? "" : " || ") + c;
    chain += fmt::format("({}) ? ({}) : ", condition, idOf(unsigned(i)));
  }
  return "(" + chain + "(" + idOf(unsigned(access.sites.size() - 1)) + "))";
}

// At one offset: the ends of wraps that close there (innermost first), then the starts of wraps
// that open there (outermost first), so that nested hooks stay nested.
std::string applyWraps(const std::string& text, const std::vector<Wrap>& wraps) {
  std::map<unsigned, std::vector<std::pair<const Wrap*, bool>>> at;  // offset -> (wrap, opens)
  for (const Wrap& w : wraps) {
    at[w.begin].push_back({&w, true});
    at[w.end].push_back({&w, false});
  }
  std::string out;
  unsigned done = 0;
  for (auto& [offset, list] : at) {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      if (a.second != b.second) return !a.second;             // closings before openings
      if (!a.second) return a.first->begin > b.first->begin;  // inner closes first
      const bool aEmpty = a.first->begin == a.first->end, bEmpty = b.first->begin == b.first->end;
      if (aEmpty != bEmpty) return aEmpty;  // an insertion goes before the expressions that start there
      return a.first->end > b.first->end;   // outer opens first
    });
    out.append(text, done, offset - done);
    done = offset;
    for (const auto& [w, opens] : list) out += opens ? w->prefix : w->suffix;
  }
  out.append(text, done, std::string::npos);
  return out;
}

class Assembler {
 public:
  Assembler(std::vector<UnitFindings> units, const std::vector<std::string>& given, const InstrumentOptions& options)
      : units_(std::move(units)), given_(given), options_(options) {}

  llvm::Expected<InstrumentResult> run() {
    if (llvm::Error err = unite()) return err;
    number();
    onceSites_.emplace(files_);  // the project's call graph, walked once for every file's hooks
    InstrumentResult result;
    result.root = root_;
    for (size_t u = 0; u < units_.size(); ++u) result.units.push_back(unit(u));
    for (auto& [path, file] : files_) {
      if (mains_.count(path)) continue;
      InstrumentedHeader header{path, file.relative, headerText(file), file.hooked()};
      result.headers.push_back(std::move(header));
    }
    return result;
  }

 private:
  // Every unit's findings, file by file, into one union per file; and the files each unit reads.
  llvm::Error unite() {
    std::set<std::string> hooked;
    for (size_t u = 0; u < units_.size(); ++u) {
      mains_[units_[u].mainFile] = u;
      for (auto& [path, text] : units_[u].texts) {
        reads_[u].insert(path);
        auto [it, added] = files_.try_emplace(path);
        if (!added) continue;
        it->second.path = path;
        it->second.text = text;
        it->second.sha256 = sha256Hex(text);
      }
    }
    for (size_t u = 0; u < units_.size(); ++u)
      for (size_t v = 0; v < units_.size(); ++v)
        if (u != v && reads_[v].count(units_[u].mainFile))
          return error(fmt::format("{} is a source and is also included by {}: give only the including source",
                                   given_[u], given_[v]));
    // A header that declares a device function defined elsewhere carries the declaration of its
    // plain copy too: a caller before the definition calls NAME__rl_plain through it.
    auto declaresCopy = [](const FileFindings& found) {
      return std::any_of(found.functionTexts.begin(), found.functionTexts.end(),
                         [](const auto& entry) { return !entry.second.definition; });
    };
    for (size_t u = 0; u < units_.size(); ++u)
      for (auto& [path, found] : units_[u].files)
        if (!found.empty() || declaresCopy(found)) hooked.insert(path);
    // The tree holds the sources and the files with hooks; an unchanged header outside it is
    // still found where it is (through the sources' folders).
    std::vector<std::string> rooted(hooked.begin(), hooked.end());
    for (const UnitFindings& unit : units_) rooted.push_back(unit.mainFile);
    root_ = commonFolder(rooted);
    for (auto it = files_.begin(); it != files_.end();)
      it = !hooked.count(it->first) && !mains_.count(it->first) && relativeTo(it->first, root_) == it->first
               ? files_.erase(it)
               : std::next(it);
    for (size_t u = 0; u < units_.size(); ++u)
      for (auto it = reads_[u].begin(); it != reads_[u].end();)
        it = files_.count(*it) ? std::next(it) : reads_[u].erase(it);
    for (auto& [path, file] : files_) {
      auto main = mains_.find(path);
      file.display = main != mains_.end() ? given_[main->second] : displayPath(path);
      file.relative = relativeTo(path, root_);
      file.key = identifierOf(file.relative);
    }
    for (size_t u = 0; u < units_.size(); ++u) {
      for (auto& [path, found] : units_[u].files) {
        auto kept = files_.find(path);
        if (kept == files_.end()) continue;  // no hook and outside the tree: its functions keep no copy
        FileUnion& file = kept->second;
        for (auto& [range, access] : found.accesses) {
          auto [it, added] = file.accesses.try_emplace(range, access);
          if (added) {
            file.accessUnit[range] = u;
            continue;
          }
          RawAccess& known = it->second;
          if (mergeInstances(known, access)) continue;
          bool same = known.whole == access.whole && known.sites.size() == access.sites.size();
          for (size_t i = 0; same && i < access.sites.size(); ++i) same = sameSite(known.sites[i], access.sites[i]);
          if (!same)
            return error(fmt::format(
                "{}:{}:{}: the units {} and {} see this access differently ({}.{} at byte {} against {}.{} at byte "
                "{}); relayout instruments a header once, so it must mean the same in every unit that includes it "
                "(are they built with different macros?)",
                file.display, access.sites[0].location.line, access.sites[0].location.column,
                given_[file.accessUnit[range]], given_[u], known.sites[0].structName, known.sites[0].member,
                known.sites[0].offset, access.sites[0].structName, access.sites[0].member, access.sites[0].offset));
          for (size_t i = 0; i < access.sites.size(); ++i)
            if (known.sites[i].access != access.sites[i].access) known.sites[i].access = AccessKind::ReadWrite;
        }
        file.loops.insert(found.loops.begin(), found.loops.end());
        for (auto& [offset, text] : found.functionTexts) {  // a grid constant where every unit found one
          auto [known, added] = file.functionTexts.try_emplace(offset, text);
          if (added) continue;
          std::erase_if(known->second.gridConstants,
                        [&](const auto& param) { return !text.gridConstants.count(param.first); });
        }
        file.launches.insert(found.launches.begin(), found.launches.end());
        for (auto& [offset, call] : found.calls) {  // renamed only where every unit can rename it
          auto [known, added] = file.calls.try_emplace(offset, call);
          if (added) continue;
          known->second.renamable &= call.renamable;
          known->second.localObjects &= call.localObjects;
          known->second.callees.insert(call.callees.begin(), call.callees.end());
        }
        for (auto& [offset, kernel] : found.kernels)  // a kernel template's instantiations, from every unit
          addConditions(file.kernels.try_emplace(offset, kernel).first->second.instances, kernel.instances);
      }
      // Units may define different structs of one name; one definition (a header's) must lay out
      // the same in every unit.
      for (auto& [name, info] : units_[u].structs) {
        auto [it, added] = structs_.try_emplace(name, info);
        bool sameDefinition =
            it->second.location.file == info.location.file && it->second.location.line == info.location.line;
        if (!added && sameDefinition &&
            (it->second.size != info.size || it->second.fields.size() != info.fields.size()))
          return error(fmt::format(
              "{}:{}: struct {} lays out as {} bytes in {} but as {} in an earlier unit; relayout "
              "needs one layout per struct (are the units built with different macros?)",
              displayPath(info.location.file), info.location.line, name, info.size, given_[u], it->second.size));
      }
      for (const FunctionInfo& f : units_[u].functions) {
        auto [it, added] = functions_.try_emplace({resolvedPath(f.location.file), f.name}, f);
        if (!added)
          for (const std::string& i : f.instantiations)
            if (std::find(it->second.instantiations.begin(), it->second.instantiations.end(), i) ==
                it->second.instantiations.end())
              it->second.instantiations.push_back(i);
      }
    }
    for (auto& [path, file] : files_) {
      file.lineStarts.push_back(0);
      for (unsigned i = 0; i < file.text.size(); ++i)
        if (file.text[i] == '\n') file.lineStarts.push_back(i + 1);
    }
    for (auto& [path, file] : files_) {
      auto main = mains_.find(path);
      bool includedElsewhere = false;
      for (size_t u = 0; u < units_.size(); ++u) includedElsewhere |= reads_[u].count(path) && mainOf(u) != path;
      file.literal = main != mains_.end() && !includedElsewhere;
    }
    return llvm::Error::success();
  }

  const std::string& mainOf(size_t u) const { return units_[u].mainFile; }

  // Local ids in source order within each file.
  void number() {
    for (auto& [path, file] : files_) {
      unsigned next = 0;
      for (auto& [range, access] : file.accesses) {
        file.siteLocal[range] = next;
        next += unsigned(access.sites.size());
      }
      file.numSites = next;
      unsigned loop = 0, kernel = 0;
      for (auto& [offset, raw] : file.loops) file.loopLocal[offset] = loop++;
      for (auto& [offset, raw] : file.kernels) file.kernelLocal[offset] = kernel++;
    }
  }

  // The instrumented files a unit reads, the main source first, then by relative path.
  std::vector<const FileUnion*> unitFiles(size_t u) const {
    std::vector<const FileUnion*> out{&files_.at(mainOf(u))};
    for (const std::string& path : reads_.at(u))
      if (path != mainOf(u) && files_.at(path).hooked()) out.push_back(&files_.at(path));
    std::sort(out.begin() + 1, out.end(),
              [](const FileUnion* a, const FileUnion* b) { return a->relative < b->relative; });
    return out;
  }

  SourceLocation located(SourceLocation loc) const {
    auto it = files_.find(resolvedPath(loc.file));
    if (it != files_.end()) loc.file = it->second.display;
    return loc;
  }

  InstrumentedUnit unit(size_t u) {
    const UnitFindings& found = units_[u];
    std::vector<const FileUnion*> files = unitFiles(u);
    SiteMap map;
    map.sourcePath = given_[u];
    map.sourceSha256 = files_.at(mainOf(u)).sha256;
    map.blockPeriod = options_.blockPeriod;
    std::map<std::string, std::set<std::string>> kernelsOf;  // this unit's kernels reaching each function
    for (const FunctionInfo& f : found.functions) kernelsOf[f.name].insert(f.kernels.begin(), f.kernels.end());

    std::map<FilePlace, unsigned> loopIds;
    for (const FileUnion* file : files) {
      InstrumentedFile entry{file->display,
                             file->sha256,
                             unsigned(map.sites.size()),
                             file->numSites,
                             unsigned(map.loops.size()),
                             unsigned(file->loops.size()),
                             unsigned(map.kernels.size()),
                             unsigned(file->kernels.size())};
      for (auto& [offset, raw] : file->loops)
        loopIds[{file->path, offset}] = entry.firstLoop + file->loopLocal.at(offset);
      for (auto& [offset, raw] : file->loops) {
        LoopInfo info = raw.info;
        info.id = loopIds.at({file->path, offset});
        info.location = located(info.location);
        if (raw.parent) info.parent = loopIds.at(*raw.parent);
        map.loops.push_back(std::move(info));
      }
      for (auto& [offset, raw] : file->kernels) map.kernels.push_back(raw.name);
      std::map<std::string, unsigned> positions;  // per function of this file
      for (auto& [range, access] : file->accesses)
        for (const SiteInfo& raw : access.sites) {
          SiteInfo site = raw;
          site.id = unsigned(map.sites.size());
          site.location = located(site.location);
          if (access.loop) {
            auto loop = loopIds.find(*access.loop);
            if (loop != loopIds.end()) site.loop = loop->second;
          }
          auto& k = kernelsOf[site.function];
          site.kernels.assign(k.begin(), k.end());
          site.position = positions[site.function]++;
          map.sites.push_back(std::move(site));
        }
      map.files.push_back(std::move(entry));
      for (auto& [key, f] : functions_) {
        if (key.first != file->path) continue;
        FunctionInfo info = f;
        info.location = located(info.location);
        auto& k = kernelsOf[info.name];
        info.kernels.assign(k.begin(), k.end());
        map.functions.push_back(std::move(info));
      }
    }
    std::set<std::string> used;
    for (const SiteInfo& s : map.sites) used.insert(s.structName);
    for (const std::string& name : used) {
      // The unit's own definition; one only another unit saw for a header's template.
      auto own = found.structs.find(name);
      StructInfo info = own != found.structs.end() ? own->second : structs_.at(name);
      info.location = located(info.location);
      map.structs.push_back(std::move(info));
    }

    InstrumentedUnit out;
    out.sourcePath = given_[u];
    out.relativePath = files_.at(mainOf(u)).relative;
    out.instrumentedText =
        preamble(map, files) + "#line 1 " + cStringLiteral(mainOf(u)) + "\n" + hookedText(files_.at(mainOf(u)));
    out.siteMap = std::move(map);
    return out;
  }

  bool drawsIterations() const { return options_.drawIterations; }

  // The file's text with its hooks; ids as numbers in a private main source, else as the including
  // unit's base for the file plus the local id.
  std::string hookedText(const FileUnion& file) const {
    auto id = [&](const char* kind, unsigned local) {
      if (file.literal) return std::to_string(local);
      return fmt::format("RELAYOUT_{}_BASE_{} + {}", kind, file.key, local);
    };
    std::vector<Wrap> wraps;
    const PlainCloneText plain(files_, options_.plainClones);
    const std::optional<IterationDraws> draws =
        drawsIterations() ? std::optional<IterationDraws>(std::in_place, file, plain) : std::nullopt;
    // Iteration draws replace loop prefixes: a drawn loop's hooks name its draw.
    const std::optional<LoopPrefixes> prefixes = options_.loopPrefix && !drawsIterations()
                                                     ? std::optional<LoopPrefixes>(std::in_place, file, plain)
                                                     : std::nullopt;
    for (auto& [range, access] : file.accesses) {
      unsigned first = file.siteLocal.at(range);
      // In a drawn loop's body a hook tests the iteration's draw, held in the body's variable.
      const std::string draw = draws ? draws->drawIn(range.first) : std::string();
      const bool once = !access.loop && onceSites_->once(file, range.first);
      const std::string in = !draw.empty() ? "_in" : once ? "_once" : "";
      const std::string drawArg = draw.empty() ? "" : draw + ", ";
      if (!access.whole) {
        std::string site = siteIdExpression(access, [&](unsigned k) { return id("SITE", first + k); });
        wraps.push_back({range.first, range.second, fmt::format("(*__rl_site{}({}{}, &(", in, drawArg, site), ")))"});
        continue;
      }
      std::string offsets;
      for (const SiteInfo& s : access.sites) offsets += fmt::format(", {}u", s.offset);
      // Every field's hook on the one element address, then the copy or assignment as written.
      std::string firstId = file.literal ? std::to_string(first) + "u" : "(" + id("SITE", first) + ")";
      wraps.push_back({range.first, range.second, fmt::format("(*__rl_struct{}({}&(", in, drawArg),
                       fmt::format("), {}{}))", firstId, offsets)});
    }
    for (auto& [offset, raw] : file.loops) {
      const std::string loopId = id("LOOP", file.loopLocal.at(offset));
      if (draws && draws->drawn(offset)) {
        auto [open, close] = draws->bodyWrap(offset, loopId);
        wraps.push_back({raw.begin, raw.end, open, close});
        continue;
      }
      std::string counter = fmt::format("__rl_loop({});", loopId);
      if (prefixes && prefixes->split(offset)) {
        prefixes->addTo(offset, loopId, counter, wraps);
        continue;
      }
      if (raw.addBraces) wraps.push_back({raw.begin, raw.end, " { " + counter, " }"});
      else wraps.push_back({raw.begin, raw.end, " " + counter, ""});
    }
    for (auto& [offset, raw] : file.kernels) {
      // Which instantiation runs: its index among the kernel's, the last for any other.
      std::string instance;
      for (size_t i = 0; i + 1 < raw.instances.size(); ++i)
        instance += fmt::format("({}) ? {}u : ", raw.instances[i], i);
      if (!instance.empty()) instance = fmt::format(", {}{}u", instance, raw.instances.size() - 1);
      wraps.push_back(
          {raw.at, raw.at, fmt::format(" __rl_enter({}{});", id("KERNEL", file.kernelLocal.at(offset)), instance), ""});
    }
    for (auto& [offset, call] : file.calls)
      if (std::string mark = plain.localCallMark(call); !mark.empty())
        wraps.push_back({call.markAt, call.markAt, mark, ""});
    if (options_.plainClones) plain.addTo(file, wraps);
    return applyWraps(file.text, wraps);
  }

  std::string headerText(const FileUnion& file) const {
    std::string line = "#line 1 " + cStringLiteral(file.path) + "\n";
    if (!file.hooked()) {
      // No hooks: only the declarations of plain copies defined elsewhere, where there are some.
      std::vector<Wrap> wraps;
      if (options_.plainClones) PlainCloneText(files_, true).addTo(file, wraps);
      return line + applyWraps(file.text, wraps);
    }
    std::string text = fmt::format(
        "// Instrumented by relayout from {0}; regenerate it with `relayout instrument` rather than editing.\n"
        "#if !defined(RELAYOUT_UNIT_SOURCE)  // included by a unit relayout did not instrument: no counting\n"
        "#include \"relayout/rt_passthrough.h\"\n",
        file.relative);
    for (const char* kind : {"SITE", "LOOP", "KERNEL"})
      text += fmt::format("#define RELAYOUT_{}_BASE_{} 0\n", kind, file.key);
    text += fmt::format(
        "#elif !defined(RELAYOUT_SITE_BASE_{})\n"
        "#error \"{} was instrumented with other sources than this unit: instrument them together\"\n"
        "#endif\n",
        file.key, file.relative);
    return text + line + hookedText(file);
  }

  // What the runtime header needs to know about the unit, the bases of its shared files, then rt.cuh.
  std::string preamble(const SiteMap& map, const std::vector<const FileUnion*>& files) const {
    std::string kernels;
    for (const std::string& name : map.kernels) kernels += (kernels.empty() ? "" : ", ") + cStringLiteral(name);
    std::string text = fmt::format(
        "// Instrumented by relayout from {0}; regenerate it with `relayout instrument` rather than editing.\n"
        "#define RELAYOUT_UNIT_SOURCE {1}\n"
        "#define RELAYOUT_UNIT_SHA256 \"{2}\"\n"
        "#define RELAYOUT_NUM_SITES {3}\n"
        "#define RELAYOUT_NUM_LOOPS {4}\n"
        "#define RELAYOUT_NUM_KERNELS {5}\n"
        "#define RELAYOUT_BLOCK_PERIOD {6}\n",
        map.sourcePath, cStringLiteral(map.sourcePath), map.sourceSha256, map.sites.size(), map.loops.size(),
        map.kernels.size(), map.blockPeriod);
    for (size_t i = 0; i < files.size(); ++i) {
      if (files[i]->literal) continue;
      const InstrumentedFile& f = map.files[i];
      text += fmt::format(
          "#define RELAYOUT_SITE_BASE_{0} {1}\n#define RELAYOUT_LOOP_BASE_{0} {2}\n"
          "#define RELAYOUT_KERNEL_BASE_{0} {3}\n",
          files[i]->key, f.firstSite, f.firstLoop, f.firstKernel);
    }
    if (!kernels.empty()) text += "#define RELAYOUT_KERNEL_NAMES " + kernels + "\n";
    if (!map.sites.empty()) text += "#define RELAYOUT_SITE_INFO " + siteInfoList(map) + "\n";
    text += functionTable(map);
    if (options_.execPeriod > 1) text += fmt::format("#define RELAYOUT_EXEC_PERIOD {}\n", options_.execPeriod);
    if (options_.fullExecutions) text += fmt::format("#define RELAYOUT_FULL_EXECS {}\n", options_.fullExecutions);
    if (options_.execBudget) text += fmt::format("#define RELAYOUT_EXEC_BUDGET {}\n", options_.execBudget);
    if (options_.minBlocks > 1) text += fmt::format("#define RELAYOUT_MIN_BLOCKS {}\n", options_.minBlocks);
    if (options_.maxBlocks) text += fmt::format("#define RELAYOUT_MAX_BLOCKS {}\n", options_.maxBlocks);
    if (options_.blockFront > 1) text += fmt::format("#define RELAYOUT_BLOCK_FRONT {}\n", options_.blockFront);
    if (options_.siteWarps) text += fmt::format("#define RELAYOUT_SITE_WARPS {}\n", options_.siteWarps);
    if (drawsIterations()) text += "#define RELAYOUT_DRAW_ITERATIONS 1\n";
    else if (options_.loopPrefix)
      text += fmt::format("#define RELAYOUT_LOOP_PREFIX {}\n#define RELAYOUT_COUNTED_PREFIX {}\n", options_.loopPrefix,
                          options_.countedPrefix);
    if (options_.sampleLaunches) text += fmt::format("#define RELAYOUT_SAMPLE_LAUNCHES {}\n", options_.sampleLaunches);
    if (options_.sampleLaunches && options_.checkpointLaunches)
      text += fmt::format("#define RELAYOUT_CHECKPOINT_LAUNCHES {}\n", options_.checkpointLaunches);
    if (options_.traceCapacity)
      text += fmt::format(
          "#define RELAYOUT_TRACE_CAPACITY {}\n#define RELAYOUT_TRACE_LAUNCHES {}\n#define RELAYOUT_TRACE_DEPTH {}\n",
          options_.traceCapacity, options_.traceLaunches, options_.traceDepth);
    return text + "#include \"relayout/rt.cuh\"\n";
  }

  // What the trace writer needs of each site: struct size, offset, field index, in a helper.
  static std::string siteInfoList(const SiteMap& map) {
    std::string list;
    for (const SiteInfo& site : map.sites) {
      const StructInfo* s = map.findStruct(site.structName);
      unsigned field = 0;
      while (field < s->fields.size() && s->fields[field].name != site.field) ++field;
      bool inKernel = false;
      for (const FunctionInfo& f : map.functions) inKernel |= f.name == site.function && f.isKernel;
      list += fmt::format("{}{{{}, {}, {}, {}}}", site.id % 8 ? ", " : (site.id ? ", \\\n    " : ""), s->size,
                          site.offset, field, inKernel ? 0 : 1);
    }
    return list;
  }

  // The functions with sites, their hashes and each site's function: what a profile needs to be
  // matched to sources edited since (docs/formats.md).
  static std::string functionTable(const SiteMap& map) {
    std::vector<std::string> names, hashes, ofSite;
    std::map<std::string, size_t> index;
    for (const SiteInfo& site : map.sites) {
      auto [it, added] = index.try_emplace(site.function, names.size());
      if (added) {
        std::string hash;
        for (const FunctionInfo& f : map.functions)
          if (f.name == site.function) hash = f.hash;
        names.push_back(cStringLiteral(site.function));
        hashes.push_back(cStringLiteral(hash));
      }
      ofSite.push_back(std::to_string(it->second));
    }
    if (names.empty()) return "";
    return fmt::format(
        "#define RELAYOUT_NUM_FUNCTIONS {}\n#define RELAYOUT_FUNCTION_NAMES {}\n"
        "#define RELAYOUT_FUNCTION_HASHES {}\n#define RELAYOUT_SITE_FUNCTIONS {}\n",
        names.size(), llvm::join(names, ", "), llvm::join(hashes, ", "), llvm::join(ofSite, ", "));
  }

  std::vector<UnitFindings> units_;
  const std::vector<std::string>& given_;
  const InstrumentOptions& options_;
  std::string root_;
  std::map<std::string, FileUnion> files_;         // by absolute path
  std::optional<OnceSites> onceSites_;             // over files_, once they are complete
  std::map<std::string, size_t> mains_;            // main source -> unit
  std::map<size_t, std::set<std::string>> reads_;  // unit -> project files it reads
  std::map<std::string, StructInfo> structs_;
  std::map<std::pair<std::string, std::string>, FunctionInfo> functions_;  // (file, name)
};

}  // namespace

llvm::Expected<InstrumentResult> assembleUnits(std::vector<UnitFindings> units,
                                               const std::vector<std::string>& givenSources,
                                               const InstrumentOptions& options) {
  return Assembler(std::move(units), givenSources, options).run();
}

}  // namespace relayout
