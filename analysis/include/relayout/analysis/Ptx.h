// What nvcc made of the sources: the global memory instructions of a PTX file compiled with
// -lineinfo, each with its source line, width and the loops it sits in after optimization. The
// model reads it to see accesses that nvcc merged into one vector access, and element accesses it
// hoisted out of a loop (docs/analysis.md, "What nvcc emits").
#pragma once

#include "relayout/core/LayoutMapping.h"
#include "relayout/core/SiteMap.h"

#include <llvm/Support/Error.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace relayout {

// One global memory instruction: ld.global (also .nc), st.global, atom.global or red.global, and
// the generic ld/st that may reach global memory.
struct PtxAccess {
  std::string file;  // the .file path of its .loc
  unsigned line = 0;
  bool load = false, store = false;  // an atomic is both
  unsigned width = 0;                // bytes per lane: vector count x element size (ld.global.v4.f32: 16)
  unsigned element = 0;              // bytes of one element (ld.global.v4.f32: 4)
  unsigned loopDepth = 0;            // loops of its function (after inlining and optimization) around it
  std::string function;              // the .entry or .func it is in
};

struct PtxModule {
  std::string path;
  std::vector<PtxAccess> accesses;
};

// Reads PTX text; loops are the ranges from a label to a later branch back to it. An error names
// `path` and the line when the text is not PTX (no .version).
llvm::Expected<PtxModule> parsePtx(llvm::StringRef text, llvm::StringRef path);
llvm::Expected<PtxModule> loadPtx(llvm::StringRef path);

// What the compiled code does with one site's accesses.
struct SiteCode {
  bool found = false;  // some global memory instruction of its direction is on its line
  unsigned width = 0;  // the widest such instruction, bytes per lane
  // Requests per execution of the site, summed over its directions (a read-modify-write has a load
  // and a store): its bytes over the width of the instruction that carries them (several fields
  // loaded by one ld.global.v4 share it: 0.25 each for four floats; a float3 loaded as three
  // scalars: 3); naturalRequests() for a direction without an instruction on its line.
  double requests = 1;
  // The share of the site's directions (a read-modify-write has two) whose instructions all lie
  // in fewer loops than the source puts the site in: nvcc kept the element in a register across
  // the innermost loop, so they run once per entry into that loop, not once per iteration.
  double hoisted = 0;
};

// The sites' code from the modules: per site, matched by file (a site map's relative path matches
// the .file's absolute one when it is a trailing part of it) and line, and the direction of its
// access; an instruction whose elements are wider than the site (an 8-byte load beside a 4-byte
// field on one line) does not carry it. `loopDepth` is the number of source loops around the site (the site map's loop and its
// parents). A site outside kernels (a __device__ helper) counts as hoisted only when its
// instructions lie in no loop at all: the loops of its callers are unknown.
std::vector<SiteCode> siteCode(const SiteMap& map, const std::vector<const PtxModule*>& modules);

// The widest access (1 to 16 bytes, a power of two) that `size` bytes at `offsetInField` of a field
// aligned to `fieldAlign` allow: what nvcc can load in one instruction from an array of that field
// alone (the SoA layout), where nothing merges neighbouring fields.
unsigned naturalWidth(unsigned size, unsigned offsetInField, unsigned fieldAlign);
// A site's requests per execution with its field in an array of its own: its bytes over the
// natural width, for each of its directions.
double naturalRequests(const SiteInfo& site, const FieldInfo& field);

// A site's requests per execution under a layout, as nvcc can emit them: the sites `together` (the
// struct's sites that the same code touches on the same element, the site among them) that read (or write) bytes of one
// aligned chunk of the site's array element covering it whole are one access of that chunk's width (up to 16 bytes, and
// at most the array element's alignment: the struct's for AoS, 16 for a clustered sub-struct, the field's own for SoA).
// Each direction of a read-modify-write counts.
double predictedRequests(const LayoutMapping& mapping, const StructInfo& s, const SiteInfo& site,
                         const std::vector<const SiteInfo*>& together);

// The number of loops around a site in its source: its loop, that loop's parent, and so on.
unsigned sourceLoopDepth(const SiteMap& map, const SiteInfo& site);

}  // namespace relayout
