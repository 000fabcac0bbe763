#include "verify/Gpu.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace relayout {

GpuAvailability detectGpu() {
  if (const char* off = std::getenv("RELAYOUT_NO_GPU"); off && std::string(off) == "1")
    return {false, "RELAYOUT_NO_GPU=1 is set"};
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) return {false, "no CUDA driver (libcuda.so.1) on this machine"};
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(driver, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(driver, "cuDeviceGetCount"));
  int devices = 0;
  GpuAvailability result{false, "the CUDA driver reports no GPU"};
  if (init && count && init(0) == 0 && count(&devices) == 0 && devices > 0) result = {true, "", devices};
  dlclose(driver);
  return result;
}

}  // namespace relayout
