// What the assembler knows of one project file over all units (Assemble.cpp), and the plain clones
// written into its instrumented text (PlainCloneText.cpp).
#pragma once

#include "Collection.h"

#include <llvm/ADT/StringRef.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace relayout {

// A C string literal holding `text`, for #line directives and the preamble's names.
std::string cStringLiteral(llvm::StringRef text);

// A project file as all units see it: the union of what each found in it, then its numbering.
struct FileUnion {
  std::string path;      // absolute
  std::string display;   // as the user gave it (a source), else relative to the working folder
  std::string relative;  // from the root
  std::string key;       // for the base macros of a shared file: the relative path as an identifier
  std::string text, sha256;
  AccessMap accesses;
  std::map<std::pair<unsigned, unsigned>, size_t> accessUnit;  // the unit that first saw each access
  std::map<unsigned, RawLoop> loops;
  std::map<unsigned, RawKernel> kernels;
  std::map<unsigned, RawFunctionText> functionTexts;  // plain clones (Collection.h)
  std::map<unsigned, RawCall> calls;
  std::map<unsigned, RawLaunch> launches;
  std::vector<unsigned> lineStarts;  // offsets where each line begins, for #line after a clone
  std::map<std::pair<unsigned, unsigned>, unsigned> siteLocal;  // first local site id of each access
  std::map<unsigned, unsigned> loopLocal, kernelLocal;
  unsigned numSites = 0;
  bool literal = false;  // the main source of one unit that nothing includes: its ids are written as numbers
  bool hooked() const { return !accesses.empty() || !loops.empty() || !kernels.empty() || !launches.empty(); }
  unsigned lineOf(unsigned offset) const {
    return unsigned(std::upper_bound(lineStarts.begin(), lineStarts.end(), offset) - lineStarts.begin());
  }
};

// Keeps diagnostics and line tables on the original lines around inserted copies: the text after
// it is on the line of `offset`.
std::string lineDirective(const FileUnion& file, unsigned offset);

// A hook's text around a range of one file: [begin, end).
struct Wrap {
  unsigned begin = 0, end = 0;
  std::string prefix, suffix;
};

// Plain clones (Collection.h) as wraps of one file's text: each device function's copy beside it,
// the entry branch of each kernel to its original body, and the pick at each launch. Without them
// (`written` false, --plain-clones=false) no function has a copy, so a split loop's rest, which
// would call copies, is refused where it calls hooked code.
class PlainCloneText {
 public:
  PlainCloneText(const std::map<std::string, FileUnion>& files, bool written) : files_(files), written_(written) {}
  void addTo(const FileUnion& file, std::vector<Wrap>& wraps) const;
  // The mark that sends a hooked call to the plain copy, where its callee's hooks would see only
  // local objects (RawCall::localObjects) and the copy runs no hooks and counts no loops; else empty.
  std::string localCallMark(const RawCall& call) const;
  // Whether a call in [begin, end) of `file` may reach hooks.
  bool callsHooks(const FileUnion& file, unsigned begin, unsigned end) const;
  // Whether the plain copy of [begin, end) (copyOf) may still run hooks, through a call that could
  // not go to a copy.
  bool copyRunsHooks(const FileUnion& file, unsigned begin, unsigned end) const;
  // Whether a call in [begin, end) may reach a loop, in the functions as hooked.
  bool callsLoops(const FileUnion& file, unsigned begin, unsigned end) const;
  // Whether [begin, end) of `file` may run hooks: an access or loop there, or a call that may.
  bool runsHooks(const FileUnion& file, unsigned begin, unsigned end) const;
  // [begin, end) of `file` as written, each call there that can going to its plain copy.
  std::string copyOf(const FileUnion& file, unsigned begin, unsigned end) const {
    return plainCopy(file, begin, end, {});
  }

 private:
  // The original text of [begin, end) with `inserts` (by offset) and the clone mark of each call
  // there that goes to a clone (Collection.h, CloneMark).
  std::string plainCopy(const FileUnion& file, unsigned begin, unsigned end,
                        std::map<unsigned, std::string> inserts) const;
  bool hasClone(const FilePlace& definition) const;
  const RawFunctionText* definitionText(const FilePlace& definition) const;
  void addBranch(const FileUnion& file, const RawFunctionText& text, std::vector<Wrap>& wraps) const;
  // What a function's own text [begin, end) holds that counts (holdsHooks, holdsLoops); reaches()
  // and callsReach() follow the calls from there.
  using OwnTest = bool (*)(const FileUnion& file, unsigned begin, unsigned end);
  static bool holdsHooks(const FileUnion& file, unsigned begin, unsigned end);
  static bool holdsLoops(const FileUnion& file, unsigned begin, unsigned end);
  bool reaches(const FilePlace& definition, OwnTest own, std::set<FilePlace>& seen) const;
  bool callsReach(const FileUnion& file, unsigned begin, unsigned end, OwnTest own, std::set<FilePlace>& seen) const;
  bool renamed(const RawCall& call) const;
  bool reachesHooks(const FilePlace& definition, std::set<FilePlace>& seen) const;
  bool copyReachesHooks(const FileUnion& file, unsigned begin, unsigned end, std::set<FilePlace>& seen) const;

  const std::map<std::string, FileUnion>& files_;  // by absolute path
  bool written_;
};

// The accesses a thread makes about once per launch (rt.cuh, __rl_site_once, whose hook classifies
// a warp's whole first round): outside any loop of their function, which is a kernel, or a device
// function that the project calls, and only outside loops of functions that are such themselves.
// A function reached from a loop (a getter in a neighbour loop, an overlap test in a sweep) keeps
// the plain hook: its first round would end at the loop's second iteration anyway, and the round's
// inline test cost broadphase's sweep about 0.05x (docs/results/overhead-h200.md).
class OnceSites {
 public:
  explicit OnceSites(const std::map<std::string, FileUnion>& files);
  // Whether an access at `offset` of `file`, outside any loop of its function, is made once.
  bool once(const FileUnion& file, unsigned offset) const;

 private:
  // The innermost function definition of `file` whose body holds `offset`, else none.
  static const RawFunctionText* enclosing(const FileUnion& file, unsigned offset);
  static bool inLoop(const FileUnion& file, unsigned offset);

  std::set<FilePlace> called_, loopCalled_;  // definitions, by place
};

// Loops drawn by iteration (rt.cuh, __rl_iteration): each innermost loop with a hook to draw for,
// in its body or in what the body calls, opens its body with one draw per iteration and warp, kept
// in force by a scope object until the iteration ends; in an iteration the warp did not draw every
// hook skips at once. A body with a label, goto or lambda is left alone.
class IterationDraws {
 public:
  IterationDraws(const FileUnion& file, const PlainCloneText& plain);
  bool drawn(unsigned loopOffset) const { return drawn_.count(loopOffset) != 0; }
  // The text that opens a drawn loop's body (its draw's scope and the loop's count) and the one
  // that closes it. `id` is the loop id's expression.
  std::pair<std::string, std::string> bodyWrap(unsigned loopOffset, const std::string& id) const;
  // The variable holding the draw of the drawn loop whose body holds `offset`, else "".
  std::string drawIn(unsigned offset) const;

 private:
  bool drawable(const RawLoop& loop) const;
  static std::string variable(unsigned loopOffset);

  const FileUnion& file_;
  const PlainCloneText& plain_;
  std::set<unsigned> drawn_;
};

// Long loops run hooked for a prefix of their iterations (rt.cuh, __rl_prefix and __rl_thin), in
// each innermost loop whose plain copy runs no hooks and whose calls reach no loop (whose weight
// would replace this one's):
// - a counted loop (CountedHeader) gets, first in its body, a test that from the prefix's end on
//   runs the rest of the loop in a plain copy of the body and leaves; the prefix's counts are
//   weighted by the trip count over the prefix;
// - another loop (RawLoop::thinnable) decides in each iteration, in its condition or first in its
//   body, whether the iteration runs hooked or the plain copy: the prefix, then fewer and fewer
//   iterations, each weighted by the iterations it stands for.
// A body with a label, goto, lambda, static or __shared__ declaration or a warp- or block-wide
// operation is left alone (the copy must behave as the original would), and a counted loop with a
// break or return too (the trip count must hold).
class LoopPrefixes {
 public:
  LoopPrefixes(const FileUnion& file, const PlainCloneText& plain);
  bool split(unsigned loopOffset) const { return split_.count(loopOffset) != 0; }
  // The wraps of a split loop: around its statement (the prefix's state), its condition where it
  // decides there, and its body (the test and the plain copy), with `counter`, the body's loop
  // count, where the body runs hooked.
  void addTo(unsigned loopOffset, const std::string& id, const std::string& counter, std::vector<Wrap>& wraps) const;

 private:
  enum class Split { counted, thinned };
  std::optional<Split> splitOf(const RawLoop& loop) const;
  void addCounted(unsigned loopOffset, const std::string& id, const std::string& counter,
                  std::vector<Wrap>& wraps) const;
  void addThinned(unsigned loopOffset, const std::string& counter, std::vector<Wrap>& wraps) const;
  // [begin, end) of the loop's file as its plain iterations run it (PlainCloneText::copyOf).
  std::string copyOf(std::pair<unsigned, unsigned> range) const;

  const FileUnion& file_;
  const PlainCloneText& plain_;
  std::map<unsigned, Split> split_;
};

}  // namespace relayout
