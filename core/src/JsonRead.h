// Internal: checks a document's format, version and schema, then turns nlohmann's exceptions on
// what the schema cannot rule out into an llvm::Error naming the file.
#pragma once

#include "relayout/core/Files.h"
#include "relayout/core/Schema.h"

#include <nlohmann/json.hpp>

namespace relayout::detail {

template <class T, class Parse>
llvm::Expected<T> parseDocument(const nlohmann::json& doc, llvm::StringRef path, const char* format, int version,
                                SchemaKind schema, Parse parse) {
  if (llvm::Error err = checkFormat(doc, path, format, version)) return err;
  if (llvm::Error err = validateAgainstSchema(doc, path, schema)) return err;
  try {
    return parse(doc);
  } catch (const nlohmann::json::exception& e) {
    // e.what() reads "[json.exception.type_error.302] type must be string, but is null"
    llvm::StringRef what(e.what());
    return fileError(path, "malformed " + llvm::Twine(format) + ": " + what.split("] ").second);
  }
}

}  // namespace relayout::detail
