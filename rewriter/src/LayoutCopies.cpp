// The copies between a struct's original layout and its device layout (cudaMemcpy and its
// asynchronous form, on the host or by kernels on the GPU), and memset.
#include "LayoutEmitterParts.h"

#include "relayout/formats/CopyKernels.h"

#include <llvm/ADT/StringExtras.h>

namespace relayout::rw::emit {

void Emitter::copy(bool toDevice, bool async) {
  const std::string name = async ? "cudaMemcpyAsync" : "cudaMemcpy";
  const std::string helper = async ? "relayoutMemcpyAsync" : "relayoutMemcpy";
  const std::string stream = async ? ", cudaStream_t stream = 0" : "";
  if (!async) placeOnDevice(toDevice);
  line();
  if (toDevice) {
    line("// " + name + " from a host array of " + s() + " to " + d() + ": " +
         (async ? "gathers the fields into a staging block" : "see above; else gathers the fields into a staging"));
    line("// " + std::string(async ? "" : "block ") +
         "laid out like the device one, then copies it array by array (the device arrays are spaced by the");
    line("// allocated count, which may be larger).");
    if (async) line("// The block is pageable: each cudaMemcpyAsync returns once it has taken the data.");
    line("static inline cudaError_t " + helper + "(" + d() + " dst, const " + s() +
         "* src, size_t bytes, cudaMemcpyKind kind" + stream + ") {");
    countCheck("kind != cudaMemcpyHostToDevice || ");
  } else {
    line("// " + name + " from " + d() + " to a host array of " + s() + ": " +
         (async ? "copies array by array into a staging" : "see above; else copies array by array into a"));
    line("// " + std::string(async ? "" : "staging ") +
         "block laid out like the device one, then scatters the fields.");
    if (async) line("// The block is pageable: each cudaMemcpyAsync returns once its copy is complete.");
    line("static inline cudaError_t " + helper + "(" + s() + "* dst, " + readView() +
         " src, size_t bytes, cudaMemcpyKind kind" + stream + ") {");
    countCheck("kind != cudaMemcpyDeviceToHost || ");
  }
  if (!async) {
    line("#if defined(__CUDACC__)");
    line("  cudaError_t placed;");
    line("  if (" + placeName(toDevice) + "(dst, src, n, &placed)) return placed;");
    line("#endif");
  }
  if (transposed()) {
    const std::string device = toDevice ? "dst" : "src";
    line("  // Staged on the host, the arrays move whole: only a copy of every row the allocation holds.");
    line("  if (" + rowsFor("n") + " != " + device + "." + layout_.rowsMember + ") return cudaErrorInvalidValue;");
  }
  line("  char* block = new char[" + blockBytes() + "];");
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

std::string Emitter::placeName(bool toDevice) const {
  return std::string(toDevice ? kScatterKernelPrefix : kGatherKernelPrefix) + d();
}

void Emitter::placeOnDevice(bool toDevice) {
  const std::string kernel = placeName(toDevice) + "Chunk";
  const std::string ends = toDevice ? d() + " dst, const " + s() + "* src" : s() + "* dst, " + readParam() + " src";
  line();
  line("#if defined(__CUDACC__)");
  line("// Elements first .. first + count of " + d() + " " + (toDevice ? "from" : "into") + " a device array of " +
       s() + " holding just them.");
  line("static __global__ void " + kernel + "(" + ends + ", size_t first, size_t count) {");
  // `at`, not a letter: split array fields loop over j, k, l, m (indexNames).
  line(
      "  for (size_t at = blockIdx.x * size_t(blockDim.x) + threadIdx.x; at < count; at += size_t(gridDim.x) * "
      "blockDim.x) {");
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
    line("    if (*err == cudaSuccess) *err = cudaMemcpy(dst + first, scratch, count * sizeof(" + s() +
         "), cudaMemcpyDeviceToHost);");
  }
  line("  }");
  line("  const cudaError_t freed = cudaFree(scratch);  // after the kernels: cudaFree waits for them");
  line("  if (*err == cudaSuccess) *err = freed;");
  line("  return true;");
  line("}");
  line("#endif");
}

void Emitter::loop(bool gather, const std::string& indent) {
  line(indent + "for (size_t i = 0; i < n; ++i) {");
  loopBody(gather, indent + "  ", "staging", gather ? "src[i]" : "dst[i]");
  line(indent + "}");
}

void Emitter::loopBody(bool gather, const std::string& indent, const std::string& deviceName, const std::string& host) {
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
      std::string device = deviceName + "." + array.member + "[" + elementAt(deviceName) + "]" +
                           (array.clusterStruct.empty() ? "" : "." + f);
      std::string hostField = fieldOf(host, f);
      if (fieldFacts(def_, f).isArray)  // arrays are not assignable
        usesMemcpy_ = true, line(indent + "memcpy(" + (gather ? device + ", " + hostField : hostField + ", " + device) +
                                 ", sizeof(" + hostField + "));");
      else line(indent + (gather ? device + " = " + hostField : hostField + " = " + device) + ";");
    }
  }
}

void Emitter::memset() {
  line();
  line("// cudaMemset for " + d() + ": sets every byte of the first bytes / sizeof(" + s() +
       ") elements, array by array.");
  line("static inline cudaError_t relayoutMemset(" + d() + " p, int value, size_t bytes) {");
  countCheck("");
  callsPerRun([&](const ArrayText& a) { return "cudaMemset(" + arrayAt("p", a) + ", value, " + runBytes(a) + ")"; });
  line("  return err;");
  line("}");
}

void Emitter::memsetAsync() {
  line();
  line("// cudaMemsetAsync for " + d() + ": the first bytes / sizeof(" + s() +
       ") elements, array by array, on the stream.");
  line("static inline cudaError_t relayoutMemsetAsync(" + d() +
       " p, int value, size_t bytes, cudaStream_t stream = 0) {");
  countCheck("");
  callsPerRun([&](const ArrayText& a) {
    return "cudaMemsetAsync(" + arrayAt("p", a) + ", value, " + runBytes(a) + ", stream)";
  });
  line("  return err;");
  line("}");
}

void Emitter::sameLayoutCopy(bool async) {
  line();
  std::string name = async ? "cudaMemcpyAsync" : "cudaMemcpy";
  line("// " + name + " between two " + d() + " (device, managed or pinned): copies array by array.");
  line("static inline cudaError_t relayout" + std::string(async ? "MemcpyAsync" : "Memcpy") + "(" + d() + " dst, " +
       readParam() + " src, size_t bytes, cudaMemcpyKind kind" + (async ? ", cudaStream_t stream = 0" : "") + ") {");
  countCheck("");
  callsPerRun([&](const ArrayText& a) {
    return name + "(" + arrayAt("dst", a) + ", " + arrayAt("src", a) + ", " + runBytes(a) + ", kind" +
           (async ? ", stream)" : ")");
  });
  line("  return err;");
  line("}");
}

}  // namespace relayout::rw::emit
