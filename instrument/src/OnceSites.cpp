#include "FileUnion.h"

#include <vector>

namespace relayout {

OnceSites::OnceSites(const std::map<std::string, FileUnion>& files) {
  // Each call's callees, from the caller's definition; callees of a call in a loop seed the
  // functions reached from loops, which the calls they make then extend.
  std::map<FilePlace, std::set<FilePlace>> callees;
  std::vector<FilePlace> reached;
  for (const auto& [path, file] : files) {
    for (const auto& [offset, call] : file.calls) {
      called_.insert(call.callees.begin(), call.callees.end());
      if (inLoop(file, offset)) reached.insert(reached.end(), call.callees.begin(), call.callees.end());
      if (const RawFunctionText* caller = enclosing(file, offset))
        callees[caller->definitionPlace].insert(call.callees.begin(), call.callees.end());
    }
  }
  while (!reached.empty()) {
    const FilePlace f = reached.back();
    reached.pop_back();
    if (!loopCalled_.insert(f).second) continue;
    if (auto it = callees.find(f); it != callees.end())
      reached.insert(reached.end(), it->second.begin(), it->second.end());
  }
}

bool OnceSites::once(const FileUnion& file, unsigned offset) const {
  const RawFunctionText* function = enclosing(file, offset);
  if (!function || loopCalled_.count(function->definitionPlace)) return false;
  return function->kernel || called_.count(function->definitionPlace) != 0;
}

const RawFunctionText* OnceSites::enclosing(const FileUnion& file, unsigned offset) {
  const RawFunctionText* innermost = nullptr;
  for (const auto& [begin, text] : file.functionTexts) {
    if (begin > offset) break;
    if (text.definition && offset >= text.bodyBegin && offset < text.bodyEnd) innermost = &text;
  }
  return innermost;
}

bool OnceSites::inLoop(const FileUnion& file, unsigned offset) {
  // From the loop's keyword to its body's end: a call in a loop's condition runs each iteration too.
  for (const auto& [loopOffset, loop] : file.loops) {
    if (loopOffset > offset) break;
    if (offset < loop.statementEnd()) return true;
  }
  return false;
}

}  // namespace relayout
