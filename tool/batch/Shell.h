// Writing sh command lines: relayout batch writes scripts that run where relayout is not.
#pragma once

#include <string>

namespace relayout::batch {

// One word for sh, whatever it holds.
inline std::string shellQuoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace relayout::batch
