#include "FileUnion.h"

#include <fmt/format.h>

#include <regex>

namespace relayout {

IterationDraws::IterationDraws(const FileUnion& file, const PlainCloneText& plain) : file_(file), plain_(plain) {
  for (const auto& [offset, loop] : file.loops)
    if (drawable(loop)) drawn_.insert(offset);
}

bool IterationDraws::drawable(const RawLoop& loop) const {
  if (loop.end <= loop.begin) return false;
  // Innermost loops only, so that each access has one loop's draw to test: an outer loop's body
  // keeps per-execution draws.
  for (const auto& [offset, other] : file_.loops)
    if (&other != &loop && other.begin >= loop.begin && other.begin < loop.end) return false;
  // Worth a draw only with hooks to draw for: an access of its own or in what it calls.
  auto access = file_.accesses.lower_bound({loop.begin, ~0u});
  const bool accesses = access != file_.accesses.end() && access->first.second <= loop.end;
  if (!accesses && !plain_.callsHooks(file_, loop.begin, loop.end)) return false;
  // The draw's scope object opens the body: a jump into the body past it would not compile; and the
  // body's hooks name the draw's variable, which a lambda in it may not capture.
  static const std::regex refused(R"(\bgoto\b|(^|[;{}])\s*[A-Za-z_]\w*\s*:(?!:))"
                                  R"(|\[[^\[\]]*\]\s*(\(|\{|mutable\b))",
                                  std::regex::ECMAScript);
  const std::string body = file_.text.substr(loop.begin, loop.end - loop.begin);
  return !std::regex_search(body, refused);
}

std::string IterationDraws::drawIn(unsigned offset) const {
  for (unsigned loopOffset : drawn_) {
    const RawLoop& loop = file_.loops.at(loopOffset);
    if (offset >= loop.begin && offset < loop.end) return variable(loopOffset);
  }
  return "";
}

std::string IterationDraws::variable(unsigned loopOffset) { return fmt::format("__rl_draw{}", loopOffset); }

std::pair<std::string, std::string> IterationDraws::bodyWrap(unsigned loopOffset, const std::string& id) const {
  const RawLoop& loop = file_.loops.at(loopOffset);
  // One body, hooked: the iteration's draw in a variable for the body's own hooks (a register
  // test each) and in force for the hooks of what it calls (a shared load each); all of them skip
  // at once in an iteration the warp did not draw. Nothing is copied, so the compiler sees the
  // user's arithmetic once, as written.
  const std::string draw = variable(loopOffset);
  // The draw is put in force only for a body that calls hooked code: two shared stores an iteration.
  const std::string scope = plain_.callsHooks(file_, loop.begin, loop.end)
                                ? fmt::format(" __rl_draw_scope __rl_scope{}({});", loopOffset, draw)
                                : "";
  std::string open = fmt::format("{} const unsigned {} = __rl_iteration({});{} __rl_loop_in({}, {});",
                                 loop.addBraces ? " {" : "", draw, id, scope, draw, id);
  return {open, loop.addBraces ? " }" : ""};
}

}  // namespace relayout
