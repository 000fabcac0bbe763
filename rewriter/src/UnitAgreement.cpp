#include "UnitAgreement.h"

#include "SourceEdits.h"

#include "relayout/core/Files.h"

#include <llvm/Support/FileSystem.h>

#include <algorithm>
#include <iterator>
#include <optional>

namespace relayout::rw {

namespace {

// The working folder's view of a path: relative where it lies below it.
std::string displayPath(const std::string& path) {
  llvm::SmallString<256> cwd;
  if (llvm::sys::fs::current_path(cwd)) return path;
  std::string folder = resolvedPath(cwd.str());
  llvm::StringRef rest(path);
  if (rest.consume_front(folder) && rest.consume_front("/")) return rest.str();
  return path;
}

// Text quoted in a message: its first line, shortened.
std::string quote(llvm::StringRef text) {
  text = text.trim();
  llvm::StringRef line = text.take_until([](char c) { return c == '\n'; });
  bool cut = line.size() > 40 || line.size() < text.size();
  return "'" + line.take_front(40).str() + (cut ? "...'" : "'");
}

// What an edit does: "rewrites 'p[i].x' as 'p.x[i]'".
std::string describe(const Edit& edit, llvm::StringRef contents) {
  if (edit.length == 0) return "inserts " + quote(edit.text);
  std::string before = contents.substr(edit.offset, edit.length).str();
  if (edit.text.empty()) return "removes " + quote(before);
  return "rewrites " + quote(before) + " as " + quote(edit.text);
}

// Worded like instrument's error for a header two units see differently (instrument/src/Assemble.cpp).
llvm::Error unitsDisagree(const ProgramFacts& facts, const std::string& file, unsigned offset, const std::string& first,
                          const std::string& second, const std::string& detail) {
  auto contents = facts.contents.find(file);
  std::string at = contents == facts.contents.end() ? "" : position(contents->second, offset) + ":";
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 displayPath(file) + ":" + at + " the units " + first + " and " + second +
                                     " see this file differently (" + detail +
                                     "); relayout rewrites a file once for every unit that includes it, so it "
                                     "must mean the same in each (are they built with different macros or flags?)");
}

// A definition's fields as plainly as tells two of them apart.
std::string fieldList(const StructDef& def, int detail) {
  std::string out;
  for (const FieldFacts& f : def.fields) {
    if (!out.empty()) out += ", ";
    if (detail > 0) out += f.type + " ";
    out += f.name;
    if (detail > 1) out += " (" + std::to_string(f.size) + " bytes)";
  }
  return out.empty() ? "no fields" : out;
}

std::string defDifference(const StructDef& a, const std::string& unitA, const StructDef& b, const std::string& unitB) {
  if (a.spelled != b.spelled)
    return "'" + a.name + "' is named '" + a.spelled + "' in " + unitA + " and '" + b.spelled + "' in " + unitB;
  for (int detail = 0; detail < 3; ++detail)
    if (std::string fa = fieldList(a, detail), fb = fieldList(b, detail); fa != fb || detail == 2)
      return "'" + a.name + "' has fields " + fa + " in " + unitA + " and " + fb + " in " + unitB;
  return "";
}

// Two units' definitions of a planned struct at one place must be the same.
llvm::Error checkDefinitions(const Plan& plan, const ProgramFacts& facts, const std::vector<UnitFacts>& units,
                             const std::vector<std::string>& sources) {
  for (const StructPlan& s : plan.structs) {
    if (!splitsFields(s.layout)) continue;  // nothing is generated for it
    std::map<std::pair<std::string, unsigned>, std::pair<size_t, const StructDef*>> first;  // place -> unit, def
    for (size_t u = 0; u < units.size(); ++u)
      for (size_t d = units[u].firstDef; d < units[u].endDef; ++d) {
        const StructDef& def = facts.defs[d];
        if (def.name != s.name || def.file.empty()) continue;
        auto [it, added] = first.try_emplace({def.file, def.insertOffset}, u, &def);
        const auto& [knownUnit, known] = it->second;
        if (added || (known->spelled == def.spelled && known->fields == def.fields)) continue;
        return unitsDisagree(facts, def.file, def.nameOffset, sources[knownUnit], sources[u],
                             defDifference(*known, sources[knownUnit], def, sources[u]));
      }
  }
  return llvm::Error::success();
}

// Whether two units' edits, `a` sorted before `b`, change the same text: they overlap or touch
// (an insertion at either end of a replacement changes the token too: `p` -> `p_x` and `.x` after
// `p` give `p_x.x`). Insertions whose order does not matter (restrict locals) are the exception.
bool touch(const Edit& a, const Edit& b) {
  if (a.file != b.file) return false;
  if (a.length == 0 && b.length == 0 && a.offset == b.offset) return !(a.anyOrder && b.anyOrder);
  return b.offset <= a.offset + a.length;
}

// Two units' edits for one struct: those both recorded are one edit; of the rest, one of each unit
// touching the same text means they rewrite it two ways. Alternatives both units record (the
// split and kept forms of an access, the two sides of a conditional copy) cancel out, and edits in
// code only one unit sees (an `#if` branch) touch nothing of the other's.
llvm::Error checkEdits(const ProgramFacts& facts, const std::vector<Edit>& a, const std::vector<Edit>& b,
                       const std::string& unitA, const std::string& unitB) {
  std::vector<Edit> onlyA, onlyB;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(onlyA));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(onlyB));
  if (onlyA.empty() || onlyB.empty()) return llvm::Error::success();
  std::vector<std::pair<const Edit*, bool>> all;  // edit, whether unit B's
  for (const Edit& e : onlyA) all.push_back({&e, false});
  for (const Edit& e : onlyB) all.push_back({&e, true});
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return *x.first < *y.first; });
  for (size_t i = 0; i < all.size(); ++i) {
    const Edit& e = *all[i].first;
    for (size_t j = i + 1;
         j < all.size() && all[j].first->file == e.file && all[j].first->offset <= e.offset + e.length; ++j) {
      if (all[j].second == all[i].second || !touch(e, *all[j].first)) continue;
      const Edit& ofA = all[i].second ? *all[j].first : e;
      const Edit& ofB = all[i].second ? e : *all[j].first;
      const std::string& contents = facts.contents.at(e.file);
      return unitsDisagree(facts, e.file, e.offset, unitA, unitB,
                           unitA + " " + describe(ofA, contents) + " and " + unitB + " " + describe(ofB, contents));
    }
  }
  return llvm::Error::success();
}

}  // namespace

UnitRecorder::UnitRecorder(const ProgramFacts& facts) : defs_(facts.defs.size()) {
  for (const auto& [key, e] : facts.entities)
    counts_[key] = Counts{e.edits.size(), e.forms.size(), e.conditionals.size(), e.clones.size()};
}

UnitFacts UnitRecorder::added(const ProgramFacts& facts) const {
  UnitFacts unit;
  unit.firstDef = defs_;
  unit.endDef = facts.defs.size();
  for (const auto& [key, e] : facts.entities) {
    auto known = counts_.find(key);
    Counts from = known == counts_.end() ? Counts{} : known->second;
    std::vector<Edit>& out = unit.edits[e.structName];
    out.insert(out.end(), e.edits.begin() + from.edits, e.edits.end());
    for (auto f = e.forms.begin() + from.forms; f != e.forms.end(); ++f) {
      out.insert(out.end(), f->split.begin(), f->split.end());
      out.insert(out.end(), f->kept.begin(), f->kept.end());
    }
    for (auto c = e.conditionals.begin() + from.conditionals; c != e.conditionals.end(); ++c)
      out.insert(out.end(), c->edits.begin(), c->edits.end());
    // A template's overload is one insertion; its text stands for everything the unit edits in it.
    for (auto c = e.clones.begin() + from.clones; c != e.clones.end(); ++c) {
      auto text = composeText(*c, [](const std::string&) { return true; });
      out.push_back(Edit{c->file, c->at, 0, 0, c->header + text.value_or(c->slice)});
    }
  }
  for (auto& [name, edits] : unit.edits) {
    std::sort(edits.begin(), edits.end());
    edits.erase(std::unique(edits.begin(), edits.end()), edits.end());
  }
  return unit;
}

llvm::Error checkUnitsAgree(const Plan& plan, const ProgramFacts& facts, const std::vector<UnitFacts>& units,
                            const std::vector<std::string>& sources) {
  if (llvm::Error err = checkDefinitions(plan, facts, units, sources)) return err;
  static const std::vector<Edit> none;
  for (size_t u = 0; u < units.size(); ++u)
    for (size_t v = u + 1; v < units.size(); ++v)
      for (const auto& [name, edits] : units[u].edits) {
        auto other = units[v].edits.find(name);
        if (llvm::Error err =
                checkEdits(facts, edits, other == units[v].edits.end() ? none : other->second, sources[u], sources[v]))
          return err;
      }
  return llvm::Error::success();
}

}  // namespace relayout::rw
