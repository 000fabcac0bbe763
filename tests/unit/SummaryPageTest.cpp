// The batch summary page: a rewrite measured but not applied is drawn as such.
#include "batch/SummaryPage.h"

#include <gtest/gtest.h>

namespace relayout::batch {
namespace {

nlohmann::json app(const std::string& name, const std::string& status, double speedup) {
  return {{"name", name},
          {"status", status},
          {"kernel_speedup", {{"median", speedup}, {"min", speedup}, {"max", speedup}}},
          {"structs", nlohmann::json::array()}};
}

TEST(SummaryPage, ARewriteNotAppliedIsDrawnAsNotApplied) {
  nlohmann::json summary = {{"format", "relayout-batch"},
                            {"applications", {app("sph", "verified", 1.56), app("nbody", "slower", 0.80)}}};
  const std::string page = renderSummaryPage(summary);
  // The applied rewrite keeps its plain label; the slower one, which the program did not get, says so
  // and is grey, not the red of a slower program.
  EXPECT_NE(page.find(">sph</text>"), std::string::npos) << page;
  EXPECT_NE(page.find(">nbody (not applied)</text>"), std::string::npos) << page;
  const size_t nbody = page.find(">nbody (not applied)</text>");
  const size_t nextBar = page.find("fill=", nbody);
  ASSERT_NE(nextBar, std::string::npos);
  EXPECT_EQ(page.substr(nextBar, 14), "fill=\"#9a9a9a\"") << page.substr(nbody, 300);
}

}  // namespace
}  // namespace relayout::batch
