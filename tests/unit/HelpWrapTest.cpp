// --help wrapped to the terminal (tool/commands/HelpWrap.h).
#include "commands/HelpWrap.h"

#include <gtest/gtest.h>

#include <sstream>

namespace relayout {
namespace {

size_t longestLine(const std::string& text) {
  std::istringstream in(text);
  size_t longest = 0;
  for (std::string line; std::getline(in, line);) longest = std::max(longest, line.size());
  return longest;
}

TEST(HelpWrap, AnOptionsDescriptionContinuesUnderItsStart) {
  const std::string option =
      "  --candidates=<K>   - Rewrites to time against the original: the analysis's pick first, then the other "
      "layouts it weighed, cheapest predicted cost first\n";
  const std::string wrapped = wrapHelpText(option, 60);
  EXPECT_LE(longestLine(wrapped), 60u) << wrapped;
  EXPECT_EQ(wrapped.rfind("  --candidates=<K>   - Rewrites to time", 0), 0u) << wrapped;
  // Every continuation starts in the description's column (after "   - ").
  std::istringstream in(wrapped);
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) EXPECT_EQ(line.rfind(std::string(23, ' '), 0), 0u) << wrapped;
  // No word is lost or split.
  std::string words;
  for (char c : wrapped) words += c == '\n' ? ' ' : c;
  EXPECT_NE(words.find("cheapest predicted cost first"), std::string::npos);
}

TEST(HelpWrap, ShortLinesStayAndLongWordsStayWhole) {
  EXPECT_EQ(wrapHelpText("USAGE: relayout rewrite [options]\n\n", 40), "USAGE: relayout rewrite [options]\n\n");
  const std::string path(70, 'x');
  const std::string wrapped = wrapHelpText("see " + path + " for more\n", 50);
  EXPECT_EQ(wrapped, "see\n" + path + "\nfor more\n");
}

}  // namespace
}  // namespace relayout
