// Where relayout batch keeps each application's files under its output folder OUT, and a path
// join for the folders it writes: one place for both Runner.cpp and Stages.cpp.
#pragma once

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>

#include <string>

namespace relayout::batch {

inline std::string joinPath(const std::string& a, const std::string& b) {
  llvm::SmallString<256> out(a);
  llvm::sys::path::append(out, b);
  return std::string(out);
}

// OUT/apps/NAME: `relayout optimize`'s folder for the application.
inline std::string appFolder(const std::string& out, const std::string& name) {
  return joinPath(joinPath(out, "apps"), name);
}
// OUT/logs/NAME.log: everything optimize printed.
inline std::string logFile(const std::string& out, const std::string& name) {
  return joinPath(joinPath(out, "logs"), name + ".log");
}
// OUT/state/NAME.json: what the application ended with (docs/formats.md, "Batch").
inline std::string stateFile(const std::string& out, const std::string& name) {
  return joinPath(joinPath(out, "state"), name + ".json");
}

// OUT/apps/NAME/variants/VARIANT: a hand-written variant's program and its verify/ folder.
inline std::string variantFolder(const std::string& out, const std::string& name, const std::string& variant) {
  return joinPath(joinPath(appFolder(out, name), "variants"), variant);
}

}  // namespace relayout::batch
