// libFuzzer target: the profile reader (Profile::fromJson on parseJson's document), the writer
// reading back what it wrote, and mergeProfiles on what was read.
#include "FuzzSupport.h"

#include "relayout/core/Files.h"
#include "relayout/core/Profile.h"

using namespace relayout;

static constexpr llvm::StringLiteral kPath = "fuzz.profile.json";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  auto doc = parseJson(text, kPath);
  if (!doc) return fuzz::expectFileError(doc.takeError(), kPath), 0;
  auto profile = Profile::fromJson(*doc, kPath);
  if (!profile) return fuzz::expectFileError(profile.takeError(), kPath), 0;

  // Whatever the reader accepts, the writer writes so that it reads back the same.
  const std::string written = profileText(*profile);
  auto writtenDoc = parseJson(written, "written.profile.json");
  if (!writtenDoc) fuzz::broken("the profile writer's text is not JSON: " + llvm::toString(writtenDoc.takeError()));
  auto reread = Profile::fromJson(*writtenDoc, "written.profile.json");
  if (!reread) fuzz::broken("the profile writer's text does not read back: " + llvm::toString(reread.takeError()));
  if (profileText(*reread) != written) fuzz::broken("the profile changed when written and read back");

  // Two ranks of the same run: the merge adds them up or refuses with the file's name.
  auto merged = mergeProfiles({{"rank0.profile.json", *profile}, {"rank1.profile.json", *profile}});
  if (!merged) fuzz::expectFileError(merged.takeError(), "rank");
  return 0;
}
