// What nvcc prints when it compiles the generate mode's instrumented copies, made to read as the
// user's own compile would: the copies sit in a private mirror and hold each kernel more than once
// (the instrumented body and its plain clones), with #line directives naming the original file.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace relayout {

struct NvccDiagnosticPaths {
  std::string mirror;  // the mirror's folder: removed wherever a path starts with it
  // Each swapped source as its #line directives name it (absolute) and as the command gave it.
  std::vector<std::pair<std::string, std::string>> absoluteToGiven;
};

// `text` (what nvcc wrote: diagnostics, a dependency file) with the mirror's folder removed from
// every path: a mirrored copy's path is the mirror's folder followed by the original's.
std::string withoutMirror(std::string text, const std::string& mirror);

// nvcc's standard error with the mirror's folder removed from paths, each source named as the
// command named it, a diagnostic the copies repeat printed once, and each "N errors detected in the
// compilation of ..." line counting the errors it printed. Other lines pass unchanged.
std::string tidyNvccDiagnostics(std::string_view text, const NvccDiagnosticPaths& paths);

}  // namespace relayout
