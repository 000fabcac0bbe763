#include "LayoutEmitter.h"

#include "relayout/formats/CopyKernels.h"

#include <llvm/ADT/StringExtras.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace relayout::rw {

namespace {

// One array of the device struct, as generated code spells it.
struct ArrayText {
  const DeviceArray* array;
  std::string element;      // "float", "Particle_pos", "int[4]": what one element holds
  std::string pointerType;  // "float*"; a split array: its values' pointer, "int*"
  std::string member;       // "float* x"
  unsigned align;
  // A split array field: its dimensions, its values' type and how many runs of n values it holds.
  std::vector<uint64_t> dims;
  std::string scalar;
  uint64_t runs = 1;
};

// Loop variables over an array field's dimensions: j, k, l, m, then j4, j5, ...
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

class Emitter {
 public:
  Emitter(const DeviceLayout& layout, const StructDef& def) : layout_(layout), def_(def) {
    for (const DeviceArray& array : layout.arrays) {
      if (array.split) {
        const FieldFacts& f = fieldFacts(def, array.fields[0]);
        uint64_t runs = 1;
        for (uint64_t d : f.dims) runs *= d;
        arrays_.push_back({&array, f.type, f.scalarPointerType, withName(f.scalarPointerDecl, array.member),
                           unsigned(array.align), f.dims, f.scalarType, runs});
        anySplit_ = true;
      } else if (array.clusterStruct.empty()) {
        const FieldFacts& f = fieldFacts(def, array.fields[0]);
        arrays_.push_back({&array, f.type, f.pointerType, withName(f.pointerDecl, array.member), unsigned(array.align)});
      } else {
        arrays_.push_back({&array, array.clusterStruct, array.clusterStruct + "*",
                           array.clusterStruct + "* " + array.member, unsigned(array.align)});
      }
    }
    placed_ = arrays_;
    std::stable_sort(placed_.begin(), placed_.end(), [](const ArrayText& a, const ArrayText& b) { return a.align > b.align; });
  }

  EmittedLayout run(unsigned helpers) {
    header();
    place();
    if (helpers) {
      line();
      line("// The helpers below call the CUDA runtime: compiled where it is declared (nvcc, or a host compiler");
      line("// that found cuda_runtime.h); host-only code sees the structs above.");
      line("#if defined(__CUDACC__) || defined(__CUDA_RUNTIME_H__)");
    }
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
    if (helpers & kOffset) offset();
    if (helpers & kLoad) load();
    if (helpers & kGatherVector) gatherVector();
    if (helpers & kStore) store();
    if (helpers & kStoreRange) storeRange();
    if (helpers & kRef) reference();
    if (helpers) line("#endif  // the CUDA runtime is declared");
    std::set<std::string> headers = {"cstddef"};
    if (usesMemcpy_) headers.insert("cstring");
    if (helpers & kGatherVector) headers.insert("vector");
    return {out_, headers, helpers != 0};
  }

 private:
  void line(const std::string& text = "") { out_ += text + "\n"; }
  const std::string& s() const { return def_.spelled; }
  const std::string& d() const { return layout_.deviceName; }
  // `object.field`, or through the accessor struct where the fields are private.
  std::string fieldOf(const std::string& object, const std::string& field) const {
    return def_.privateFields ? fieldAccessName(layout_) + "::" + field + "(" + object + ")" : object + "." + field;
  }
  std::string elementBytes() const { return "k" + d() + "ElementBytes"; }
  // One runtime call per array, each made only while the previous ones succeeded; a split array
  // takes one call per run (`call` names the run `j`), since two blocks may space runs differently.
  void callsPerRun(const std::function<std::string(const ArrayText&)>& call) {
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
  // "4", "4 * 3": the runs of a split array, as its dimensions.
  static std::string runsText(const ArrayText& a) {
    std::vector<std::string> dims;
    for (uint64_t d : a.dims) dims.push_back(std::to_string(d));
    return llvm::join(dims, " * ");
  }
  // `p.member` of a copy or memset: the run j of a split array, `p.normal + j * p.stride`.
  std::string arrayAt(const std::string& p, const ArrayText& a) const {
    std::string at = p + "." + a.array->member;
    return a.array->split ? at + " + j * " + p + "." + layout_.strideMember : at;
  }
  // Bytes of n elements of one array; of one run for a split array.
  static std::string runBytes(const ArrayText& a) {
    return "n * sizeof(" + (a.array->split ? a.scalar : a.element) + ")";
  }
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
  static std::string subscripted(const std::string& base, const std::vector<std::string>& names) {
    std::string out = base;
    for (const std::string& name : names) out += "[" + name + "]";
    return out;
  }
  void countCheck(const char* kindCheck) {
    line(std::string("  if (") + kindCheck + "bytes % sizeof(" + s() + ") != 0) return cudaErrorInvalidValue;");
    line("  const size_t n = bytes / sizeof(" + s() + ");");
  }

  void header() {
    std::string what = layout_.layout == Layout::SoA ? "one array per field (SoA)" : "fields in alignas(16) clusters";
    // Names only what the plan decided, not the plan's reason, which quotes profile numbers: the
    // same layout then gives the same bytes whichever run it was profiled from.
    line("// Generated by relayout: device arrays of " + s() + ", " + what + ", as relayout's plan chose");
    line("// (`relayout analyze` writes why in the plan's \"reason\" for " + s() + ").");
    for (const DeviceArray& array : layout_.arrays) {
      if (array.clusterStruct.empty()) continue;
      line("struct alignas(16) " + array.clusterStruct + " {");
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
    line("};");
    line();
  }

  void place() {
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
    line();
    line("// Points the arrays of p into block, which has room for n elements. They follow each other by");
    line("// decreasing alignment, so every array starts aligned.");
    if (anySplit_) line("// A split array holds one run of n values per index of the field.");
    line("static inline void relayoutPlace(" + d() + "* p, char* block, size_t n) {");
    for (size_t i = 0; i < placed_.size(); ++i) {
      const ArrayText& a = placed_[i];
      std::string target = "p->" + a.array->member + " = ";
      if (i == 0) {
        line("  " + target + "reinterpret_cast<" + a.pointerType + ">(block);");
      } else {
        const ArrayText& before = placed_[i - 1];
        std::string previous = "p->" + before.array->member + " + " +
                               (before.array->split ? std::to_string(before.runs) + " * n" : "n");
        bool cast = before.pointerType != a.pointerType;
        line("  " + target + (cast ? "reinterpret_cast<" + a.pointerType + ">(" + previous + ")" : previous) + ";");
      }
    }
    if (anySplit_) line("  p->" + layout_.strideMember + " = n;");
    line("}");
  }

  void malloc() {
    line();
    line("// cudaMalloc for " + d() + ": bytes is a whole number of " + s() + " elements, as in the original call;");
    line("// one block holds every array.");
    line("static inline cudaError_t relayoutMalloc(" + d() + "* p, size_t bytes) {");
    countCheck("");
    line("  char* block = nullptr;");
    line("  cudaError_t err = cudaMalloc(&block, n * " + elementBytes() + ");");
    line("  if (err == cudaSuccess) relayoutPlace(p, block, n);");
    line("  return err;");
    line("}");
  }

  void mallocManaged() {
    line();
    line("// cudaMallocManaged for " + d() + ": one managed block holds every array, so host code reads and");
    line("// writes them through the same accesses as the kernels.");
    line("static inline cudaError_t relayoutMallocManaged(" + d() + "* p, size_t bytes, unsigned int flags = cudaMemAttachGlobal) {");
    countCheck("");
    line("  char* block = nullptr;");
    line("  cudaError_t err = cudaMallocManaged(&block, n * " + elementBytes() + ", flags);");
    line("  if (err == cudaSuccess) relayoutPlace(p, block, n);");
    line("  return err;");
    line("}");
  }

  // Pinned host memory: kernels and asynchronous copies reach it directly, so it takes the device
  // layout; the host reads and writes it through the same rewritten accesses.
  void mallocHost(const std::string& helper, const std::string& runtime, const std::string& defaultFlags) {
    line();
    line("// " + runtime + " for " + d() + ": one pinned block holds every array, laid out like the device ones.");
    line("static inline cudaError_t " + helper + "(" + d() + "* p, size_t bytes, unsigned int flags" +
         (defaultFlags.empty() ? "" : " = " + defaultFlags) + ") {");
    countCheck("");
    line("  char* block = nullptr;");
    line("  cudaError_t err = cudaHostAlloc(&block, n * " + elementBytes() + ", flags);");
    line("  if (err == cudaSuccess) relayoutPlace(p, block, n);");
    line("  return err;");
    line("}");
  }

  void free(const std::string& helper, const std::string& runtime) {
    line();
    line("// " + runtime + " for " + d() + ": its first array starts the block.");
    line("static inline cudaError_t " + helper + "(" + d() + " p) { return " + runtime + "(p." + placed_[0].array->member +
         "); }");
  }

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
  void copy(bool toDevice, bool async) {
    const std::string name = async ? "cudaMemcpyAsync" : "cudaMemcpy";
    const std::string helper = async ? "relayoutMemcpyAsync" : "relayoutMemcpy";
    const std::string stream = async ? ", cudaStream_t stream = 0" : "";
    if (!async) placeOnDevice(toDevice);
    line();
    if (toDevice) {
      line("// " + name + " from a host array of " + s() + " to " + d() + ": " +
           (async ? "gathers the fields into a staging block" : "see above; else gathers the fields into a staging"));
      line("// " + std::string(async ? "" : "block ") + "laid out like the device one, then copies it array by array (the device arrays are spaced by the");
      line("// allocated count, which may be larger).");
      if (async) line("// The block is pageable: each cudaMemcpyAsync returns once it has taken the data.");
      line("static inline cudaError_t " + helper + "(" + d() + " dst, const " + s() +
           "* src, size_t bytes, cudaMemcpyKind kind" + stream + ") {");
      countCheck("kind != cudaMemcpyHostToDevice || ");
    } else {
      line("// " + name + " from " + d() + " to a host array of " + s() + ": " +
           (async ? "copies array by array into a staging" : "see above; else copies array by array into a"));
      line("// " + std::string(async ? "" : "staging ") + "block laid out like the device one, then scatters the fields.");
      if (async) line("// The block is pageable: each cudaMemcpyAsync returns once its copy is complete.");
      line("static inline cudaError_t " + helper + "(" + s() + "* dst, " + d() +
           " src, size_t bytes, cudaMemcpyKind kind" + stream + ") {");
      countCheck("kind != cudaMemcpyDeviceToHost || ");
    }
    if (!async) {
      line("#if defined(__CUDACC__)");
      line("  cudaError_t placed;");
      line("  if (" + placeName(toDevice) + "(dst, src, n, &placed)) return placed;");
      line("#endif");
    }
    line("  char* block = new char[n * " + elementBytes() + "];");
    line("  " + d() + " staging;");
    line("  relayoutPlace(&staging, block, n);");
    auto copy = [&](const ArrayText& a) {
      std::string to = toDevice ? "dst" : "staging", from = toDevice ? "staging" : "src";
      return name + "(" + arrayAt(to, a) + ", " + arrayAt(from, a) + ", " + runBytes(a) + ", kind" +
             (async ? ", stream" : "") + ")";
    };
    if (toDevice) {
      loop(true, "  ");
      callsPerRun(copy);
    } else {
      callsPerRun(copy);
      line("  if (err == cudaSuccess)");
      loop(false, "    ");
    }
    line("  delete[] block;");
    line("  return err;");
    line("}");
  }

  std::string placeName(bool toDevice) const {
    return std::string(toDevice ? kScatterKernelPrefix : kGatherKernelPrefix) + d();
  }

  // The kernel that places one chunk's fields on the device, and the host function that moves the
  // elements through a scratch array in chunks of at most 2^24 and launches it. False, with nothing
  // moved, when the scratch cannot be had (the caller stages on the host instead); otherwise true,
  // with the first failed step's error (or cudaSuccess) in *err.
  void placeOnDevice(bool toDevice) {
    const std::string kernel = placeName(toDevice) + "Chunk";
    const std::string ends = toDevice ? d() + " dst, const " + s() + "* src" : s() + "* dst, const " + d() + " src";
    line();
    line("#if defined(__CUDACC__)");
    line("// Elements first .. first + count of " + d() + " " + (toDevice ? "from" : "into") + " a device array of " + s() + " holding just them.");
    line("static __global__ void " + kernel + "(" + ends + ", size_t first, size_t count) {");
    // `at`, not a letter: split array fields loop over j, k, l, m (indexNames).
    line("  for (size_t at = blockIdx.x * size_t(blockDim.x) + threadIdx.x; at < count; at += size_t(gridDim.x) * blockDim.x) {");
    line("    const size_t i = first + at;");
    loopBody(toDevice, "    ", toDevice ? "dst" : "src", toDevice ? "src[at]" : "dst[at]");
    line("  }");
    line("}");
    line();
    line("static inline bool " + placeName(toDevice) + "(" + ends + ", size_t n, cudaError_t* err) {");
    line("  const size_t chunk = n < (size_t(1) << 24) ? n : (size_t(1) << 24);");
    line("  " + s() + "* scratch = nullptr;");
    line("  // An error the program has not read yet stays for it: then the host stages.");
    line("  if (chunk == 0 || cudaPeekAtLastError() != cudaSuccess) return false;");
    line("  // The kernel runs on the current device: arrays elsewhere (another device, managed) take the host path.");
    line("  cudaPointerAttributes where;");
    line("  int device = -1;");
    line("  if (cudaPointerGetAttributes(&where, " + std::string(toDevice ? "dst." : "src.") + placed_[0].array->member +
         ") != cudaSuccess || where.type != cudaMemoryTypeDevice || cudaGetDevice(&device) != cudaSuccess ||");
    line("      where.device != device) {");
    line("    cudaGetLastError();  // a failed query is not the program's error");
    line("    return false;");
    line("  }");
    line("  if (cudaMalloc(&scratch, chunk * sizeof(" + s() + ")) != cudaSuccess) {");
    line("    cudaGetLastError();  // the failed allocation is not the program's error");
    line("    return false;");
    line("  }");
    line("  *err = cudaSuccess;");
    line("  for (size_t first = 0; first < n && *err == cudaSuccess; first += chunk) {");
    line("    const size_t count = n - first < chunk ? n - first : chunk;");
    line("    const unsigned blocks = unsigned(count / 256 + 1 < 65535 ? count / 256 + 1 : 65535);");
    if (toDevice) {
      line("    *err = cudaMemcpy(scratch, src + first, count * sizeof(" + s() + "), cudaMemcpyHostToDevice);");
      line("    if (*err != cudaSuccess) break;");
      line("    " + kernel + "<<<blocks, 256>>>(dst, scratch, first, count);");
      line("    *err = cudaGetLastError();");
    } else {
      line("    " + kernel + "<<<blocks, 256>>>(scratch, src, first, count);");
      line("    *err = cudaGetLastError();");
      line("    if (*err == cudaSuccess) *err = cudaMemcpy(dst + first, scratch, count * sizeof(" + s() + "), cudaMemcpyDeviceToHost);");
    }
    line("  }");
    line("  const cudaError_t freed = cudaFree(scratch);  // after the kernels: cudaFree waits for them");
    line("  if (*err == cudaSuccess) *err = freed;");
    line("  return true;");
    line("}");
    line("#endif");
  }

  void loop(bool gather, const std::string& indent) {
    line(indent + "for (size_t i = 0; i < n; ++i) {");
    loopBody(gather, indent + "  ", "staging", gather ? "src[i]" : "dst[i]");
    line(indent + "}");
  }

  // Each field of element i between `device` (the new layout) and `host` (an S): gathered into the
  // device layout, or scattered out of it.
  void loopBody(bool gather, const std::string& indent, const std::string& deviceName, const std::string& host) {
    for (const ArrayText& a : arrays_) {
      const DeviceArray& array = *a.array;
      if (array.split) {
        std::string hostField = fieldOf(host, array.fields[0]);
        splitLoops(indent, a, [&](const std::vector<std::string>& names) {
          std::string device = splitValue(deviceName, a, names, "i");
          return gather ? device + " = " + subscripted(hostField, names) : subscripted(hostField, names) + " = " + device;
        });
        continue;
      }
      for (const std::string& f : array.fields) {
        std::string device = deviceName + "." + array.member + "[i]" + (array.clusterStruct.empty() ? "" : "." + f);
        std::string hostField = fieldOf(host, f);
        if (fieldFacts(def_, f).isArray)  // arrays are not assignable
          usesMemcpy_ = true, line(indent + "memcpy(" + (gather ? device + ", " + hostField : hostField + ", " + device) + ", sizeof(" + hostField + "));");
        else
          line(indent + (gather ? device + " = " + hostField : hostField + " = " + device) + ";");
      }
    }
  }

  void memset() {
    line();
    line("// cudaMemset for " + d() + ": sets every byte of the first bytes / sizeof(" + s() + ") elements, array by array.");
    line("static inline cudaError_t relayoutMemset(" + d() + " p, int value, size_t bytes) {");
    countCheck("");
    callsPerRun([&](const ArrayText& a) { return "cudaMemset(" + arrayAt("p", a) + ", value, " + runBytes(a) + ")"; });
    line("  return err;");
    line("}");
  }

  // Stream-ordered allocation (cudaMallocAsync / cudaFreeAsync) and memset: the same block and
  // runs as the synchronous helpers, on the caller's stream.
  void mallocAsync() {
    line();
    line("// cudaMallocAsync for " + d() + ": one block, allocated in stream order, holds every array.");
    line("static inline cudaError_t relayoutMallocAsync(" + d() + "* p, size_t bytes, cudaStream_t stream) {");
    countCheck("");
    line("  char* block = nullptr;");
    line("  cudaError_t err = cudaMallocAsync(reinterpret_cast<void**>(&block), n * " + elementBytes() + ", stream);");
    line("  if (err == cudaSuccess) relayoutPlace(p, block, n);");
    line("  return err;");
    line("}");
  }

  void freeAsync() {
    line();
    line("// cudaFreeAsync for " + d() + ": its first array starts the block.");
    line("static inline cudaError_t relayoutFreeAsync(" + d() + " p, cudaStream_t stream) { return cudaFreeAsync(p." +
         placed_[0].array->member + ", stream); }");
  }

  void memsetAsync() {
    line();
    line("// cudaMemsetAsync for " + d() + ": the first bytes / sizeof(" + s() + ") elements, array by array, on the stream.");
    line("static inline cudaError_t relayoutMemsetAsync(" + d() + " p, int value, size_t bytes, cudaStream_t stream = 0) {");
    countCheck("");
    callsPerRun([&](const ArrayText& a) {
      return "cudaMemsetAsync(" + arrayAt("p", a) + ", value, " + runBytes(a) + ", stream)";
    });
    line("  return err;");
    line("}");
  }

  // Between two arrays in the new layout (device, managed or pinned): array by array, each the
  // first bytes / sizeof(S) elements, with the caller's kind.
  void sameLayoutCopy(bool async) {
    line();
    std::string name = async ? "cudaMemcpyAsync" : "cudaMemcpy";
    line("// " + name + " between two " + d() + " (device, managed or pinned): copies array by array.");
    line("static inline cudaError_t relayout" + std::string(async ? "MemcpyAsync" : "Memcpy") + "(" + d() + " dst, const " +
         d() + " src, size_t bytes, cudaMemcpyKind kind" + (async ? ", cudaStream_t stream = 0" : "") + ") {");
    countCheck("");
    callsPerRun([&](const ArrayText& a) {
      return name + "(" + arrayAt("dst", a) + ", " + arrayAt("src", a) + ", " + runBytes(a) + ", kind" +
             (async ? ", stream)" : ")");
    });
    line("  return err;");
    line("}");
  }

  // `p + off` on the original pointer: every array moves by off elements.
  void offset() {
    line();
    line("// " + d() + " advanced by off elements, as `p + off` was for a " + s() + "*: every array moves.");
    line("static __host__ __device__ inline " + d() + " relayoutOffset(" + d() + " p, ptrdiff_t off) {");
    for (const ArrayText& a : arrays_) line("  p." + a.array->member + " += off;");
    line("  return p;");
    line("}");
  }

  // One field's copy between the original struct `v` and an array element or cluster value.
  void assign(const std::string& to, const std::string& from, const std::string& field) {
    if (fieldFacts(def_, field).isArray) usesMemcpy_ = true, line("  memcpy(" + to + ", " + from + ", sizeof(" + to + "));");
    else line("  " + to + " = " + from + ";");
  }

  // The local holding one cluster value in relayoutLoad/Store: named like the cluster, unless that
  // would hide their parameters or the element.
  static std::string clusterLocal(const DeviceArray& array) {
    std::string local = array.member;
    while (local == "p" || local == "i" || local == "v") local += "_";
    return local;
  }

  // p[i] as a whole element: each cluster is read once (one aligned load), then its fields.
  void load() {
    line();
    line("// A copy of p[i] as the original " + s() + ": gathers its fields from the arrays.");
    line("static __host__ __device__ inline " + s() + " relayoutLoad(const " + d() + " p, ptrdiff_t i) {");
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
        assign(fieldOf("v", array.fields[0]), "p." + array.member + "[i]", array.fields[0]);
        continue;
      }
      std::string local = clusterLocal(array);
      line("  const " + array.clusterStruct + " " + local + " = p." + array.member + "[i];");
      for (const std::string& f : array.fields) assign(fieldOf("v", f), local + "." + f, f);
    }
    line("  return v;");
    line("}");
  }

  // The host vector `std::vector<S>(p + begin, p + end)` would make from an array of S.
  void gatherVector() {
    line();
    line("// std::vector<" + s() + ">(p + begin, p + end): the elements gathered, as the original array gave them.");
    line("static inline std::vector<" + s() + "> relayoutGatherVector(const " + d() +
         " p, ptrdiff_t begin, ptrdiff_t end) {");
    line("  std::vector<" + s() + "> v;");
    line("  v.reserve(end > begin ? static_cast<size_t>(end - begin) : 0);");
    line("  for (ptrdiff_t i = begin; i < end; ++i) v.push_back(relayoutLoad(p, i));");
    line("  return v;");
    line("}");
  }

  // std::copy(first, last, p): each element of the range scattered in turn.
  void storeRange() {
    line();
    line("// std::copy(first, last, p) into " + d() + " (a statement): scatters each element of the range.");
    line("template <class Iterator>");
    line("static inline void relayoutStoreRange(Iterator first, Iterator last, " + d() + " p) {");
    line("  for (ptrdiff_t i = 0; first != last; ++first, ++i) relayoutStore(p, i, *first);");
    line("}");
  }

  // p[i] = v: scatters v's fields; each cluster is written once.
  void store() {
    line();
    line("// p[i] = v for the original " + s() + " v: scatters its fields into the arrays.");
    line("static __host__ __device__ inline void relayoutStore(" + d() + " p, ptrdiff_t i, const " + s() + "& v) {");
    for (const ArrayText& a : arrays_) {
      const DeviceArray& array = *a.array;
      if (a.array->split) {
        splitLoops("  ", a, [&](const std::vector<std::string>& names) {
          return splitValue("p", a, names, "i") + " = " + subscripted(fieldOf("v", array.fields[0]), names);
        });
        continue;
      }
      if (array.clusterStruct.empty()) {
        assign("p." + array.member + "[i]", fieldOf("v", array.fields[0]), array.fields[0]);
        continue;
      }
      std::string local = clusterLocal(array);
      line("  " + array.clusterStruct + " " + local + ";");
      for (const std::string& f : array.fields) assign(local + "." + f, fieldOf("v", f), f);
      line("  p." + array.member + "[i] = " + local + ";");
    }
    line("}");
  }

  // p[i] bound to a non-const reference: a reference to each field where the arrays hold it.
  void reference() {
    std::string ref = d() + "Ref";
    line();
    line("// p[i] as a " + s() + "& to it was: its fields by reference (relayoutRef). It converts to a");
    line("// " + s() + " (a gathered copy) and takes one by assignment (a scatter).");
    line("struct " + ref + " {");
    std::map<std::string, std::string> where;  // field -> its lvalue in p at i
    for (const ArrayText& a : arrays_) {
      const DeviceArray& array = *a.array;
      for (const std::string& f : array.fields)
        where[f] = array.clusterStruct.empty() ? "p." + array.member + "[i]" : "p." + array.member + "[i]." + f;
    }
    for (const FieldFacts& f : def_.fields)
      line("  " + (f.isArray ? withName(f.valueDecl, "(&" + f.name + ")") : f.type + "& " + f.name) + ";");
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
    line("  __host__ __device__ " + ref + "& operator=(const " + s() + "& " + v + ") {");
    for (const FieldFacts& f : def_.fields) {
      out_ += "  ";
      assign(f.name, fieldOf(v, f.name), f.name);
    }
    line("    return *this;");
    line("  }");
    line("  __host__ __device__ " + ref + "& operator=(const " + ref + "& r) { return *this = static_cast<" + s() + ">(r); }");
    line("};");
    line();
    line("// p[i] by reference, for code that took a " + s() + "&.");
    line("static __host__ __device__ inline " + ref + " relayoutRef(const " + d() + " p, ptrdiff_t i) {");
    std::vector<std::string> fields;
    for (const FieldFacts& f : def_.fields) fields.push_back(where[f.name]);
    line("  return {" + llvm::join(fields, ", ") + "};");
    line("}");
  }

  const DeviceLayout& layout_;
  const StructDef& def_;
  std::vector<ArrayText> arrays_, placed_;
  bool anySplit_ = false, usesMemcpy_ = false;
  std::string out_;
};

}  // namespace

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
