// The emitter of a device layout's code (LayoutEmitter.h), shared by the files that write its
// parts: LayoutEmitter.cpp (the structs, allocation, element access) and LayoutCopies.cpp (the
// copies between layouts, on the host or the GPU, and memset).
#pragma once

#include "LayoutEmitter.h"

#include <functional>
#include <string>
#include <vector>

namespace relayout::rw::emit {

// One array of the device struct, as generated code spells it.
struct ArrayText {
  const DeviceArray* array;
  std::string element;      // "float", "Particle_pos", "int[4]": what one element holds
  std::string pointerType;  // "float*"; a split array: its values' pointer, "int*"
  std::string member;       // "float* x"
  std::string constMember;  // "const float* x": the member of the read-only view
  unsigned align;
  // A split array field: its dimensions, its values' type and how many runs of n values it holds.
  std::vector<uint64_t> dims;
  std::string scalar;
  uint64_t runs = 1;
};

// Loop variables over an array field's dimensions: j, k, l, m, then j4, j5, ...
std::vector<std::string> indexNames(size_t count);
// A declaration pattern with "@" for the name ("float @"), given the name.
std::string withName(const std::string& pattern, const std::string& name);
const FieldFacts& fieldFacts(const StructDef& def, const std::string& name);

class Emitter {
 public:
  Emitter(const DeviceLayout& layout, const StructDef& def);

  EmittedLayout run(unsigned helpers);

 private:
  void line(const std::string& text = "") { out_ += text + "\n"; }
  const std::string& s() const { return def_.spelled; }
  const std::string& d() const { return layout_.deviceName; }
  // What the helpers that only read take: the read-only view where one is emitted (a `const S*`
  // became it), to which d() converts; else d().
  const std::string& readView() const { return helpers_ & kConstView ? layout_.constName : d(); }
  // A reading helper's parameter: `const ParticleSoA`, or the read-only view (const itself).
  std::string readParam() const { return helpers_ & kConstView ? layout_.constName : "const " + d(); }
  // `object.field`, or through the accessor struct where the fields are private.
  std::string fieldOf(const std::string& object, const std::string& field) const;
  std::string elementBytes() const { return "k" + d() + "ElementBytes"; }
  std::string arrayGap() const { return "k" + d() + "ArrayGap"; }
  bool transposed() const { return layout_.transposeWidth != 0; }
  // Rows of a transposed layout that hold n elements: `(n + W - 1) / W`.
  std::string rowsFor(const std::string& n) const {
    return "(" + n + " + " + std::to_string(layout_.transposeWidth - 1) + ") / " +
           std::to_string(layout_.transposeWidth);
  }
  // Elements the arrays hold for n elements: n, or whole rows of a transposed layout.
  std::string capacity(const std::string& n) const {
    return transposed() ? rowsFor(n) + " * " + std::to_string(layout_.transposeWidth) : n;
  }
  // Where the arrays of `p` hold element `i`: i, or its transposed place; in the by-row overloads
  // of a transposed layout, entry k of row `row`.
  std::string elementAt(const std::string& p, const std::string& i = "i") const {
    if (byRow_) return "k * " + p + "." + layout_.rowsMember + " + row";
    return transposed() ? "relayoutTransposed(" + p + ", " + i + ")" : i;
  }
  // The element helpers' index parameters: `ptrdiff_t i`, or `size_t row, size_t k` (byRow_).
  std::string indexParams() const { return byRow_ ? "size_t row, size_t k" : "ptrdiff_t i"; }
  // Bytes of the block that holds n elements: the arrays and the gaps between them.
  std::string blockBytes() const {
    size_t gaps = placed_.size() - 1;
    const std::string arrays = capacity("n") + " * " + elementBytes();
    if (gaps == 0) return arrays;
    return arrays + " + " + (gaps > 1 ? std::to_string(gaps) + " * " : "") + arrayGap();
  }
  // One runtime call per array, each made only while the previous ones succeeded; a split array
  // takes one call per run (`call` names the run `j`), since two blocks may space runs differently.
  void callsPerRun(const std::function<std::string(const ArrayText&)>& call);
  // "4", "4 * 3": the runs of a split array, as its dimensions.
  static std::string runsText(const ArrayText& a);
  // `p.member` of a copy or memset: the run j of a split array, `p.normal + j * p.stride`.
  std::string arrayAt(const std::string& p, const ArrayText& a) const;
  // Bytes of n elements of one array (the rows holding them, transposed); of one run for a split array.
  std::string runBytes(const ArrayText& a) const;
  // Loops over a split array's subscripts around `body`, which names them `names`.
  void splitLoops(const std::string& indent, const ArrayText& a,
                  const std::function<std::string(const std::vector<std::string>&)>& body) {
    std::vector<std::string> names = indexNames(a.dims.size());
    std::string at = indent;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      std::string head = at + "for (int " + names[d] + " = 0; " + names[d] + " < " + std::to_string(a.dims[d]) +
                         "; ++" + names[d] + ")";
      if (d + 1 < a.dims.size()) line(head);
      else line(head + " " + body(names) + ";");
      at += "  ";
    }
  }
  // `p.normal[(3 * j + k) * p.stride + i]` for loop variables `names` (no `p.` when p is empty).
  std::string splitValue(const std::string& p, const ArrayText& a, const std::vector<std::string>& names,
                         const std::string& element) const {
    std::vector<Subscript> subscripts;
    for (const std::string& name : names) subscripts.push_back({name, std::nullopt});
    std::string of = p.empty() ? "" : p + ".";
    return of + a.array->member + "[" + splitIndex(a.dims, subscripts, of + layout_.strideMember, element) + "]";
  }
  // `v.normal[j][k]`.
  static std::string subscripted(const std::string& base, const std::vector<std::string>& names);
  void countCheck(const char* kindCheck);

  void header();
  // The read-only view of d(): its arrays as pointers to const, converted to from d().
  void constView();

  void place();

  // relayoutTransposed(p, i): where a transposed layout stores element i.
  void transposedIndex();

  // One allocation helper: `comment`'s lines, `static inline cudaError_t SIGNATURE {`, the count
  // check, `cudaError_t err = CALL;` into `block`, then relayoutPlace. Every allocator below.
  void allocation(const std::vector<std::string>& comment, const std::string& signature, const std::string& call);
  void malloc();

  void mallocManaged();

  // Pinned host memory: kernels and asynchronous copies reach it directly, so it takes the device
  // layout; the host reads and writes it through the same rewritten accesses.
  void mallocHost(const std::string& helper, const std::string& runtime, const std::string& defaultFlags);

  void free(const std::string& helper, const std::string& runtime);

  // Host AoS <-> device arrays. Compiled by nvcc, the elements cross as they are, as the original's
  // copy moves them (in chunks through a device scratch array of S), and a kernel places their fields:
  // transposing a large array on the host took longer than the kernels it sped up saved (stencil25:
  // 1.15x faster kernels, 0.64x the whole run). Without nvcc, or without room for the scratch, one
  // staging block laid out like the device one; the copies go array by array because the device
  // arrays are spaced by the allocated count, not by n.
  // cudaMemcpyAsync: the staging block is pageable memory (new[]), from which the runtime copies to
  // its own staging before returning, and into which it returns once the copy is complete (the
  // documented behaviour of pageable transfers); so the block can go, and the fields be scattered,
  // right after the calls. The copies stay in order on the stream; they no longer overlap the host.
  void copy(bool toDevice, bool async);

  std::string placeName(bool toDevice) const;

  // The kernel that places one chunk's fields on the device, and the host function that moves the
  // elements through a scratch array in chunks of at most 2^24 and launches it. False, with nothing
  // moved, when the scratch cannot be had (the caller stages on the host instead); otherwise true,
  // with the first failed step's error (or cudaSuccess) in *err.
  void placeOnDevice(bool toDevice);

  void loop(bool gather, const std::string& indent);

  // Each field of element i between `device` (the new layout) and `host` (an S): gathered into the
  // device layout, or scattered out of it.
  void loopBody(bool gather, const std::string& indent, const std::string& deviceName, const std::string& host);

  void memset();

  // Stream-ordered allocation (cudaMallocAsync / cudaFreeAsync) and memset: the same block and
  // runs as the synchronous helpers, on the caller's stream.
  void mallocAsync();

  void freeAsync();

  void memsetAsync();

  // Between two arrays in the new layout (device, managed or pinned): array by array, each the
  // first bytes / sizeof(S) elements, with the caller's kind.
  void sameLayoutCopy(bool async);

  // `p + off` on the original pointer: every array moves by off elements.
  void offset();

  // One field's copy between the original struct `v` and an array element or cluster value.
  void assign(const std::string& to, const std::string& from, const std::string& field);

  // The local holding one cluster value in relayoutLoad/Store: named like the cluster, unless that
  // would hide their parameters or the element.
  static std::string clusterLocal(const DeviceArray& array);

  // p[i] as a whole element: each cluster is read once (one aligned load), then its fields.
  void load();

  // The host vector `std::vector<S>(p + begin, p + end)` would make from an array of S.
  void gatherVector();

  // std::copy(first, last, p): each element of the range scattered in turn.
  void storeRange();

  // p[i] = v: scatters v's fields; each cluster is written once.
  void store();

  // p[i] bound to a reference: a reference to each field where the arrays hold it; const ones
  // where p is the read-only view. The proxy struct, then relayoutRef by index where that is
  // called (kRef, kConstRef; byRowOverloads has the by-row one).
  void reference(bool readOnly);
  void referenceFunction(bool readOnly);

  // Transposed layouts, where the rewrite found an element's index written `row * W + k`
  // (kLoadByRow, kStoreByRow, kRefByRow, kConstRefByRow): relayoutLoad, relayoutStore and
  // relayoutRef by row and entry, which index the arrays at `k * p.rows + row` without dividing by
  // W as relayoutTransposed must.
  void byRowOverloads();
  // In a by-row overload, the comment line that says so.
  void byRowNote();

  const DeviceLayout& layout_;
  const StructDef& def_;
  std::vector<ArrayText> arrays_, placed_;
  unsigned helpers_ = 0;
  bool anySplit_ = false, usesMemcpy_ = false;
  bool byRow_ = false;  // emitting the by-row overloads (byRowOverloads)
  std::string out_;
};

}  // namespace relayout::rw::emit
