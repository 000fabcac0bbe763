#include "LayoutEmitter.h"

#include "LayoutEmitterParts.h"
#include "relayout/formats/CopyKernels.h"

#include <llvm/ADT/StringExtras.h>

#include <algorithm>
#include <map>
#include <set>

namespace relayout::rw {

namespace emit {

std::vector<std::string> indexNames(size_t count) {
  static const char* const names[] = {"j", "k", "l", "m"};
  std::vector<std::string> out;
  for (size_t d = 0; d < count; ++d) out.push_back(d < 4 ? names[d] : "j" + std::to_string(d));
  return out;
}

std::string withName(const std::string& pattern, const std::string& name) {
  std::string text = pattern;
  size_t at = text.find('@');
  return at == std::string::npos ? text + " " + name : text.replace(at, 1, name);
}

const FieldFacts& fieldFacts(const StructDef& def, const std::string& name) {
  for (const FieldFacts& f : def.fields)
    if (f.name == name) return f;
  return def.fields.front();  // unreachable: the plan was checked against the fields
}

Emitter::Emitter(const DeviceLayout& layout, const StructDef& def) : layout_(layout), def_(def) {
  for (const DeviceArray& array : layout.arrays) {
    if (array.split) {
      const FieldFacts& f = fieldFacts(def, array.fields[0]);
      uint64_t runs = 1;
      for (uint64_t d : f.dims) runs *= d;
      arrays_.push_back({&array, f.type, f.scalarPointerType, withName(f.scalarPointerDecl, array.member),
                         withName(f.constScalarPointerDecl, array.member), unsigned(array.align), f.dims,
                         f.scalarType, runs});
      anySplit_ = true;
    } else if (array.clusterStruct.empty()) {
      const FieldFacts& f = fieldFacts(def, array.fields[0]);
      arrays_.push_back({&array, f.type, f.pointerType, withName(f.pointerDecl, array.member),
                         withName(f.constPointerDecl, array.member), unsigned(array.align)});
    } else {
      arrays_.push_back({&array, array.clusterStruct, array.clusterStruct + "*",
                         array.clusterStruct + "* " + array.member,
                         "const " + array.clusterStruct + "* " + array.member, unsigned(array.align)});
    }
  }
  placed_ = arrays_;
  std::stable_sort(placed_.begin(), placed_.end(), [](const ArrayText& a, const ArrayText& b) { return a.align > b.align; });
}

EmittedLayout Emitter::run(unsigned helpers) {
  helpers_ = helpers;
  header();
  if (helpers & kConstView) constView();
  place();
  helpers &= ~unsigned(kConstView);  // a type, not a helper: it needs no runtime
  const bool section = helpers || transposed();
  if (section) {
    line();
    line("// The helpers below call the CUDA runtime: compiled where it is declared (nvcc, or a host compiler");
    line("// that found cuda_runtime.h); host-only code sees the structs above.");
    line("#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_H__)");
  }
  if (transposed()) transposedIndex();
  if (helpers & kMalloc) malloc();
  if (helpers & kMallocManaged) mallocManaged();
  if (helpers & kMallocHost) mallocHost("relayoutMallocHost", "cudaMallocHost", "cudaHostAllocDefault");
  if (helpers & kHostAlloc) mallocHost("relayoutHostAlloc", "cudaHostAlloc", "");
  if (helpers & kFree) free("relayoutFree", "cudaFree");
  if (helpers & kFreeHost) free("relayoutFreeHost", "cudaFreeHost");
  if (helpers & kToDevice) copy(true, false);
  if (helpers & kToHost) copy(false, false);
  if (helpers & kToDeviceAsync) copy(true, true);
  if (helpers & kToHostAsync) copy(false, true);
  if (helpers & kMemset) memset();
  if (helpers & kMallocAsync) mallocAsync();
  if (helpers & kFreeAsync) freeAsync();
  if (helpers & kMemsetAsync) memsetAsync();
  if (helpers & kSameLayoutCopy) sameLayoutCopy(false);
  if (helpers & kSameLayoutCopyAsync) sameLayoutCopy(true);
  if (helpers & (kOffset | kConstOffset)) offset();
  if (helpers & kLoad) load();
  if (helpers & kGatherVector) gatherVector();
  if (helpers & kStore) store();
  if (helpers & kStoreRange) storeRange();
  if (helpers & (kRef | kRefByRow)) reference(false);
  if (helpers & (kConstRef | kConstRefByRow)) reference(true);
  if (transposed() && (helpers & (kLoadByRow | kStoreByRow | kRefByRow | kConstRefByRow))) byRowOverloads();
  if (section) line("#endif  // the CUDA runtime is declared");
  std::set<std::string> headers = {"cstddef"};
  if (usesMemcpy_) headers.insert("cstring");
  if (helpers & kGatherVector) headers.insert("vector");
  return {out_, headers, section};
}

std::string Emitter::fieldOf(const std::string& object, const std::string& field) const {
  return def_.privateFields ? fieldAccessName(layout_) + "::" + field + "(" + object + ")" : object + "." + field;
}

void Emitter::callsPerRun(const std::function<std::string(const ArrayText&)>& call) {
  bool loopFirst = arrays_.front().array->split;
  if (loopFirst) line("  cudaError_t err = cudaSuccess;");
  for (size_t i = 0; i < arrays_.size(); ++i) {
    const ArrayText& a = arrays_[i];
    if (a.array->split) {
      line("  for (size_t j = 0; j < " + runsText(a) + " && err == cudaSuccess; ++j)");
      line("    err = " + call(a) + ";");
    } else {
      line((i == 0 ? "  cudaError_t err = " : "  if (err == cudaSuccess) err = ") + call(a) + ";");
    }
  }
}

std::string Emitter::runsText(const ArrayText& a) {
  std::vector<std::string> dims;
  for (uint64_t d : a.dims) dims.push_back(std::to_string(d));
  return llvm::join(dims, " * ");
}

std::string Emitter::arrayAt(const std::string& p, const ArrayText& a) const {
  std::string at = p + "." + a.array->member;
  return a.array->split ? at + " + j * " + p + "." + layout_.strideMember : at;
}

std::string Emitter::runBytes(const ArrayText& a) const {
  return capacity("n") + " * sizeof(" + (a.array->split ? a.scalar : a.element) + ")";
}

std::string Emitter::subscripted(const std::string& base, const std::vector<std::string>& names) {
  std::string out = base;
  for (const std::string& name : names) out += "[" + name + "]";
  return out;
}

void Emitter::countCheck(const char* kindCheck) {
  line(std::string("  if (") + kindCheck + "bytes % sizeof(" + s() + ") != 0) return cudaErrorInvalidValue;");
  line("  const size_t n = bytes / sizeof(" + s() + ");");
}

void Emitter::header() {
  std::string what = layout_.layout == Layout::SoA ? "one array per field (SoA)" : "fields in aligned clusters";
  // Names only what the plan decided, not the plan's reason, which quotes profile numbers: the
  // same layout then gives the same bytes whichever run it was profiled from.
  line("// Generated by relayout: device arrays of " + s() + ", " + what + ", as relayout's plan chose");
  line("// (`relayout analyze` writes why in the plan's \"reason\" for " + s() + ").");
  for (const DeviceArray& array : layout_.arrays) {
    if (array.clusterStruct.empty()) continue;
    line("struct alignas(" + std::to_string(array.align) + ") " + array.clusterStruct + " {");
    for (const std::string& field : array.fields) line("  " + withName(fieldFacts(def_, field).valueDecl, field) + ";");
    line("};");
  }
  if (def_.privateFields) {
    line("// " + s() + " keeps its fields private: relayout's helpers reach them through this friend of it.");
    line("struct " + fieldAccessName(layout_) + " {");
    for (const FieldFacts& f : def_.fields) {
      line("  static __host__ __device__ auto& " + f.name + "(" + s() + "& v) { return v." + f.name + "; }");
      line("  static __host__ __device__ const auto& " + f.name + "(const " + s() + "& v) { return v." + f.name + "; }");
    }
    line("};");
  }
  line("struct " + d() + " {");
  for (const ArrayText& a : arrays_) {
    std::string comment;
    if (a.array->split) {
      std::vector<std::string> names = indexNames(a.dims.size());
      comment = "  // " + subscripted(a.array->member, names) + " of element i: " +
                splitValue("", a, names, "i");
    } else if (!a.array->keptWhy.empty()) {
      comment = "  // kept per element: " + a.array->keptWhy;
    }
    line("  " + a.member + ";" + comment);
  }
  if (anySplit_)
    line("  size_t " + layout_.strideMember +
         ";  // elements the arrays have room for: the length of a split array's runs");
  if (transposed())
    line("  size_t " + layout_.rowsMember + ";  // rows of " + std::to_string(layout_.transposeWidth) +
         " elements: element r * " + std::to_string(layout_.transposeWidth) + " + k is at k * " + layout_.rowsMember +
         " + r");
  line("};");
  line();
}

void Emitter::constView() {
  const std::string& view = layout_.constName;
  std::vector<std::string> members;
  for (const ArrayText& a : arrays_) members.push_back(a.array->member);
  if (anySplit_) members.push_back(layout_.strideMember);
  if (transposed()) members.push_back(layout_.rowsMember);
  std::vector<std::string> inits;
  for (const std::string& m : members) inits.push_back(m + "(p." + m + ")");
  line("// " + d() + " where the original took a `const " + s() + "*`: the same arrays, read-only.");
  line("struct " + view + " {");
  for (const ArrayText& a : arrays_) line("  " + a.constMember + ";");
  if (anySplit_) line("  size_t " + layout_.strideMember + ";");
  if (transposed()) line("  size_t " + layout_.rowsMember + ";");
  line("  " + view + "() = default;");
  line("#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_H__)");
  line("  __host__ __device__ " + view + "(const " + d() + "& p) : " + llvm::join(inits, ", ") + " {}");
  line("#endif");
  line("};");
  line();
}

void Emitter::place() {
  std::vector<std::pair<std::string, unsigned>> terms;  // sizeof text, count; in plan order
  for (const ArrayText& a : arrays_) {
    std::string term = "sizeof(" + a.element + ")";
    auto it = std::find_if(terms.begin(), terms.end(), [&](const auto& t) { return t.first == term; });
    if (it == terms.end()) terms.push_back({term, 1});
    else ++it->second;
  }
  std::string sum;
  for (const auto& [term, count] : terms)
    sum += (sum.empty() ? "" : " + ") + (count > 1 ? std::to_string(count) + " * " : "") + term;
  line("// Bytes one " + s() + " takes across the arrays of " + d() + ".");
  line("static constexpr size_t " + elementBytes() + " = " + sum + ";");
  if (placed_.size() > 1) {
    // Measured on an H200 (docs/results/array-gap-h200.md): four float arrays of 2^17 elements
    // placed back to back ran md_neighbor's force kernel 13% slower than with 2 to 16 KiB between
    // them; a gap of one 128-byte line gained little.
    unsigned align = 128;
    for (const ArrayText& a : placed_) align = std::max(align, a.align);
    line("// Bytes between one array's end and the next one's start. Placed back to back, arrays of a");
    line("// power-of-two count would start a power of two apart, and the elements i of all of them would");
    line("// compete for the same cache sets. A multiple of every array's alignment.");
    line("static constexpr size_t " + arrayGap() + " = " + std::to_string(33 * align) + ";");
  }
  line();
  line("// Points the arrays of p into block, which has room for n elements. They follow each other by");
  line("// decreasing alignment, " + std::string(placed_.size() > 1 ? arrayGap() + " bytes apart, " : "") +
       "so every array starts aligned.");
  if (anySplit_) line("// A split array holds one run of n values per index of the field.");
  if (transposed()) line("// Transposed: each array holds whole rows, " + capacity("n") + " elements.");
  line("static inline void relayoutPlace(" + d() + "* p, char* block, size_t n) {");
  if (transposed()) {
    line("  p->" + layout_.rowsMember + " = " + rowsFor("n") + ";");
    if (placed_.size() > 1)
      line("  const size_t held = p->" + layout_.rowsMember + " * " + std::to_string(layout_.transposeWidth) + ";");
  }
  for (size_t i = 0; i < placed_.size(); ++i) {
    const ArrayText& a = placed_[i];
    std::string target = "p->" + a.array->member + " = ";
    if (i == 0) {
      line("  " + target + "reinterpret_cast<" + a.pointerType + ">(block);");
    } else {
      const ArrayText& before = placed_[i - 1];
      std::string end = "p->" + before.array->member + " + " +
                        (before.array->split ? std::to_string(before.runs) + " * n"
                         : transposed()      ? "held"
                                             : "n");
      line("  " + target + "reinterpret_cast<" + a.pointerType + ">(reinterpret_cast<char*>(" + end + ") + " +
           arrayGap() + ");");
    }
  }
  if (anySplit_) line("  p->" + layout_.strideMember + " = n;");
  line("}");
}

void Emitter::transposedIndex() {
  const std::string w = std::to_string(layout_.transposeWidth);
  line();
  line("// Where element i, entry (i / " + w + ", i % " + w + ") of rows of " + w +
       ", is stored: transposed, so that consecutive rows");
  line("// of one entry are consecutive. Not static: a view no code reads through would be an unused one.");
  std::vector<std::string> views = {d()};
  if (helpers_ & kConstView) views.push_back(layout_.constName);
  for (const std::string& view : views)
    line("inline __host__ __device__ size_t relayoutTransposed(const " + view + "& p, size_t i) { return i % " + w +
         " * p." + layout_.rowsMember + " + i / " + w + "; }");
}

void Emitter::allocation(const std::vector<std::string>& comment, const std::string& signature,
                         const std::string& call) {
  line();
  for (const std::string& text : comment) line("// " + text);
  line("static inline cudaError_t " + signature + " {");
  countCheck("");
  line("  char* block = nullptr;");
  line("  cudaError_t err = " + call + ";");
  line("  if (err == cudaSuccess) relayoutPlace(p, block, n);");
  line("  return err;");
  line("}");
}

void Emitter::malloc() {
  allocation({"cudaMalloc for " + d() + ": bytes is a whole number of " + s() + " elements, as in the original call;",
              "one block holds every array."},
             "relayoutMalloc(" + d() + "* p, size_t bytes)", "cudaMalloc(&block, " + blockBytes() + ")");
}

void Emitter::mallocManaged() {
  allocation({"cudaMallocManaged for " + d() + ": one managed block holds every array, so host code reads and",
              "writes them through the same accesses as the kernels."},
             "relayoutMallocManaged(" + d() + "* p, size_t bytes, unsigned int flags = cudaMemAttachGlobal)",
             "cudaMallocManaged(&block, " + blockBytes() + ", flags)");
}

void Emitter::mallocHost(const std::string& helper, const std::string& runtime, const std::string& defaultFlags) {
  allocation({runtime + " for " + d() + ": one pinned block holds every array, laid out like the device ones."},
             helper + "(" + d() + "* p, size_t bytes, unsigned int flags" +
                 (defaultFlags.empty() ? "" : " = " + defaultFlags) + ")",
             "cudaHostAlloc(&block, " + blockBytes() + ", flags)");
}

void Emitter::free(const std::string& helper, const std::string& runtime) {
  line();
  line("// " + runtime + " for " + d() + ": its first array starts the block.");
  line("static inline cudaError_t " + helper + "(" + d() + " p) { return " + runtime + "(p." + placed_[0].array->member +
       "); }");
}

void Emitter::mallocAsync() {
  allocation({"cudaMallocAsync for " + d() + ": one block, allocated in stream order, holds every array."},
             "relayoutMallocAsync(" + d() + "* p, size_t bytes, cudaStream_t stream)",
             "cudaMallocAsync(reinterpret_cast<void**>(&block), " + blockBytes() + ", stream)");
}

void Emitter::freeAsync() {
  line();
  line("// cudaFreeAsync for " + d() + ": its first array starts the block.");
  line("static inline cudaError_t relayoutFreeAsync(" + d() + " p, cudaStream_t stream) { return cudaFreeAsync(p." +
       placed_[0].array->member + ", stream); }");
}

void Emitter::offset() {
  line();
  line("// " + d() + " advanced by off elements, as `p + off` was for a " + s() + "*: every array moves.");
  for (const std::string& view : {d(), layout_.constName}) {
    if (!(helpers_ & (view == d() ? kOffset : kConstOffset))) continue;
    line("static __host__ __device__ inline " + view + " relayoutOffset(" + view + " p, ptrdiff_t off) {");
    for (const ArrayText& a : arrays_) line("  p." + a.array->member + " += off;");
    line("  return p;");
    line("}");
  }
}

void Emitter::assign(const std::string& to, const std::string& from, const std::string& field) {
  if (fieldFacts(def_, field).isArray) usesMemcpy_ = true, line("  memcpy(" + to + ", " + from + ", sizeof(" + to + "));");
  else line("  " + to + " = " + from + ";");
}

std::string Emitter::clusterLocal(const DeviceArray& array) {
  std::string local = array.member;
  while (local == "p" || local == "i" || local == "v") local += "_";
  return local;
}

void Emitter::load() {
  line();
  line("// A copy of p[i] as the original " + s() + ": gathers its fields from the arrays.");
  byRowNote();
  line("static __host__ __device__ inline " + s() + " relayoutLoad(" + readParam() + " p, " + indexParams() + ") {");
  line("  " + s() + " v;");
  for (const ArrayText& a : arrays_) {
    const DeviceArray& array = *a.array;
    if (a.array->split) {
      splitLoops("  ", a, [&](const std::vector<std::string>& names) {
        return subscripted(fieldOf("v", array.fields[0]), names) + " = " + splitValue("p", a, names, "i");
      });
      continue;
    }
    if (array.clusterStruct.empty()) {
      assign(fieldOf("v", array.fields[0]), "p." + array.member + "[" + elementAt("p") + "]", array.fields[0]);
      continue;
    }
    std::string local = clusterLocal(array);
    line("  const " + array.clusterStruct + " " + local + " = p." + array.member + "[" + elementAt("p") + "];");
    for (const std::string& f : array.fields) assign(fieldOf("v", f), local + "." + f, f);
  }
  line("  return v;");
  line("}");
}

void Emitter::gatherVector() {
  line();
  line("// std::vector<" + s() + ">(p + begin, p + end): the elements gathered, as the original array gave them.");
  line("static inline std::vector<" + s() + "> relayoutGatherVector(" + readParam() +
       " p, ptrdiff_t begin, ptrdiff_t end) {");
  line("  std::vector<" + s() + "> v;");
  line("  v.reserve(end > begin ? static_cast<size_t>(end - begin) : 0);");
  line("  for (ptrdiff_t i = begin; i < end; ++i) v.push_back(relayoutLoad(p, i));");
  line("  return v;");
  line("}");
}

void Emitter::storeRange() {
  line();
  line("// std::copy(first, last, p) into " + d() + " (a statement): scatters each element of the range.");
  line("template <class Iterator>");
  line("static inline void relayoutStoreRange(Iterator first, Iterator last, " + d() + " p) {");
  line("  for (ptrdiff_t i = 0; first != last; ++first, ++i) relayoutStore(p, i, *first);");
  line("}");
}

void Emitter::store() {
  line();
  line("// p[i] = v for the original " + s() + " v: scatters its fields into the arrays.");
  byRowNote();
  line("static __host__ __device__ inline void relayoutStore(" + d() + " p, " + indexParams() + ", const " + s() +
       "& v) {");
  for (const ArrayText& a : arrays_) {
    const DeviceArray& array = *a.array;
    if (a.array->split) {
      splitLoops("  ", a, [&](const std::vector<std::string>& names) {
        return splitValue("p", a, names, "i") + " = " + subscripted(fieldOf("v", array.fields[0]), names);
      });
      continue;
    }
    if (array.clusterStruct.empty()) {
      assign("p." + array.member + "[" + elementAt("p") + "]", fieldOf("v", array.fields[0]), array.fields[0]);
      continue;
    }
    std::string local = clusterLocal(array);
    line("  " + array.clusterStruct + " " + local + ";");
    for (const std::string& f : array.fields) assign(local + "." + f, fieldOf("v", f), f);
    line("  p." + array.member + "[" + elementAt("p") + "] = " + local + ";");
  }
  line("}");
}

void Emitter::reference(bool readOnly) {
  const std::string& view = readOnly ? layout_.constName : d();
  std::string ref = view + "Ref";
  line();
  if (readOnly) {
    line("// p[i] as a const " + s() + "& to it was: its fields by const reference (relayoutRef). It");
    line("// converts to a " + s() + " (a gathered copy).");
  } else {
    line("// p[i] as a " + s() + "& to it was: its fields by reference (relayoutRef). It converts to a");
    line("// " + s() + " (a gathered copy) and takes one by assignment (a scatter).");
  }
  line("struct " + ref + " {");
  for (const FieldFacts& f : def_.fields) {
    const std::string type = readOnly ? "const " + f.type : f.type;
    const std::string& decl = readOnly ? f.constValueDecl : f.valueDecl;
    if (f.isArray) line("  " + withName(decl, "(&" + f.name + ")") + ";");
    else if (decl == type + " @") line("  " + type + "& " + f.name + ";");
    else line("  " + withName(decl, "&" + f.name) + ";");  // `int *const &next`
  }
  // Each multi-field cluster whole, too: the rewrite reads `e.T` as `e.T_k.T`, a member of the
  // aligned record, which nvcc merges with its neighbours into one vector access; through the
  // field's own reference it knows only the field's alignment and loads each field alone.
  for (const ArrayText& a : arrays_)
    if (!a.array->clusterStruct.empty())
      line("  " + std::string(readOnly ? "const " : "") + a.array->clusterStruct + "& " + a.array->member + ";");
  // The whole value's name must not hide a member (a field named `v`).
  std::string v = "v";
  while (llvm::any_of(def_.fields, [&](const FieldFacts& f) { return f.name == v; }) || v == "r") v += "_";
  line("  __host__ __device__ operator " + s() + "() const {");
  line("    " + s() + " " + v + ";");
  for (const FieldFacts& f : def_.fields) {
    out_ += "  ";
    assign(fieldOf(v, f.name), f.name, f.name);
  }
  line("    return " + v + ";");
  line("  }");
  if (!readOnly) {
    line("  __host__ __device__ " + ref + "& operator=(const " + s() + "& " + v + ") {");
    for (const FieldFacts& f : def_.fields) {
      out_ += "  ";
      assign(f.name, fieldOf(v, f.name), f.name);
    }
    line("    return *this;");
    line("  }");
    line("  __host__ __device__ " + ref + "& operator=(const " + ref + "& r) { return *this = static_cast<" + s() +
         ">(r); }");
  }
  line("};");
  if (helpers_ & (readOnly ? kConstRef : kRef)) referenceFunction(readOnly);
}

void Emitter::referenceFunction(bool readOnly) {
  const std::string& view = readOnly ? layout_.constName : d();
  std::string ref = view + "Ref";
  std::map<std::string, std::string> where;  // field -> its lvalue in p at i
  for (const ArrayText& a : arrays_) {
    const DeviceArray& array = *a.array;
    for (const std::string& f : array.fields)
      where[f] = "p." + array.member + "[" + elementAt("p") + "]" + (array.clusterStruct.empty() ? "" : "." + f);
  }
  line();
  line("// p[i] by reference, for code that took a " + std::string(readOnly ? "const " : "") + s() + "&.");
  byRowNote();
  line("static __host__ __device__ inline " + ref + " relayoutRef(" + (readOnly ? view : "const " + view) + " p, " +
       indexParams() + ") {");
  std::vector<std::string> fields;
  for (const FieldFacts& f : def_.fields) fields.push_back(where[f.name]);
  for (const ArrayText& a : arrays_)
    if (!a.array->clusterStruct.empty()) fields.push_back("p." + a.array->member + "[" + elementAt("p") + "]");
  line("  return {" + llvm::join(fields, ", ") + "};");
  line("}");
}

void Emitter::byRowNote() {
  if (!byRow_) return;
  const std::string w = std::to_string(layout_.transposeWidth);
  line("// By row and entry: i = row * " + w + " + k, held at k * p." + layout_.rowsMember + " + row (no division by " +
       w + ").");
}

void Emitter::byRowOverloads() {
  byRow_ = true;
  if (helpers_ & kLoadByRow) load();
  if (helpers_ & kStoreByRow) store();
  if (helpers_ & kRefByRow) referenceFunction(false);
  if (helpers_ & kConstRefByRow) referenceFunction(true);
  byRow_ = false;
}

}  // namespace emit

using emit::Emitter;


llvm::Error checkGeneratedNames(const DeviceLayout& layout, const StructDef& def) {
  std::set<std::string> typeWords = {"size_t"};  // the stride member's type
  for (const FieldFacts& f : def.fields) {
    for (llvm::StringRef text : {f.pointerDecl, f.valueDecl, f.scalarPointerDecl})
      for (size_t at = 0; at < text.size();) {  // every identifier of the declarations
        size_t begin = text.find_if([](char c) { return llvm::isAlpha(c) || c == '_'; }, at);
        if (begin == llvm::StringRef::npos) break;
        size_t end = text.find_if_not([](char c) { return llvm::isAlnum(c) || c == '_'; }, begin);
        typeWords.insert(text.slice(begin, end).str());
        at = end;
      }
  }
  for (const DeviceArray& array : layout.arrays)
    if (!array.clusterStruct.empty() && typeWords.count(array.member))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "plan's cluster '" + array.member + "' of struct '" + layout.structName +
                                         "' has the name of a type the device layout uses; rename the cluster");
  return llvm::Error::success();
}

EmittedLayout emitDeviceLayout(const DeviceLayout& layout, const StructDef& def, unsigned helpers) {
  return Emitter(layout, def).run(helpers);
}

std::string fieldAccessName(const DeviceLayout& layout) { return layout.deviceName + "Fields"; }

Edit fieldAccessFriend(const DeviceLayout& layout, const StructDef& def, const std::string& contents) {
  const std::string declaration = "friend struct " + fieldAccessName(layout) + ";";
  const std::string comment = "  // relayout: its helpers reach the fields through it";
  if (def.closeBraceOffset >= contents.size()) return Edit{def.file, def.closeBraceOffset, 0, 0, " " + declaration + " "};
  size_t lineStart = contents.rfind('\n', def.closeBraceOffset == 0 ? 0 : def.closeBraceOffset - 1);
  lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
  llvm::StringRef before = llvm::StringRef(contents).slice(lineStart, def.closeBraceOffset);
  // `};` on a line of its own: the declaration goes on the line before it, indented like the
  // members; otherwise (a one-line class) right before the brace.
  if (before.trim().empty())
    return Edit{def.file, unsigned(lineStart), 0, 0, before.str() + "  " + declaration + comment + "\n"};
  return Edit{def.file, def.closeBraceOffset, 0, 0, " " + declaration + " "};
}

std::string emitIncludes(const std::set<std::string>& headers, bool cudaRuntime) {
  std::string out = "// Included by relayout for the device layouts below.\n";
  for (const std::string& header : headers) out += "#include <" + header + ">\n";
  if (cudaRuntime)
    out += "#if defined(__CUDACC__) || __has_include(<cuda_runtime.h>)\n"
           "#include <cuda_runtime.h>  // their helpers; host-only code builds without it\n"
           "#endif\n";
  return out + "\n";
}

}  // namespace relayout::rw
