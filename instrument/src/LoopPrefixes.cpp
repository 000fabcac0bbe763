#include "FileUnion.h"

#include <fmt/format.h>

#include <regex>

namespace relayout {

LoopPrefixes::LoopPrefixes(const FileUnion& file, const PlainCloneText& plain) : file_(file), plain_(plain) {
  for (const auto& [offset, loop] : file.loops)
    if (std::optional<Split> how = splitOf(loop)) split_.emplace(offset, *how);
}

std::optional<LoopPrefixes::Split> LoopPrefixes::splitOf(const RawLoop& loop) const {
  if ((!loop.counted && !loop.thinnable) || loop.end <= loop.begin) return std::nullopt;
  // Innermost loops only: the copy of an inner loop's body would hold its counter's hook.
  for (const auto& [offset, other] : file_.loops)
    if (&other != &loop && other.begin >= loop.begin && other.begin < loop.end) return std::nullopt;
  // In a plain iteration a hook would count unweighted; a callee's loop would take the weight.
  auto plainRuns = [&](unsigned begin, unsigned end) {
    return !plain_.copyRunsHooks(file_, begin, end) && !plain_.callsLoops(file_, begin, end);
  };
  if (!plainRuns(loop.begin, loop.end)) return std::nullopt;
  // What the copy cannot repeat as written: a jump into it or out of it, a lambda (its hooks), a
  // declaration that is one object per function, an operation every lane or thread must reach at
  // the same place.
  static const std::regex refused(R"(\bgoto\b|(^|[;{}])\s*[A-Za-z_]\w*\s*:(?!:))"
                                  R"(|\[[^\[\]]*\]\s*(\(|\{|mutable\b))"
                                  R"(|\b(static|__shared__|co_await|co_yield|co_return)\b)"
                                  R"(|\b__(syncthreads\w*|syncwarp|shfl\w*|ballot\w*|any\w*|all\w*|activemask)\b)"
                                  R"(|\b__(match\w*|reduce\w*)\b|\bsync\s*\(|\basm\b)",
                                  std::regex::ECMAScript);
  // After a break or return the trip count overstates the iterations.
  static const std::regex leaves(R"(\b(break|return)\b)", std::regex::ECMAScript);
  const std::string body = file_.text.substr(loop.begin, loop.end - loop.begin);
  if (std::regex_search(body, refused)) return std::nullopt;
  if (loop.counted && !std::regex_search(body, leaves)) return Split::counted;
  if (!loop.thinnable) return std::nullopt;
  // The plain iterations repeat the condition and increment; a hook in the increment would go
  // uncounted between hooked iterations.
  for (const auto& part : {loop.condition, loop.increment})
    if (part && !plainRuns(part->first, part->second)) return std::nullopt;
  if (loop.increment && plain_.runsHooks(file_, loop.increment->first, loop.increment->second)) return std::nullopt;
  return Split::thinned;
}

std::string LoopPrefixes::copyOf(std::pair<unsigned, unsigned> range) const {
  return plain_.copyOf(file_, range.first, range.second);
}

void LoopPrefixes::addTo(unsigned loopOffset, const std::string& id, const std::string& counter,
                         std::vector<Wrap>& wraps) const {
  if (split_.at(loopOffset) == Split::counted) addCounted(loopOffset, id, counter, wraps);
  else addThinned(loopOffset, counter, wraps);
}

void LoopPrefixes::addCounted(unsigned loopOffset, const std::string& id, const std::string& counter,
                              std::vector<Wrap>& wraps) const {
  const RawLoop& loop = file_.loops.at(loopOffset);
  const CountedHeader& header = *loop.counted;
  const std::string state = fmt::format("__rl_prefix{}", loopOffset);
  wraps.push_back({loopOffset, loop.statementEnd(), fmt::format("{{ __rl_prefix {}; ", state), " }"});
  // The rest of the loop, from this iteration on, as written: the condition is tested again (it
  // reads nothing the body writes), and a `continue` in the copy goes to its own increment.
  const std::string rest =
      fmt::format("if ({}.tail({}, (long long)({}), (long long)({}), {}, {}u)) {{{}for (; {}; {}) {{{}}}{} break; }}",
                  state, id, header.variable, header.bound, header.step, header.comparison,
                  lineDirective(file_, loopOffset), copyOf(*loop.condition), copyOf(*loop.increment),
                  lineDirective(file_, loop.begin) + copyOf({loop.begin, loop.end}), lineDirective(file_, loop.begin));
  if (loop.addBraces) wraps.push_back({loop.begin, loop.end, " { " + rest + " " + counter, " }"});
  else wraps.push_back({loop.begin, loop.end, " " + rest + " " + counter, ""});
}

// `{ __rl_thin T; for (INIT; COND; INC) { if (!T.step()) { do { PLAIN BODY } while ((INC, COND) &&
// !T.step()); if (!T.hooked()) break; } __rl_thin_scope S(T); COUNTER BODY } }`: the plain
// iterations run as a loop of their own, up to the next hooked one (a `continue` in the copy goes
// to its increment), never sharing code with the hooked body, so that the compiler cannot merge
// the two copies' arithmetic (and contract it otherwise than in the original). A hooked condition
// is weighted for the plain ones that follow it: `(T.weigh(), T.checked(COND))`.
void LoopPrefixes::addThinned(unsigned loopOffset, const std::string& counter, std::vector<Wrap>& wraps) const {
  const RawLoop& loop = file_.loops.at(loopOffset);
  const std::string state = fmt::format("__rl_thin{}", loopOffset);
  wraps.push_back({loopOffset, loop.statementEnd(), fmt::format("{{ __rl_thin {}; ", state), " }"});
  std::string next = "true";
  if (loop.condition) {
    auto [begin, end] = *loop.condition;
    next = "(" + copyOf(*loop.condition) + ")";
    if (plain_.runsHooks(file_, begin, end)) {
      wraps.push_back({begin, begin, fmt::format("({0}.weigh(), {0}.checked(", state), ""});
      wraps.push_back({end, end, "))", ""});
    }
  }
  if (loop.increment) next = fmt::format("(({}), {})", copyOf(*loop.increment), next);
  const std::string open = fmt::format(
      "if (!{0}.step()) {{ do {{{1}{2}}}{3} while ({4} && !{0}.step()); if (!{0}.hooked()) break; }} "
      "__rl_thin_scope __rl_scope{5}({0}); {6}",
      state, lineDirective(file_, loop.begin), copyOf({loop.begin, loop.end}), lineDirective(file_, loop.begin), next,
      loopOffset, counter);
  if (loop.addBraces) wraps.push_back({loop.begin, loop.end, " { " + open, " }"});
  else wraps.push_back({loop.begin, loop.end, " " + open, ""});
}

}  // namespace relayout
