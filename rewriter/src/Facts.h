// What the per-translation-unit pass records for the whole-program decision. Plain data, no AST:
// each unit is parsed, read and freed before anything is decided, and a struct is rewritten only
// when every unit agrees it can be.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace relayout::rw {

// One replacement in a file, by byte offset (an insertion has length 0).
struct Edit {
  std::string file;  // real path
  unsigned offset = 0;
  unsigned length = 0;
  // Insertions at one offset apply in this order, then by text (the restrict locals of a body:
  // by parameter, then array).
  unsigned order = 0;
  std::string text;
  // An insertion whose order among other insertions at the same offset does not matter (the
  // __restrict__ locals of two parameters at the top of one body): never a conflict.
  bool anyOrder = false;
  // Which form of a parameter's accesses the edit belongs to, where relayout itself would declare
  // its arrays restrict (RestrictLocals.cpp): the edits of the restrict locals (`f_x[i]` and their
  // declarations) or those of plain accesses (`f.x[i]`). Decided with the whole program
  // (Entity::restrictRefused, Entity::fieldAddress); every other edit always applies.
  enum Form : unsigned char { kAlways = 0, kWithRestrict = 1, kWithoutRestrict = 2 };
  Form restrictForm = kAlways;
  auto operator<=>(const Edit&) const = default;
};

// The helpers a struct's rewritten calls need; only those are emitted.
enum Helper : unsigned {
  kMalloc = 1,
  kFree = 2,
  kToDevice = 4,
  kToHost = 8,
  kMemset = 16,
  kOffset = 32,          // relayoutOffset: `p + off` as a view
  kSameLayoutCopy = 64,  // relayoutMemcpy between two arrays in the new layout (any kind)
  kSameLayoutCopyAsync = 128,
  kLoad = 256,   // relayoutLoad: a whole element gathered
  kStore = 512,  // relayoutStore: a whole element scattered
  kMallocManaged = 1024,
  kMallocHost = 2048,  // pinned host memory (cudaMallocHost, cudaHostAlloc) in the new layout
  kHostAlloc = 4096,
  kFreeHost = 8192,
  kRef = 16384,          // relayoutRef: an element as a struct of references to its fields
  kMallocAsync = 32768,  // cudaMallocAsync / cudaFreeAsync / cudaMemsetAsync on a stream
  kFreeAsync = 65536,
  kMemsetAsync = 131072,
  kGatherVector = 262144,   // relayoutGatherVector: `std::vector<S>(p + a, p + b)` on the host
  kToDeviceAsync = 524288,  // cudaMemcpyAsync gathers from a host array of S (staged in pageable memory)
  kToHostAsync = 1048576,   // cudaMemcpyAsync scatters into a host array of S
  kStoreRange = 2097152,    // relayoutStoreRange: `std::copy(first, last, p)` into a host-visible array
  kConstView = 4194304,     // the read-only view a `const S*` becomes, which the reading helpers take
  kConstOffset = 8388608,   // relayoutOffset of the read-only view (see readOnlyHelpers)
  kConstRef = 16777216,     // relayoutRef of the read-only view: `const S&` bound to its element
  // Transposed layouts: relayoutLoad, relayoutStore, relayoutRef called by row and entry (indexByRow).
  kLoadByRow = 33554432,
  kStoreByRow = 67108864,
  kRefByRow = 134217728,
  kConstRefByRow = 268435456,
};

// An entity's helpers as the layout emits them: kConstView marks an entity declared `const S*`,
// whose `p + off` (as source or as target) the read-only view's relayoutOffset serves, since a
// view converts to the read-only one and not back.
inline unsigned readOnlyHelpers(unsigned helpers, bool readOnly) {
  if (!readOnly || !(helpers & kOffset)) return helpers;
  return (helpers & ~unsigned(kOffset)) | kConstOffset;
}

// One access to an array field in a plain array (SoA, or a one-field cluster), in both forms the
// whole program may give the field: split by index (`p.f[j * p.stride + i]`) or kept per element
// (`p.f[i][j]`). Decided once every unit is read: a field is split unless some use needs it per element
// (Entity::keptWhole).
struct FieldForm {
  std::string field;
  std::vector<Edit> split, kept;
};

// Why such an array field must stay per element: a use takes it (or a partial subscript) as a whole.
struct KeptField {
  std::string comment;  // for the generated struct: "'&e[i].n[0]' (a.cu:12) takes the address of a value"
  std::string note;     // rendered clang-style note at the use
};

// Generated text made of a slice of a file and edits to it, some of them field forms: a function
// template's overload for the device struct (TemplateClones.cpp), composed once forms are decided.
struct ComposedText {
  std::string file;
  unsigned at = 0;     // where the text is inserted
  std::string header;  // goes before the composed slice
  unsigned from = 0;   // the slice's offset in `file`
  std::string slice;
  std::vector<Edit> edits;
  std::vector<FieldForm> forms;
};

// Edits and refusals that hold only when another entity does (or does not) change layout: a copy
// between two arrays is array by array when both change, a gather or scatter when one keeps the
// original struct. Decided with the whole program.
struct ConditionalUse {
  std::string other;          // entity key
  bool otherChanges = false;  // applies when `other` changes layout == this
  std::vector<Edit> edits;
  unsigned helpers = 0;
  std::vector<std::string> refusals;
};

// A variable, parameter or struct member of type S* that may hold a device array of a planned struct S. Keyed by
// USR, so a kernel declared in one file and launched in another is one entity.
struct Entity {
  std::string structName;
  bool seed = false;             // its address goes to cudaMalloc(Managed/Host): it holds the new layout
  bool declared = false;         // a declaration of it was seen (its type edit is in `edits`)
  bool defined = false;          // a parameter whose function's body is in the sources
  std::string undefinedWarning;  // rendered: for a parameter of a function no source defines
  // Rendered: its value comes from an initializer relayout does not follow (a cast of a byte
  // buffer, a call it cannot see into); said where the struct has no device array at all.
  std::string unfollowedValue;
  unsigned helpers = 0;
  std::vector<Edit> edits;            // applied when the entity changes layout
  std::vector<std::string> refusals;  // rendered warnings: uses that forbid the change
  std::vector<ConditionalUse> conditionals;
  std::vector<FieldForm> forms;                // accesses to plain arrays' array fields, applied when it changes
  std::vector<ComposedText> clones;            // template overloads, applied when it changes
  std::map<std::string, KeptField> keptWhole;  // plain arrays' array fields that must stay per element if it changes
  // A parameter whose arrays relayout declares restrict where the promise holds (RestrictProof.cpp):
  // why some unit or instance found that it might not; empty when none did. Its edits of either
  // form (Edit::restrictForm) are recorded all the same, so units agree on them.
  std::string restrictRefused;
  // A use that keeps a field's address (`float* px = &d[0].x`, `&p[i].x` passed to a function):
  // another pointer may then reach the field's array, so no parameter of the struct gets restrict
  // locals that relayout infers. Rendered text of the first such use.
  std::string fieldAddress;
};

struct FieldFacts {
  std::string name;
  std::string type;              // spelled for generated code: "float"
  std::string valueDecl;         // declaration with "@" for the name: "float @"
  std::string constValueDecl;    // "const float @"; a pointer field: "int *const @"
  std::string pointerType;       // "float*"
  std::string pointerDecl;       // "float* @"
  std::string constPointerDecl;  // "const float* @"; a pointer field: "int *const *@"
  unsigned size = 0;
  unsigned align = 0;
  bool isArray = false;  // copied with memcpy: arrays are not assignable
  // An array field's dimensions, outermost first ({4, 3} for `float normal[4][3]`), and its
  // innermost element spelled like the field: "float", "float*", "float* @".
  std::vector<uint64_t> dims;
  std::string scalarType, scalarPointerType, scalarPointerDecl, constScalarPointerDecl;
  bool operator==(const FieldFacts&) const = default;
};

// A definition of a planned struct, with where the device layout goes (right after it).
struct StructDef {
  std::string name;     // as the plan names it
  std::string spelled;  // how code next to the definition names it: "Particle"
  std::string file;
  unsigned nameOffset = 0;  // where its name is written in `file` (else its closing brace), for errors
  unsigned insertOffset = 0;
  bool insertAtLineStart = false;  // at the start of the line after the definition
  bool blankLineFollows = false;
  // The start of the line where the outermost declaration holding the definition begins (the
  // struct, or its outermost namespace): the headers the generated code needs go there, at
  // namespace scope.
  unsigned includeOffset = 0;
  std::vector<FieldFacts> fields;
  std::vector<std::string> refusals;  // rendered warnings about the struct itself
  std::string keptNote;               // rendered note: the struct keeps its layout
  // Fields not all public (a class keeping its state private): the generated helpers reach them
  // through `<device>Fields`, which a friend declaration before the closing brace admits.
  bool privateFields = false;
  unsigned closeBraceOffset = 0;
  std::string noArraysWarning;  // rendered warning: no device array was found
  // A record the plan aligns (AlignedRecords.h): the alignment, and the `alignas` edit.
  unsigned align = 0;
  std::vector<Edit> alignEdits;
};

// A function that takes S* and is also called with a pointer relayout does not rewrite (a host
// reference's array, a local struct's address). Whatever the rewrite changes inside its definition
// goes into an overload written right after it; the original stays, unchanged, for those calls
// (DualUseFunctions.cpp).
struct DualUseFunction {
  std::string name;  // for the generated comment
  std::string file;
  unsigned from = 0;  // the start of the definition's first line
  unsigned to = 0;    // just after its closing brace
};

// A call that passes an array to a plain function's S* parameter. Where the call lies inside a
// function kept for other callers, its original still calls the callee with their pointers, so
// the callee is kept too (or, where it cannot be, its parameter is refused).
struct ArrayCall {
  std::string file;
  unsigned offset = 0;                    // of the call
  std::string param;                      // entity key of the callee's parameter
  std::optional<DualUseFunction> callee;  // where the callee can be kept beside an overload
  std::string refusal;                    // rendered warning where it cannot
};

struct ProgramFacts {
  std::map<std::pair<std::string, unsigned>, DualUseFunction> dualUse;  // by (file, from)
  std::vector<ArrayCall> arrayCalls;
  // By struct: rendered warnings about untyped buffers cast to it for a launch that relayout
  // could not take as its device array; shown instead of "no device array" when none was found.
  std::map<std::string, std::vector<std::string>> untypedBuffers;
  // Overloads taking element reference proxies (ElementRefs.cpp), as first written: the other
  // edits inside the function they copy join them once the whole program's edits are known.
  std::vector<ComposedText> proxyClones;
  std::map<std::string, Entity> entities;
  // Structs a field of which is addressed through an element reference (`P& e = p[i]; &e.x`):
  // as Entity::fieldAddress, for the struct's inferred restrict locals.
  std::set<std::string> fieldAddressStructs;
  std::vector<std::pair<std::string, std::string>> links;  // entities that change layout together
  std::vector<StructDef> defs;
  std::map<std::string, std::string> contents;  // real path -> bytes, for every file with an edit
  // Real path of a user file -> the user files that #include it (system headers left out).
  std::map<std::string, std::set<std::string>> includedBy;
};

}  // namespace relayout::rw
