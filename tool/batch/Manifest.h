// A `relayout batch` manifest: the applications to optimize, read from TOML (toml++). Every
// problem is found before anything runs, and named with the manifest's file:line:col.
#pragma once

#include <llvm/Support/Error.h>

#include <optional>
#include <string>
#include <vector>

namespace relayout::batch {

// A hand-written version of an application (its own sources, the application's flags and run),
// timed against the original beside relayout's rewrite.
struct Variant {
  std::string name;
  std::vector<std::string> sources;  // as written (relative to the application's dir, or absolute)
};

struct App {
  std::string name;
  std::string dir;                       // absolute: the sources are relative to it; the program runs here
  std::vector<std::string> sources;      // as written (relative to dir, or absolute)
  std::vector<std::string> flags;        // nvcc flags, when there is no build folder
  std::string build;                     // absolute: a folder with compile_commands.json (optimize -p)
  std::string run;                       // the program's arguments
  std::vector<std::string> compare;      // files the program writes, compared besides its output
  std::vector<std::string> data;         // files and folders (relative to dir) the program reads where it runs
  std::vector<std::string> ignoreLines;  // regular expressions
  std::optional<double> rtol, atol;
  std::optional<unsigned> repeat;
  std::string recordedProfile;  // absolute; used without a GPU
  unsigned timeoutSeconds = 3600;
  std::vector<std::string> options;  // more `relayout optimize` options
  std::vector<Variant> variants;
  std::vector<std::string> variantOptions;  // more relayout-verify options for the variants' comparisons
  std::string where;                 // "FILE:LINE:COL" of its [[app]] table, for messages
};

struct Manifest {
  std::string path;
  std::vector<App> apps;
};

// Reads and checks `path`: unknown keys, wrong types, a missing or duplicate name, a source, folder
// or profile that does not exist are errors, all of them reported together.
llvm::Expected<Manifest> readManifest(const std::string& path);

// Whether `name` can name an application or a variant: it names files and folders.
bool isFileName(const std::string& name);

// The keys an [[app]] table (and [defaults]) may hold, for --help and the error on an unknown one.
const std::vector<std::string>& appKeys();

}  // namespace relayout::batch
