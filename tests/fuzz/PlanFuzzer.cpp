// libFuzzer target: the plan reader (Plan::fromJson on parseJson's document), the writer reading
// back what it wrote, and the check `rewrite --sites` makes of a plan against an edited source.
#include "FuzzSupport.h"

#include "relayout/core/Files.h"
#include "relayout/core/Plan.h"

using namespace relayout;

static constexpr llvm::StringLiteral kPath = "fuzz.plan.json";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  auto doc = parseJson(text, kPath);
  if (!doc) return fuzz::expectFileError(doc.takeError(), kPath), 0;
  auto plan = Plan::fromJson(*doc, kPath);
  if (!plan) return fuzz::expectFileError(plan.takeError(), kPath), 0;

  const std::string written = plan->toJson().dump(1);
  auto writtenDoc = parseJson(written, "written.plan.json");
  if (!writtenDoc) fuzz::broken("the plan writer's text is not JSON: " + llvm::toString(writtenDoc.takeError()));
  auto reread = Plan::fromJson(*writtenDoc, "written.plan.json");
  if (!reread) fuzz::broken("the plan writer's text does not read back: " + llvm::toString(reread.takeError()));
  if (reread->toJson().dump(1) != written) fuzz::broken("the plan changed when written and read back");

  // An edited version of the plan's first source: its functions' hashes changed and its structs'
  // fields came in reverse order.
  if (!plan->sources.empty()) {
    SiteMap current;
    current.sourcePath = plan->sources.front().path;
    current.sourceSha256 = "edited";
    for (const FunctionHash& f : plan->sources.front().functions)
      current.functions.push_back({f.name, true, {}, {}, {}, "0" + f.hash});
    for (const StructPlan& s : plan->structs) {
      StructInfo info{s.name, {}, 0, 0, {}};
      for (auto field = s.fields.rbegin(); field != s.fields.rend(); ++field)
        info.fields.push_back({*field, "int", 0, 4, 4, {}});
      current.structs.push_back(std::move(info));
    }
    if (llvm::Error err = checkPlanFitsSiteMap(*plan, kPath, current)) fuzz::expectFileError(std::move(err), kPath);
  }
  return 0;
}
