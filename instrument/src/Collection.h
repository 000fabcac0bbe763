// What the walk of one translation unit finds, before any id is given: per project file, the
// accesses, loops and kernel entries at their byte offsets. Ids are given afterwards over all units
// together (Assemble.cpp), so that a header included by several units is numbered once, in source
// order, and instrumented once.
#pragma once

#include "relayout/core/SiteMap.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace relayout {

// A place in a project file: its absolute path and a byte offset.
struct FilePlace {
  std::string file;
  unsigned offset = 0;
  auto operator<=>(const FilePlace&) const = default;
};

// One hooked expression: a field access (one site) or a whole element copied or assigned (one
// site per field, hooked on the element's address with each field's offset).
struct RawAccess {
  unsigned begin = 0, end = 0;  // [begin, end) in the file
  bool whole = false;
  std::vector<SiteInfo> sites;  // ids unset; `loop` unset (see loop below); location set
  // A field access in a function template whose instantiations reach different structs or fields
  // (`e.src` with `const EdgeType& e`) has one site per struct and field; for each, the conditions
  // on the template's arguments of the instantiations it stands for (`__rl_same<EdgeType,
  // ::Edge>::value`), one of which selects it. Empty outside function templates.
  std::vector<std::vector<std::string>> instances;  // parallel to sites when not empty
  std::optional<FilePlace> loop;                    // the innermost enclosing loop, by its place
};

// A counted `for` loop's header, as written (CountedLoops.cpp): `for (INIT; VAR OP BOUND; INC)`
// with VAR an integer the body leaves alone, and BOUND and the step invariant in the loop, so that
// its trip count is known when it starts. Text in the loop's file; the condition and increment,
// which the loop's plain rest repeats, are RawLoop's.
struct CountedHeader {
  std::string variable, bound, step;  // step: a signed expression, `1` for `++VAR`
  unsigned comparison = 0;            // 0 <, 1 <=, 2 >, 3 >= (VAR on the left)
  bool operator==(const CountedHeader&) const = default;
};

// A loop whose body starts with a counter: `{ __rl_loop(ID);` inside existing braces, or braces
// added around a body written without them.
struct RawLoop {
  LoopInfo info;  // id and parent unset
  std::optional<FilePlace> parent;
  unsigned begin = 0, end = 0;  // where the counter goes, and where added braces close
  bool addBraces = false;
  // A counted loop's header, where every walk of the loop (each template instantiation) found the
  // same one; else none.
  std::optional<CountedHeader> counted;
  bool walked = false;  // whether a walk has set `counted` and `thinnable` yet
  // Whether the loop can be thinned (LoopPrefixes): a `for` or `while` loop with no attribute
  // before it and no variable declared in its condition, in every walk.
  bool thinnable = false;
  // Its condition and a `for` loop's increment, [begin, end) in the loop's file, which a thinned
  // loop's plain iterations repeat; none where not written.
  std::optional<std::pair<unsigned, unsigned>> condition, increment;
  // Past the loop's last character (its body's `}` or `;`), for the statement's own braces.
  unsigned statementEnd() const { return addBraces ? end : end + 1; }
};

struct RawKernel {
  std::string name;
  unsigned at = 0;  // just after the body's `{`
  // A kernel template's instantiations, by their conditions on the template's arguments (as for
  // RawAccess::instances): the hook passes the runtime the index of the one that runs.
  std::vector<std::string> instances;
};

// Two sites of one hooked expression that count the same thing: struct, field and bytes.
inline bool sameSite(const SiteInfo& a, const SiteInfo& b) {
  return a.structName == b.structName && a.field == b.field && a.member == b.member && a.offset == b.offset &&
         a.size == b.size;
}

// Adds each condition to `list` once, in order.
inline void addConditions(std::vector<std::string>& list, const std::vector<std::string>& conditions) {
  for (const std::string& c : conditions)
    if (std::find(list.begin(), list.end(), c) == list.end()) list.push_back(c);
}

// Whether `raw` is a template's field access, with the instantiations of each of its sites.
inline bool hasInstances(const RawAccess& raw) {
  return !raw.whole && !raw.sites.empty() && raw.instances.size() == raw.sites.size();
}

// Records that the instantiations of `conditions` reach `site` through such an access: they join
// a site that counts the same thing, else the site is added.
inline void addInstanceSite(RawAccess& raw, const SiteInfo& site, const std::vector<std::string>& conditions) {
  for (size_t i = 0; i < raw.sites.size(); ++i) {
    if (!sameSite(raw.sites[i], site)) continue;
    if (raw.sites[i].access != site.access) raw.sites[i].access = AccessKind::ReadWrite;
    addConditions(raw.instances[i], conditions);
    return;
  }
  raw.sites.push_back(site);
  raw.instances.push_back(conditions);
}

// Accesses in source order; of two that start together the outer first (`(*q).x` before `*q`).
struct OuterFirst {
  bool operator()(const std::pair<unsigned, unsigned>& a, const std::pair<unsigned, unsigned>& b) const {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  }
};
using AccessMap = std::map<std::pair<unsigned, unsigned>, RawAccess, OuterFirst>;

// Plain clones (runtime/README.md): each device function written in a project file gets a copy
// of its original text under the name NAME__rl_plain, beside it, whose calls to other cloned
// functions are renamed the same way; launches that classify nothing run the kernels' clones, and
// the unsampled blocks of a launch that classifies branch at entry to the kernel's original body.
// A call operator has no name to change: its copy takes a first parameter of type
// __rl_plain_tag instead, and the copies' calls to it pass `__rl_plain_tag{}`.
// How a copy, and a copy's call, is told apart from the original: the mark written at `markAt`.
enum class CloneMark {
  renamed,           // `__rl_plain` after the name
  tagged,            // `__rl_plain_tag` (a call: `__rl_plain_tag{}`) after the `(`, alone
  taggedBeforeMore,  // the same followed by `, `: the parameters or arguments written follow
};

// A function's text as written: a definition (cloned after its `}`) or a declaration (cloned after
// its `;`, so that calls before the definition and out-of-line members find the clone).
struct RawFunctionText {
  unsigned begin = 0, end = 0;  // [begin, end): template header and specifiers included
  unsigned markAt = 0;          // after the name, or after the parameter list's `(`
  CloneMark mark = CloneMark::renamed;
  bool definition = false;
  bool cloneable = false;  // a definition that gets a copy (not a constructor, other operator, virtual...)
  bool kernel = false;
  unsigned bodyBegin = 0, bodyEnd = 0;  // a definition's braces: [`{`, `}` + 1)
  // Where the blocks of a kernel that do not classify branch to a copy of the rest of its body.
  // A copy would allocate the body's static __shared__ variables a second time, so both paths
  // share them: the declarations that name nothing local are moved up to the branch (`hoisted`,
  // their statements' ranges), and the branch follows the last of the others, which must then be
  // statements at the top of the body. Unset where that cannot be (a label, a nested declaration
  // that names a local, a name declared twice). PlainCloneText also refuses a branch after code
  // that runs hooks.
  std::optional<unsigned> branchAt;
  std::vector<std::pair<unsigned, unsigned>> hoisted;
  FilePlace definitionPlace;  // the definition's (file, begin): what calls and launches name
  // A kernel's read-only class-type parameters (GridConstant.cpp), which its hooked version takes
  // `__rl_grid_constant`: each declaration's offset, and whether `const` must be added too.
  std::map<unsigned, bool> gridConstants;
};

// A call in device code, by the offset of the callee's name (a call operator's: of its `(`).
struct RawCall {
  unsigned markAt = 0;  // where a copy's call is marked: after the name, or after the `(`
  CloneMark mark = CloneMark::renamed;
  // Renamable: a plain name or member name spelled in the file, found without a using-declaration
  // (or a call operator's parentheses), naming a function that has a copy; a clone's call is
  // marked only when every unit and instantiation calls there a function that has a clone.
  bool renamable = false;
  // The callee's hooks can see only objects local to the caller or to itself, so they classify
  // nothing (the classifier takes only global addresses): in every unit and instantiation, its
  // body reaches no memory but its locals and the local objects this call passes by reference,
  // and holds no loop. The hooked code then calls the plain copy too, where the copy itself runs
  // no hooks (PlainCloneText::localCallMark): the hooks would make those objects addressable and
  // change how their arithmetic compiles (docs/results/overhead-h200.md, portfolio).
  bool localObjects = false;
  // Their definitions' places; an empty FilePlace: one without a clone. A function outside the
  // project (a library functor, a builtin) is not listed: it has no hooks, but the call is not
  // renamable.
  std::set<FilePlace> callees;
};

// A host launch `K<<<grid, ...>>>(args)` of a kernel of the unit that has a clone.
struct RawLaunch {
  unsigned calleeBegin = 0, calleeEnd = 0;  // the callee as written: `K`, `ns::K<T>`
  unsigned nameAt = 0, nameLength = 0;
  unsigned gridBegin = 0, gridEnd = 0;  // the first launch argument
  std::string templateArguments;        // deduced ones, spelled out: `<InState>`
  FilePlace kernel;                     // the kernel's definition
  FilePlace kernelEntry;                // where its __rl_enter goes (RawKernel's file and offset)
};

struct FileFindings {
  std::string path;  // absolute
  AccessMap accesses;
  std::map<unsigned, RawLoop> loops;  // by the loop's offset
  std::map<unsigned, RawKernel> kernels;
  std::map<unsigned, RawFunctionText> functionTexts;  // by begin
  std::map<unsigned, RawCall> calls;                  // by the callee name's offset
  std::map<unsigned, RawLaunch> launches;             // by the callee's begin
  bool empty() const { return accesses.empty() && loops.empty() && kernels.empty() && launches.empty(); }
};

struct UnitFindings {
  std::string mainFile;  // absolute
  std::string mainSha256;
  std::map<std::string, FileFindings> files;  // every project file the unit reads, by absolute path
  std::map<std::string, std::string> texts;   // their original bytes
  std::map<std::string, StructInfo> structs;
  std::vector<FunctionInfo> functions;  // location.file absolute; kernels: this unit's
};

}  // namespace relayout
