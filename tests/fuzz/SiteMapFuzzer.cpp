// libFuzzer target: the site map reader (SiteMap::fromJson on parseJson's document) and the
// writer reading back what it wrote.
#include "FuzzSupport.h"

#include "relayout/core/Files.h"
#include "relayout/core/SiteMap.h"

using namespace relayout;

static constexpr llvm::StringLiteral kPath = "fuzz.sites.json";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  auto doc = parseJson(text, kPath);
  if (!doc) return fuzz::expectFileError(doc.takeError(), kPath), 0;
  auto map = SiteMap::fromJson(*doc, kPath);
  if (!map) return fuzz::expectFileError(map.takeError(), kPath), 0;

  const std::string written = map->toJson().dump(1);
  auto writtenDoc = parseJson(written, "written.sites.json");
  if (!writtenDoc) fuzz::broken("the site map writer's text is not JSON: " + llvm::toString(writtenDoc.takeError()));
  auto reread = SiteMap::fromJson(*writtenDoc, "written.sites.json");
  if (!reread) fuzz::broken("the site map writer's text does not read back: " + llvm::toString(reread.takeError()));
  if (reread->toJson().dump(1) != written) fuzz::broken("the site map changed when written and read back");
  return 0;
}
