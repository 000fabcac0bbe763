#include "FileUnion.h"

#include <fmt/format.h>

#include <regex>

namespace relayout {

LoopPrefixes::LoopPrefixes(const FileUnion& file, const PlainCloneText& plain) : file_(file), plain_(plain) {
  for (const auto& [offset, loop] : file.loops)
    if (splittable(loop)) split_.insert(offset);
}

bool LoopPrefixes::splittable(const RawLoop& loop) const {
  if (!loop.counted || loop.end <= loop.begin) return false;
  // Innermost loops only: the copy of an inner loop's body would hold its counter's hook.
  for (const auto& [offset, other] : file_.loops)
    if (&other != &loop && other.begin >= loop.begin && other.begin < loop.end) return false;
  // A call that reaches hooks would run plain in the copy, and its accesses there go uncounted.
  if (plain_.callsHooks(file_, loop.begin, loop.end)) return false;
  // What the copy cannot repeat as written: a jump into it or out of it, a lambda (its hooks), a
  // declaration that is one object per function, an operation every lane or thread must reach at
  // the same place; and a break or return, after which the trip count overstates the iterations.
  static const std::regex refused(R"(\bgoto\b|(^|[;{}])\s*[A-Za-z_]\w*\s*:(?!:))"
                                  R"(|\[[^\[\]]*\]\s*(\(|\{|mutable\b))"
                                  R"(|\b(break|return|static|__shared__|co_await|co_yield|co_return)\b)"
                                  R"(|\b__(syncthreads\w*|syncwarp|shfl\w*|ballot\w*|any\w*|all\w*|activemask)\b)"
                                  R"(|\b__(match\w*|reduce\w*)\b|\bsync\s*\(|\basm\b)",
                                  std::regex::ECMAScript);
  const std::string body = file_.text.substr(loop.begin, loop.end - loop.begin);
  return !std::regex_search(body, refused);
}

void LoopPrefixes::addTo(unsigned loopOffset, const std::string& id, const std::string& counter,
                         std::vector<Wrap>& wraps) const {
  const RawLoop& loop = file_.loops.at(loopOffset);
  const CountedHeader& header = *loop.counted;
  const std::string state = fmt::format("__rl_prefix{}", loopOffset);
  wraps.push_back({loopOffset, header.statementEnd, fmt::format("{{ __rl_prefix {}; ", state), " }"});
  // The rest of the loop, from this iteration on, as written: the condition is tested again (it
  // reads nothing the body writes), and a `continue` in the copy goes to its own increment.
  const std::string rest = fmt::format(
      "if ({}.tail({}, (long long)({}), (long long)({}), {}, {}u)) {{{}for (; {}; {}) {{{}}}{} break; }}", state, id,
      header.variable, header.bound, header.step, header.comparison, lineDirective(file_, loopOffset),
      header.condition, header.increment,
      lineDirective(file_, loop.begin) + file_.text.substr(loop.begin, loop.end - loop.begin),
      lineDirective(file_, loop.begin));
  if (loop.addBraces) wraps.push_back({loop.begin, loop.end, " { " + rest + " " + counter, " }"});
  else wraps.push_back({loop.begin, loop.end, " " + rest + " " + counter, ""});
}

}  // namespace relayout
