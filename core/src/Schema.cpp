#include "relayout/core/Schema.h"

#include "EmbeddedSchemas.h"
#include "relayout/core/Files.h"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <fmt/format.h>

#include <memory>

using nlohmann::json;

namespace relayout {

namespace {

const char* schemaText(SchemaKind kind) {
  switch (kind) {
    case SchemaKind::SiteMap:
      return schemas::k_sitemap;
    case SchemaKind::Profile:
      return schemas::k_profile;
    case SchemaKind::Plan:
      return schemas::k_plan;
  }
  return schemas::k_sitemap;
}

// A schema, parsed once per process: both its JSON (to say what it expects) and valijson's form.
struct LoadedSchema {
  json document;
  valijson::Schema compiled;
};

const LoadedSchema& loadedSchema(SchemaKind kind) {
  static std::unique_ptr<LoadedSchema> loaded[3];
  std::unique_ptr<LoadedSchema>& slot = loaded[static_cast<int>(kind)];
  if (!slot) {
    slot = std::make_unique<LoadedSchema>();
    slot->document = json::parse(schemaText(kind));  // a schema that does not parse fails every test
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(slot->document);
    parser.populateSchema(adapter, slot->compiled);
  }
  return *slot;
}

std::string escapedToken(std::string token) {
  for (size_t at = 0; (at = token.find_first_of("~/", at)) != std::string::npos; at += 2)
    token.replace(at, 1, token[at] == '~' ? "~0" : "~1");
  return token;
}

// Follows "$ref": "#/definitions/NAME" (the only references the schemas use).
const json* resolved(const json& root, const json* node) {
  for (int hops = 0; node && node->is_object() && node->contains("$ref") && hops < 8; ++hops) {
    const std::string ref = (*node)["$ref"].get<std::string>();
    const std::string prefix = "#/definitions/";
    if (ref.rfind(prefix, 0) != 0 || !root.contains("definitions")) return nullptr;
    auto it = root["definitions"].find(ref.substr(prefix.size()));
    node = it == root["definitions"].end() ? nullptr : &*it;
  }
  return node;
}

// The schema that describes the value at `tokens` (member names and array indexes).
const json* schemaAt(const json& root, const std::vector<std::string>& tokens) {
  const json* node = resolved(root, &root);
  for (const std::string& token : tokens) {
    if (!node || !node->is_object()) return nullptr;
    if (node->contains("properties") && (*node)["properties"].contains(token)) node = &(*node)["properties"][token];
    else if (node->contains("items") && (*node)["items"].is_object()) node = &(*node)["items"];
    else if (node->contains("additionalProperties") && (*node)["additionalProperties"].is_object())
      node = &(*node)["additionalProperties"];
    else return nullptr;
    node = resolved(root, node);
  }
  return node;
}

std::string integerRange(const json& s) {
  const bool hasMin = s.contains("minimum"), hasMax = s.contains("maximum");
  if (hasMin && hasMax) return fmt::format("an integer from {} to {}", s["minimum"].dump(), s["maximum"].dump());
  if (hasMin) return "an integer of at least " + s["minimum"].dump();
  if (hasMax) return "an integer of at most " + s["maximum"].dump();
  return "an integer";
}

// What a schema asks for, in words.
std::string describe(const json& root, const json* s) {
  if (!s || !s->is_object()) return "a value this format defines";
  // A definition may say itself what it asks for, up to the first " (".
  if (s->contains("description") && s != &root) {
    const std::string text = (*s)["description"].get<std::string>();
    return text.substr(0, text.find(" ("));
  }
  if (s->contains("const")) return (*s)["const"].dump();
  if (s->contains("enum")) {
    std::string list;
    for (const json& v : (*s)["enum"]) list += (list.empty() ? "" : ", ") + v.dump();
    return "one of " + list;
  }
  std::vector<std::string> types;
  if (s->contains("type")) {
    const json& t = (*s)["type"];
    if (t.is_string()) types.push_back(t.get<std::string>());
    else
      for (const json& e : t) types.push_back(e.get<std::string>());
  }
  std::string out;
  for (const std::string& type : types) {
    std::string one;
    if (type == "integer") one = integerRange(*s);
    else if (type == "number") one = "a number";
    else if (type == "boolean") one = "true or false";
    else if (type == "null") one = "null";
    else if (type == "object") one = "an object";
    else if (type == "string") {
      if (s->contains("pattern")) one = "a string matching " + (*s)["pattern"].get<std::string>();
      else if (s->value("minLength", 0) > 0) one = "a non-empty string";
      else one = "a string";
    } else if (type == "array") {
      one = "an array";
      if (s->contains("minItems") && s->contains("maxItems") && (*s)["minItems"] == (*s)["maxItems"])
        one += " of " + (*s)["minItems"].dump();
      else if (s->contains("minItems")) one += " of at least " + (*s)["minItems"].dump();
      if (s->contains("items")) one += " of " + describe(root, resolved(root, &(*s)["items"]));
    } else {
      one = type;
    }
    out += (out.empty() ? "" : " or ") + one;
  }
  return out.empty() ? "a value this format defines" : out;
}

// valijson names where it was by "<root>", "[member]", "[3]"; a quoted member name may itself
// hold brackets, so the parts come from the document.
std::vector<std::string> tokensOf(const std::vector<std::string>& context) {
  std::vector<std::string> tokens;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    if (part.size() >= 2 && part.front() == '[' && part.back() == ']')
      tokens.push_back(part.substr(1, part.size() - 2));
    else tokens.push_back(part);
  }
  return tokens;
}

const json* valueAt(const json& doc, const std::vector<std::string>& tokens) {
  const json* node = &doc;
  for (const std::string& token : tokens) {
    if (node->is_object()) {
      auto it = node->find(token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos) return nullptr;
      const size_t index = std::stoull(token);
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else {
      return nullptr;
    }
  }
  return node;
}

// Errors valijson adds on the way back up, after the one that says what is wrong.
bool isSummary(const std::string& description) {
  return description.rfind("Failed to validate", 0) == 0 || description.rfind("Cannot validate", 0) == 0;
}

}  // namespace

std::string shownValue(const json& value) {
  if (value.is_object()) return value.empty() ? "an empty object" : "an object";
  if (value.is_array()) return value.empty() ? "an empty array" : fmt::format("an array of {}", value.size());
  std::string text = value.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

std::string jsonPointer(std::initializer_list<json> parts) {
  std::string pointer;
  for (const json& part : parts)
    pointer += "/" + (part.is_string() ? escapedToken(part.get<std::string>()) : part.dump());
  return pointer;
}

llvm::Error documentError(llvm::StringRef path, llvm::StringRef pointer, const llvm::Twine& expected,
                          const llvm::Twine& got) {
  return fileError(path,
                   (pointer.empty() ? llvm::StringRef("/") : pointer) + ": expected " + expected + ", got " + got);
}

llvm::Error validateAgainstSchema(const json& doc, llvm::StringRef path, SchemaKind kind) {
  const LoadedSchema& schema = loadedSchema(kind);
  valijson::Validator validator;  // strict types: 1.0 is no integer, "1" no number
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target(doc);
  if (validator.validate(schema.compiled, target, &results)) return llvm::Error::success();
  // The deepest error says what is wrong; the others repeat it for each enclosing value.
  valijson::ValidationResults::Error chosen;
  bool found = false;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    if (isSummary(error.description)) continue;
    if (!found || error.context.size() > chosen.context.size()) chosen = error, found = true;
  }
  if (!found) return fileError(path, "does not fit its schema");
  std::vector<std::string> tokens = tokensOf(chosen.context);
  // "Missing required property 'x'." is reported on the object: point at the missing member.
  const std::string missingPrefix = "Missing required property '";
  const bool missing = chosen.description.rfind(missingPrefix, 0) == 0;
  if (missing)
    tokens.push_back(
        chosen.description.substr(missingPrefix.size(), chosen.description.size() - missingPrefix.size() - 2));
  std::string pointer;
  for (const std::string& token : tokens) pointer += "/" + escapedToken(token);
  const json* value = missing ? nullptr : valueAt(doc, tokens);
  std::string expected = describe(schema.document, schemaAt(schema.document, tokens));
  // A member name that is not allowed: the schema of the names, not of the values, was broken.
  if (chosen.description.find("'propertyNames'") != std::string::npos ||
      chosen.description.rfind("Object contains a property", 0) == 0)
    expected = "no member of that name";
  return documentError(path, pointer, expected, value ? shownValue(*value) : std::string("nothing"));
}

}  // namespace relayout
