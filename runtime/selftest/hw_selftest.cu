// GPU self-test of `relayout profile --hw` (RELAYOUT_HW=1): an AoS read of 4 bytes of a 32-byte
// struct per lane and a SoA-like read of a float array, both hooked like instrumented code. The
// profile's hw object must show 8x the ideal sectors on the AoS line and 1x on the SoA line, the
// runtime's own instructions left out, and relayout's counters must agree with the hardware.
// Run it on a GPU machine: ./relayout_hw_selftest. CUPTI patches one kernel per run, so it runs
// itself twice with RELAYOUT_HW=1, RELAYOUT_HW_KERNEL naming aosRead and then soaRead, as
// `relayout profile --hw` does; prints PASS/FAIL per check and exits 1 on any failure.
#define RELAYOUT_UNIT_SOURCE "hw_selftest.cu"
#define RELAYOUT_UNIT_SHA256 "0000000000000000000000000000000000000000000000000000000000000003"
#define RELAYOUT_NUM_SITES 2
#define RELAYOUT_BLOCK_PERIOD 1
#include "relayout/rt.cuh"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// hw_selftest_check.cpp (host compiler: it reads the profile with nlohmann::json).
int checkHwProfile(const char* path, const char* sourceName, int aosLine, int soaLine, unsigned long long warps,
                   const unsigned long long* toolCounters, bool checkAos, bool checkSoa);

constexpr const char* kAosKernel = "_Z7aosReadPK3RecPfi";
constexpr const char* kSoaKernel = "_Z7soaReadPKfPfi";

struct Rec {
  float x, y, z, vx, vy, vz, m, pad;
};
static_assert(sizeof(Rec) == 32, "the AoS element is 32 bytes");

// Each kernel's load stands alone on the line 4 below its k...Line constant: keep it so.
constexpr int kAosLine = __LINE__ + 4;
__global__ void aosRead(const Rec* p, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = *__rl_site(0, &p[i].x);
  out[i] = v * 2.0f;
}

constexpr int kSoaLine = __LINE__ + 4;
__global__ void soaRead(const float* xs, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = *__rl_site(1, &xs[i]);
  out[i] = v * 2.0f;
}

#define CK(call)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_));                         \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

// Runs this program again with RELAYOUT_HW=1 and RELAYOUT_HW_KERNEL=kernel (the runtime reads
// them when the program starts); true when that run passed.
static bool runFor(char** argv, const char* kernel, const std::string& profile) {
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    setenv("RELAYOUT_HW", "1", 1);
    setenv("RELAYOUT_HW_KERNEL", kernel, 1);
    setenv("RELAYOUT_PROFILE", profile.c_str(), 1);
    execv("/proc/self/exe", argv);
    std::printf("FAIL cannot re-run itself with RELAYOUT_HW=1\n");
    std::_Exit(1);
  }
  int status = 0;
  return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int, char** argv) {
  if (!std::getenv("RELAYOUT_HW")) {
    // Profiles beside the one asked for (RELAYOUT_PROFILE), one per kernel.
    const char* asked = std::getenv("RELAYOUT_PROFILE");
    std::string base = asked ? asked : "hw_selftest.profile.json";
    if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0) base.resize(base.size() - 5);
    const bool aosOk = runFor(argv, kAosKernel, base + ".aos.json");
    const bool soaOk = runFor(argv, kSoaKernel, base + ".soa.json");
    std::printf(aosOk && soaOk ? "PASS hw self-test\n" : "FAIL hw self-test: %s\n",
                aosOk ? "the soaRead run failed" : soaOk ? "the aosRead run failed" : "both runs failed");
    return aosOk && soaOk ? 0 : 1;
  }
  const char* path = std::getenv("RELAYOUT_PROFILE");
  if (!path) return std::printf("FAIL RELAYOUT_PROFILE is not set\n"), 1;
  std::remove(path);
  const char* kernel = std::getenv("RELAYOUT_HW_KERNEL");
  const bool aosRun = !kernel || std::strcmp(kernel, kAosKernel) == 0;
  const bool soaRun = !kernel || std::strcmp(kernel, kSoaKernel) == 0;

  const int n = 1 << 22, block = 256;
  Rec* aos = nullptr;
  float *xs = nullptr, *out = nullptr;
  CK(cudaMalloc(&aos, size_t(n) * sizeof(Rec)));
  CK(cudaMalloc(&xs, size_t(n) * sizeof(float)));
  CK(cudaMalloc(&out, size_t(n) * sizeof(float)));
  CK(cudaMemset(aos, 0, size_t(n) * sizeof(Rec)));
  CK(cudaMemset(xs, 0, size_t(n) * sizeof(float)));
  aosRead<<<n / block, block>>>(aos, out, n);
  soaRead<<<n / block, block>>>(xs, out, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned long long counters[RELAYOUT_NUM_SITES * 6] = {};
  CK(cudaError_t(__rl_fetch(counters, RELAYOUT_NUM_SITES)));
  cudaFree(aos);
  cudaFree(xs);
  cudaFree(out);
  // The runtime writes the profile (with the hw object) when the device is reset.
  CK(cudaDeviceReset());
  const int failures = checkHwProfile(path, "hw_selftest.cu", kAosLine, kSoaLine, n / 32, counters, aosRun, soaRun);
  std::printf(failures ? "FAIL hw self-test run for %s: %d checks failed\n" : "PASS hw self-test run for %s\n",
              kernel ? kernel : "both kernels", failures);
  return failures ? 1 : 0;
}
