// Loading profiles: the format is relayout_formats' (formats/src/Profile.cpp); this names the file.
#include "relayout/core/Profile.h"

#include "relayout/core/Files.h"

using nlohmann::json;

namespace relayout {

json Profile::toJson() const { return json(profileToJson(*this)); }

llvm::Expected<Profile> Profile::fromJson(const json& doc, llvm::StringRef path) {
  Profile profile;
  if (std::string error = profileFromJson(doc, profile); !error.empty()) return fileError(path, error);
  return profile;
}

llvm::Expected<Profile> Profile::load(llvm::StringRef path) {
  auto doc = readJsonFile(path);
  if (!doc) return doc.takeError();
  return fromJson(*doc, path);
}

}  // namespace relayout
