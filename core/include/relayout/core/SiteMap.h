// The site map: what `relayout instrument` found in one translation unit. Every struct-field access
// in device code is a site with a stable id; the instrumented program reports counters per site id.
// Format: docs/formats.md ("relayout-sitemap", version 1).
#pragma once

#include <llvm/Support/Error.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace relayout {

struct SourceLocation {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  std::string str() const;  // "file:line:col"
};

struct FieldInfo {
  std::string name;
  std::string type;  // as spelled by Clang, e.g. "float"
  unsigned offset = 0;
  unsigned size = 0;
  unsigned align = 0;
  // An array field's extents, outermost first ("float [4][3]": {4, 3}); empty for a non-array.
  std::vector<uint64_t> extents;
};

struct StructInfo {
  std::string name;  // qualified name, e.g. "Particle" or "sph::Particle"
  SourceLocation location;
  unsigned size = 0;
  unsigned align = 0;
  std::vector<FieldInfo> fields;
  const FieldInfo* field(const std::string& fieldName) const;
};

enum class AccessKind { Read, Write, ReadWrite };
const char* toString(AccessKind kind);
std::optional<AccessKind> accessKindFromString(const std::string& text);

struct FunctionInfo {
  std::string name;
  bool isKernel = false;
  SourceLocation location;
  std::vector<std::string> kernels;  // kernels that reach this function (itself, for a kernel)
  // For a function template: the instantiations whose accesses share its sites, e.g. "scale<float>".
  std::vector<std::string> instantiations;
  // A hash of the function's own tokens (comments and whitespace ignored): a profile still
  // describes this function's sites after edits elsewhere when the hash is unchanged.
  std::string hash;
};

struct LoopInfo {
  unsigned id = 0;
  std::string kind;  // for, while, do, range-for
  std::string function;
  SourceLocation location;
  std::optional<unsigned> parent;
};

struct SiteInfo {
  unsigned id = 0;
  SourceLocation location;
  std::string structName;
  std::string field;   // the struct's own (top-level) field
  std::string member;  // what was touched, from the field: "pos.x", "a[3]", "a[]"; empty = the field
  unsigned offset = 0;  // byte offset and size of what was touched within the struct
  unsigned size = 0;
  AccessKind access = AccessKind::Read;
  std::string function;
  std::vector<std::string> kernels;
  std::optional<unsigned> loop;
  // The site's position among its function's sites, in source order (0, 1, ...): with the
  // function's hash it identifies the site across edits elsewhere.
  unsigned position = 0;
  // The element's index is written `row * W + k` with k provably below W (an ELL matrix's entry,
  // clangsupport's RowMajorIndex): W, a flattened 2-D array's row length; else 0.
  unsigned rowWidth = 0;
  // Shared by the function's accesses that reach the same element, spelled alike, in the same
  // branch of code (clangsupport's SameElement): those nvcc may carry in one wider access. Empty
  // where unknown (spelled inside a macro's body, a comment in it; site maps written before).
  std::string element;
  // A field of an element copied whole into a local that the function never reads (`const Facet f
  // = rest[i];` then only f.a, f.b, f.c): nvcc drops its load, so the analysis counts no access.
  // The instrumented program still reports it, so that site numbers do not depend on it.
  bool unread = false;
};

// A project file whose device code this unit instrumented: the main source first, then the
// headers (and included .cu files) it reached. Each file's sites, loops and kernels are
// numbered in source order within the file, so a header has the same local ids in every unit
// that includes it; the unit's ids are firstX + local id.
struct InstrumentedFile {
  std::string path;    // as given (main source), or relative to the working folder
  std::string sha256;  // of the original bytes
  unsigned firstSite = 0, numSites = 0;
  unsigned firstLoop = 0, numLoops = 0;
  unsigned firstKernel = 0, numKernels = 0;
};

struct SiteMap {
  static constexpr const char* kFormat = "relayout-sitemap";
  static constexpr int kVersion = 1;

  std::string sourcePath;     // as given to the instrumenter
  std::string sourceSha256;   // of the original (uninstrumented) source
  unsigned blockPeriod = 1;   // the instrumented program classifies accesses in 1 block of this many
  std::vector<StructInfo> structs;
  std::vector<FunctionInfo> functions;
  // Every __global__ function defined in the unit, in kernel-id order: the instrumented kernel
  // stores its position here on entry, so that sites in helpers are counted per calling kernel.
  // Empty in site maps written before per-kernel attribution.
  std::vector<std::string> kernels;
  std::vector<LoopInfo> loops;
  std::vector<SiteInfo> sites;  // sites[i].id == i
  // Every instrumented file of the unit (main source first). Empty in site maps written before
  // headers were instrumented: then the main source holds everything.
  std::vector<InstrumentedFile> files;

  const StructInfo* findStruct(const std::string& name) const;
  nlohmann::json toJson() const;
  // Validates structure and ids; errors name `path`.
  static llvm::Expected<SiteMap> fromJson(const nlohmann::json& doc, llvm::StringRef path);
  static llvm::Expected<SiteMap> load(llvm::StringRef path);
};

// Site maps given together must describe different units (source hashes): one unit given twice
// would count each of its accesses twice. The error names both files. `paths[i]` holds `maps[i]`.
llvm::Error checkDistinctUnits(const std::vector<std::string>& paths, const std::vector<const SiteMap*>& maps);

}  // namespace relayout
