// The JSON Schemas of docs/formats/ (the one definition of each file relayout reads), embedded at
// build time, and the one form of every error about a document's contents:
// `FILE: JSON-POINTER: expected WHAT, got VALUE`.
#pragma once

#include <llvm/Support/Error.h>
#include <nlohmann/json.hpp>

#include <string>

namespace relayout {

enum class SchemaKind { SiteMap, Profile, Plan };

// Checks `doc` against the schema of `kind`; the error names `path`, the JSON pointer of the first
// value that does not fit and what the schema expected there.
llvm::Error validateAgainstSchema(const nlohmann::json& doc, llvm::StringRef path, SchemaKind kind);

// `path: pointer: expected EXPECTED, got GOT` (pointer "" is the document itself: shown as "/").
llvm::Error documentError(llvm::StringRef path, llvm::StringRef pointer, const llvm::Twine& expected,
                          const llvm::Twine& got);

// A value as an error shows it: scalars as JSON, containers by kind and size.
std::string shownValue(const nlohmann::json& value);

// A JSON pointer from its parts ("units", 0, "sites" -> "/units/0/sites"), escaping '~' and '/'.
std::string jsonPointer(std::initializer_list<nlohmann::json> parts);

}  // namespace relayout
