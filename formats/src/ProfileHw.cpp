// The profile's optional `hw` object (relayout profile --hw; docs/formats.md, "Hardware metrics").
#include "relayout/formats/Profile.h"

#include <cstdint>

using nlohmann::json;

namespace relayout {

namespace {

// A non-negative integer member (nlohmann would turn -3 into a huge unsigned number).
uint64_t count(const json& object, const char* key) {
  const json& v = object.at(key);
  if (!v.is_number_unsigned())
    throw json::type_error::create(302, std::string("hw: ") + key + " must be a non-negative integer, but is " +
                                            v.dump(), &v);
  return v.get<uint64_t>();
}

}  // namespace

json hwToJson(const HwProfile& hw) {
  json metrics = json::object();
  for (const auto& [key, name] : hw.metrics) metrics[key] = name;
  json lines = json::array();
  for (const HwLine& l : hw.lines)
    lines.push_back({{"file", l.file},
                     {"line", l.line},
                     {"function", l.function},
                     {"instructions", l.instructions},
                     {"loads", l.loads},
                     {"stores", l.stores},
                     {"sectors", l.sectors},
                     {"ideal_sectors", l.idealSectors}});
  return {{"source", hw.source},
          {"device", hw.device},
          {"chip", hw.chip},
          {"metrics", metrics},
          {"excluded",
           {{"runtime_instructions", hw.runtimeInstructions}, {"unmapped_instructions", hw.unmappedInstructions}}},
          {"lines", lines}};
}

HwProfile hwFromJson(const json& j) {
  if (!j.is_object()) throw json::type_error::create(302, "hw must be an object, but is " + std::string(j.type_name()), &j);
  HwProfile hw;
  hw.source = j.at("source").get<std::string>();
  hw.device = j.at("device").get<std::string>();
  hw.chip = j.at("chip").get<std::string>();
  const json& metrics = j.at("metrics");
  if (!metrics.is_object())
    throw json::type_error::create(302, "hw.metrics must be an object, but is " + std::string(metrics.type_name()),
                                   &metrics);
  for (const auto& [key, name] : metrics.items()) hw.metrics.emplace_back(key, name.get<std::string>());
  const json& excluded = j.at("excluded");
  hw.runtimeInstructions = count(excluded, "runtime_instructions");
  hw.unmappedInstructions = count(excluded, "unmapped_instructions");
  for (const json& l : j.at("lines")) {
    const uint64_t lineNumber = count(l, "line");
    HwLine line{l.at("file").get<std::string>(), unsigned(lineNumber), l.at("function").get<std::string>(),
                count(l, "instructions"), count(l, "loads"), count(l, "stores"), count(l, "sectors"),
                count(l, "ideal_sectors")};
    const std::string where = "hw line " + line.file + ":" + std::to_string(line.line);
    if (line.file.empty() || lineNumber == 0 || lineNumber > UINT32_MAX)
      throw json::other_error::create(501, where + " names no source line", &l);
    if (line.loads + line.stores > line.instructions)
      throw json::other_error::create(501, where + " has more loads and stores than instructions", &l);
    hw.lines.push_back(std::move(line));
  }
  return hw;
}

}  // namespace relayout
