// Small file helpers shared by all stages: hashing sources, reading JSON documents with errors
// that name the file, and writing outputs whole or not at all.
#pragma once

#include <llvm/Support/Error.h>
#include <nlohmann/json.hpp>

#include <string>

namespace relayout {

// Lower-case hex SHA-256 of a byte string.
std::string sha256Hex(llvm::StringRef bytes);

// A path as the file system resolves it (links followed); a path that does not exist (yet) made
// absolute and tidied instead. Two names of one file give the same string.
std::string resolvedPath(llvm::StringRef path);

// The most relayout reads of one JSON or text file it did not map (profiles, site maps, plans,
// sources): past it a file is refused, so that /dev/zero fails at once instead of when memory runs out.
inline constexpr uint64_t kMaxInputBytes = uint64_t(1) << 30;

// Reads a whole file (at most kMaxInputBytes); the error names the file.
llvm::Expected<std::string> readFile(llvm::StringRef path);

// Reads and parses a JSON file; a parse error names the file and the byte offset.
llvm::Expected<nlohmann::json> readJsonFile(llvm::StringRef path);
// Parses JSON text that came from `path` (readJsonFile's parser, for text already in memory).
llvm::Expected<nlohmann::json> parseJson(llvm::StringRef text, llvm::StringRef path);

// Writes `contents` to `path` atomically (temporary file in the same folder, then rename),
// creating parent folders. Either the whole file appears or nothing changes.
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

// Copies the files below `from` to the same places below `to` (made as needed), leaving out the
// entry `skip` directly below `from` (none when empty).
llvm::Error copyTree(llvm::StringRef from, llvm::StringRef to, llvm::StringRef skip = "");

// An open temporary file in path's folder (created if missing), so that renaming it over path
// replaces path in one step; the caller writes, then renames or removes it.
struct TempFileBeside {
  int fd = -1;
  std::string path;
};
llvm::Expected<TempFileBeside> createTempFileBeside(llvm::StringRef path);

// An error whose message is `file: message`, the one-line form the driver prints.
llvm::Error fileError(llvm::StringRef path, const llvm::Twine& message);

// Checks that `doc` is a relayout document of the given format and a version this build reads.
llvm::Error checkFormat(const nlohmann::json& doc, llvm::StringRef path, llvm::StringRef format, int version);

}  // namespace relayout
