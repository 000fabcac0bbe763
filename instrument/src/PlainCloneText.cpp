#include "FileUnion.h"

#include <fmt/format.h>

#include <set>

namespace relayout {

namespace {

// The one spelling of each mark (Collection.h, CloneMark), in a copy's declaration or its call.
std::string cloneMarkText(CloneMark mark, bool call) {
  switch (mark) {
    case CloneMark::renamed:
      return "__rl_plain";
    case CloneMark::tagged:
      return call ? "__rl_plain_tag{}" : "__rl_plain_tag";
    case CloneMark::taggedBeforeMore:
      return call ? "__rl_plain_tag{}, " : "__rl_plain_tag, ";
  }
  return "";
}

}  // namespace

const RawFunctionText* PlainCloneText::definitionText(const FilePlace& definition) const {
  auto file = files_.find(definition.file);
  if (definition.file.empty() || file == files_.end()) return nullptr;
  auto text = file->second.functionTexts.find(definition.offset);
  return text != file->second.functionTexts.end() && text->second.definition ? &text->second : nullptr;
}

// A definition has a copy where copies are written, it can be renamed and its file is instrumented.
bool PlainCloneText::hasClone(const FilePlace& definition) const {
  const RawFunctionText* text = definitionText(definition);
  return written_ && text && text->cloneable && files_.at(definition.file).hooked();
}

// Whether a function's hooked text holds what `own` looks for, or calls a function that does. A
// callee relayout did not see is taken to; one in a file left out of the instrumented tree (it has
// no hook, and its loops no counter) is not.
bool PlainCloneText::reaches(const FilePlace& definition, OwnTest own, std::set<FilePlace>& seen) const {
  if (!definition.file.empty() && !files_.count(definition.file)) return false;
  const RawFunctionText* text = definitionText(definition);
  if (!text) return true;
  if (!seen.insert(definition).second) return false;
  const FileUnion& file = files_.at(definition.file);
  return own(file, text->begin, text->end) || callsReach(file, text->begin, text->end, own, seen);
}

bool PlainCloneText::callsReach(const FileUnion& file, unsigned begin, unsigned end, OwnTest own,
                                std::set<FilePlace>& seen) const {
  for (auto it = file.calls.lower_bound(begin); it != file.calls.end() && it->first < end; ++it)
    for (const FilePlace& callee : it->second.callees)
      if (reaches(callee, own, seen)) return true;
  return false;
}

bool PlainCloneText::holdsLoops(const FileUnion& file, unsigned begin, unsigned end) {
  auto loop = file.loops.lower_bound(begin);
  return loop != file.loops.end() && loop->first < end;
}

// A hook of its own: an access or a loop's counter.
bool PlainCloneText::holdsHooks(const FileUnion& file, unsigned begin, unsigned end) {
  auto access = file.accesses.lower_bound({begin, ~0u});
  return (access != file.accesses.end() && access->first.first < end) || holdsLoops(file, begin, end);
}

bool PlainCloneText::runsHooks(const FileUnion& file, unsigned begin, unsigned end) const {
  std::set<FilePlace> seen;
  return holdsHooks(file, begin, end) || callsReach(file, begin, end, holdsHooks, seen);
}

bool PlainCloneText::callsHooks(const FileUnion& file, unsigned begin, unsigned end) const {
  std::set<FilePlace> seen;
  return callsReach(file, begin, end, holdsHooks, seen);
}

bool PlainCloneText::callsLoops(const FileUnion& file, unsigned begin, unsigned end) const {
  std::set<FilePlace> seen;
  return callsReach(file, begin, end, holdsLoops, seen);
}

bool PlainCloneText::renamed(const RawCall& call) const {
  return call.renamable &&
         std::all_of(call.callees.begin(), call.callees.end(), [&](const FilePlace& c) { return hasClone(c); });
}

std::string PlainCloneText::localCallMark(const RawCall& call) const {
  if (!call.localObjects || !renamed(call)) return "";
  // The callee's own body holds no loop (reachesOnlyLocalObjects); what it calls must reach no hook
  // (so neither do their copies) and no loop.
  for (const FilePlace& callee : call.callees) {
    const FileUnion& file = files_.at(callee.file);
    const RawFunctionText& text = file.functionTexts.at(callee.offset);
    if (callsHooks(file, text.begin, text.end) || callsLoops(file, text.begin, text.end)) return "";
  }
  return cloneMarkText(call.mark, true);
}

// Whether a plain copy of the function still runs hooked code: a call in it, or in the copies it
// calls, that could not be renamed (a constructor, an operator, a function without a copy).
bool PlainCloneText::reachesHooks(const FilePlace& definition, std::set<FilePlace>& seen) const {
  if (!seen.insert(definition).second) return false;
  const FileUnion& file = files_.at(definition.file);
  const RawFunctionText& text = file.functionTexts.at(definition.offset);
  return copyReachesHooks(file, text.begin, text.end, seen);
}

bool PlainCloneText::copyReachesHooks(const FileUnion& file, unsigned begin, unsigned end,
                                      std::set<FilePlace>& seen) const {
  for (auto it = file.calls.lower_bound(begin); it != file.calls.end() && it->first < end; ++it) {
    const bool copy = renamed(it->second);
    for (const FilePlace& callee : it->second.callees) {
      std::set<FilePlace> hooked;
      if (copy ? reachesHooks(callee, seen) : reaches(callee, holdsHooks, hooked)) return true;
    }
  }
  return false;
}

bool PlainCloneText::copyRunsHooks(const FileUnion& file, unsigned begin, unsigned end) const {
  std::set<FilePlace> seen;
  return copyReachesHooks(file, begin, end, seen);
}

std::string PlainCloneText::plainCopy(const FileUnion& file, unsigned begin, unsigned end,
                                      std::map<unsigned, std::string> inserts) const {
  for (auto it = file.calls.lower_bound(begin); it != file.calls.end() && it->first < end; ++it)
    if (renamed(it->second)) inserts[it->second.markAt] += cloneMarkText(it->second.mark, true);
  std::string out;
  unsigned done = begin;
  for (auto& [at, text] : inserts) {
    if (at < begin || at > end) continue;
    out.append(file.text, done, at - done);
    out += text;
    done = at;
  }
  return out.append(file.text, done, end - done);
}

std::string lineDirective(const FileUnion& file, unsigned offset) {
  return fmt::format("\n#line {} {}\n", file.lineOf(offset), cStringLiteral(file.path));
}

// The branch of a kernel's unsampled blocks (Collection.h, RawFunctionText::branchAt), with the
// declarations of static __shared__ variables moved up to it: in both paths, their statements
// where they were written are left out (`#if 0`), and one copy precedes the branch.
void PlainCloneText::addBranch(const FileUnion& file, const RawFunctionText& text, std::vector<Wrap>& wraps) const {
  const unsigned at = *text.branchAt;
  std::string moved;
  std::map<unsigned, std::string> leftOut;
  for (auto [begin, end] : text.hoisted) {
    moved += lineDirective(file, begin) + file.text.substr(begin, end - begin);
    leftOut[begin] = "\n#if 0  // moved up by relayout\n";
    leftOut[end] = "\n#endif" + lineDirective(file, end);
    wraps.push_back({begin, end, leftOut[begin], leftOut[end]});
  }
  wraps.push_back({at, at,
                   moved + " if (__rl_plain_block()) {" + lineDirective(file, at) +
                       plainCopy(file, at, text.bodyEnd - 1, leftOut) + "\n return; }" + lineDirective(file, at),
                   ""});
}

void PlainCloneText::addTo(const FileUnion& file, std::vector<Wrap>& wraps) const {
  for (auto& [begin, text] : file.functionTexts) {
    if (text.definition && text.kernel)  // the hooked kernel's read-only parameters, in place
      for (auto [param, addConst] : text.gridConstants)
        wraps.push_back({param, param, addConst ? "__rl_grid_constant const " : "__rl_grid_constant ", ""});
    if (!hasClone(text.definitionPlace)) continue;
    std::map<unsigned, std::string> inserts{{text.markAt, cloneMarkText(text.mark, false)}};
    std::set<FilePlace> seen;
    if (text.definition && text.kernel && reachesHooks(text.definitionPlace, seen))
      inserts[text.bodyBegin + 1] = " __rl_plain_enter();";
    wraps.push_back({text.end, text.end,
                     lineDirective(file, text.begin) + plainCopy(file, text.begin, text.end, inserts) +
                         lineDirective(file, text.end),
                     ""});
    // The blocks of a classifying launch that do not classify run the original body, from the
    // branch on, where nothing before it runs a hook.
    if (text.definition && text.kernel && text.branchAt && file.kernels.count(text.bodyBegin + 1) &&
        !runsHooks(file, text.bodyBegin + 1, *text.branchAt))
      addBranch(file, text, wraps);
  }
  for (auto& [begin, launch] : file.launches) {
    auto kernelFile = files_.find(launch.kernelEntry.file);
    if (!hasClone(launch.kernel) || kernelFile == files_.end() ||
        !kernelFile->second.kernelLocal.count(launch.kernelEntry.offset))
      continue;
    const FileUnion& owner = kernelFile->second;
    const unsigned local = owner.kernelLocal.at(launch.kernelEntry.offset);
    if (owner.literal && &owner != &file) continue;  // its id is a number only its own file knows
    std::string kernelId =
        owner.literal ? std::to_string(local) : fmt::format("RELAYOUT_KERNEL_BASE_{} + {}", owner.key, local);
    std::string plain = file.text.substr(launch.calleeBegin, launch.calleeEnd - launch.calleeBegin);
    plain.insert(launch.nameAt + launch.nameLength - launch.calleeBegin, "__rl_plain");
    // A kernel that reaches no hook classifies nothing: every launch of it may run the copy.
    std::set<FilePlace> seen;
    const char* pick = reaches(launch.kernel, holdsHooks, seen) ? "__rl_pick" : "__rl_pick_plain";
    wraps.push_back({launch.calleeBegin, launch.calleeEnd, fmt::format("{}({}, ", pick, kernelId),
                     launch.templateArguments + ", " + plain + launch.templateArguments + ")"});
    wraps.push_back({launch.gridBegin, launch.gridEnd, "__rl_grid(", ")"});
  }
}

}  // namespace relayout
