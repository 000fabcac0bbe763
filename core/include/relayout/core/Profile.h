// The profile: what one run of an instrumented program measured. The format (docs/formats.md,
// "relayout-profile", version 1) is owned by relayout_formats (formats/); this adds the loading
// with errors that name the file.
#pragma once

#include "relayout/formats/Profile.h"

#include <llvm/Support/Error.h>

namespace relayout {

struct Profile : ProfileData {
  nlohmann::json toJson() const;
  static llvm::Expected<Profile> fromJson(const nlohmann::json& doc, llvm::StringRef path);
  static llvm::Expected<Profile> load(llvm::StringRef path);
};
// Combines the profiles of the ranks (or runs) of one program: for units with the same source
// hash the site and loop counters add up, and so do kernel launches and times. Units seen in
// only some profiles are kept. Profiles whose unit shapes disagree (site count, sampling period)
// are refused, naming the file. The first profile's trace is kept (its file named from the first
// profile's folder): the ranks run the same kernels, so one rank's sample of their accesses stands
// for all, and the summed counters weigh it.
llvm::Expected<Profile> mergeProfiles(const std::vector<std::pair<std::string, Profile>>& profiles);
// Loads each file, then mergeProfiles.
llvm::Expected<Profile> mergeProfileFiles(const std::vector<std::string>& paths);

}  // namespace relayout
