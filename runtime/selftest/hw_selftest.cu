// GPU self-test of `relayout profile --hw` (RELAYOUT_HW=1): an AoS read of 4 bytes of a 32-byte
// struct per lane and a SoA-like read of a float array, both hooked like instrumented code. The
// profile's hw object must show 8x the ideal sectors on the AoS line and 1x on the SoA line, the
// runtime's own instructions left out, and relayout's counters must agree with the hardware.
// Run it on a GPU machine: ./relayout_hw_selftest (it re-runs itself with RELAYOUT_HW=1 when unset);
// prints PASS/FAIL per check and exits 1 on any failure.
#define RELAYOUT_UNIT_SOURCE "hw_selftest.cu"
#define RELAYOUT_UNIT_SHA256 "0000000000000000000000000000000000000000000000000000000000000003"
#define RELAYOUT_NUM_SITES 2
#define RELAYOUT_BLOCK_PERIOD 1
#include "relayout/rt.cuh"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

// hw_selftest_check.cpp (host compiler: it reads the profile with nlohmann::json).
int checkHwProfile(const char* path, const char* sourceName, int aosLine, int soaLine, unsigned long long warps,
                   const unsigned long long* toolCounters);

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

int main(int, char** argv) {
  const char* profile = "hw_selftest.profile.json";
  // The runtime reads RELAYOUT_HW when the program starts: set it and start again.
  if (!std::getenv("RELAYOUT_HW")) {
    setenv("RELAYOUT_HW", "1", 1);
    setenv("RELAYOUT_PROFILE", profile, 0);
    execv("/proc/self/exe", argv);
    std::printf("FAIL cannot re-run itself with RELAYOUT_HW=1\n");
    return 1;
  }
  setenv("RELAYOUT_PROFILE", profile, 0);
  const char* path = std::getenv("RELAYOUT_PROFILE");
  std::remove(path);

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
  const int failures = checkHwProfile(path, "hw_selftest.cu", kAosLine, kSoaLine, n / 32, counters);
  std::printf(failures ? "FAIL hw self-test: %d checks failed\n" : "PASS hw self-test\n", failures);
  return failures ? 1 : 0;
}
