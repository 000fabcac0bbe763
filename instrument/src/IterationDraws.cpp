#include "FileUnion.h"

#include <fmt/format.h>

#include <regex>

namespace relayout {

IterationDraws::IterationDraws(const FileUnion& file, const PlainCloneText& plain) : file_(file), plain_(plain) {
  for (const auto& [offset, loop] : file.loops)
    if (copyable(loop)) drawn_.insert(offset);
}

bool IterationDraws::copyable(const RawLoop& loop) const {
  if (loop.end <= loop.begin) return false;
  // Worth a copy only with hooks to draw for: an access of its own or in what it calls.
  auto access = file_.accesses.lower_bound({loop.begin, ~0u});
  const bool accesses = access != file_.accesses.end() && access->first.second <= loop.end;
  if (!accesses && !plain_.callsHooks(file_, loop.begin, loop.end)) return false;
  static const std::regex refused(
      R"(\bstatic\b|__shared__|\bgoto\b|\basm\b|__asm__|__syncthreads|__syncwarp|_sync\s*\(|\.sync\s*\()"
      R"(|\[[^\[\]]*\]\s*(\(|\{|mutable\b))"        // a lambda
      R"(|(^|[;{}])\s*[A-Za-z_]\w*\s*:(?!:))"       // a label (and `default:`)
      R"(|(^|\n)\s*#\s*(define|undef|include)\b)",  // a copy would repeat these
      std::regex::ECMAScript);
  const std::string body = file_.text.substr(loop.begin, loop.end - loop.begin);
  return !std::regex_search(body, refused);
}

std::pair<std::string, std::string> IterationDraws::bodyWrap(unsigned loopOffset, const std::string& id) const {
  const RawLoop& loop = file_.loops.at(loopOffset);
  // Named after the loop's place, so that a drawn loop in another one's body shadows nothing.
  const std::string draw = fmt::format("__rl_it{}", loopOffset);
  // Known limit (docs/results/overhead-h100.md): where both copies end by adding to the same
  // variable (`rho += m * w`), the compiler adds once after them, on a PHI of the two products, so
  // the multiply and the add are no longer fused and the copy as written rounds differently.
  std::string open =
      fmt::format("{} const unsigned {} = __rl_iteration(); if ({} & 1u) {{", loop.addBraces ? " {" : "", draw, draw);
  open += lineDirective(file_, loop.begin) + plain_.plainCopy(file_, loop.begin, loop.end, {}) +
          fmt::format("\n}} else {{ __rl_draw_scope __rl_scope{}({}); __rl_loop({});", loopOffset, draw, id) +
          lineDirective(file_, loop.begin);
  return {open, loop.addBraces ? " } }" : " }"};
}

}  // namespace relayout
