#include "relayout/formats/JsonNumbers.h"

#include <utility>
#include <vector>

namespace relayout {

std::string findNonIntegerNumber(const nlohmann::json& doc) {
  // Containers still to visit, last first, each with its JSON pointer.
  std::vector<std::pair<const nlohmann::json*, std::string>> pending{{&doc, ""}};
  auto escaped = [](std::string key) {  // RFC 6901: "~" is "~0", "/" is "~1"
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
  };
  while (!pending.empty()) {
    auto [value, pointer] = std::move(pending.back());
    pending.pop_back();
    if (value->is_number_float())
      return value->dump() + " at " + (pointer.empty() ? "/" : pointer) + " is not an integer";
    std::vector<std::pair<const nlohmann::json*, std::string>> children;
    if (value->is_object())
      for (const auto& [key, child] : value->items()) children.push_back({&child, pointer + "/" + escaped(key)});
    else if (value->is_array())
      for (size_t i = 0; i < value->size(); ++i) children.push_back({&(*value)[i], pointer + "/" + std::to_string(i)});
    pending.insert(pending.end(), children.rbegin(), children.rend());
  }
  return "";
}

}  // namespace relayout
