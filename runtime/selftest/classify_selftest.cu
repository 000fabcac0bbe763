// GPU self-test of the device hooks: warps run hand-made address patterns through __rl_site and
// the counters must equal the host reference classifyWarp (warp_classify.h) summed over the same
// warps. Prints PASS/FAIL per pattern; exits 1 on any FAIL. Needs a GPU (sm_90).
#define RELAYOUT_UNIT_SOURCE "classify_selftest.cu"
#define RELAYOUT_UNIT_SHA256 "0000000000000000000000000000000000000000000000000000000000000001"
#define RELAYOUT_NUM_SITES 20
#define RELAYOUT_BLOCK_PERIOD 1
#include "relayout/rt.cuh"
#include "relayout/rt_host.h"
#include "relayout/warp_classify.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using relayout::rt::WarpCounters;

int runPeriodSelftest();  // period_selftest.cu: block sampling, and a second unit in one program

static const char* const kColumnNames[] = {"warp_execs", "lane_execs", "sectors", "lines", "near_lanes", "shared_warps"};

#define CK(call)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (call);                                                              \
    if (e_ != cudaSuccess) {                                                              \
      std::printf("FAIL: %s: %s\n", #call, cudaGetErrorString(e_));                       \
      std::exit(1);                                                                       \
    }                                                                                     \
  } while (0)

// Lane l of warp w reads base + off[w*32 + l] if bit l of mask[w] is set. Warps are numbered by
// linear block id, then linear thread id / 32, which is how CUDA forms warps.
__global__ void patternKernel(const unsigned long long* off, const unsigned* mask, const char* base,
                              float* sink, unsigned site, int deref) {
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned w = b * ((threads + 31) / 32) + t / 32, lane = t % 32;
  float v = 0;
  if (mask[w] >> lane & 1u) {  // divergence gives the hook a partial active mask
    const float* p = __rl_site(site, reinterpret_cast<const float*>(base + off[w * 32 + lane]));
    if (deref) v = *p;
  }
  sink[b * threads + t] = v;
}

struct Pattern {
  std::string name;
  dim3 grid, block;
  bool deref;  // false for addresses outside the buffer: only classified, never read
  // offset of (global thread id, block-local coordinates); lanes for which `on` is false skip the hook
  std::function<uint64_t(unsigned gid, dim3 blk, dim3 thr)> offset;
  std::function<bool(unsigned warp, unsigned lane)> on;
};

static uint32_t lcg(uint32_t& s) { return s = s * 1664525u + 1013904223u; }

static bool runPattern(unsigned site, const Pattern& pat, char* dBase, size_t bufBytes) {
  const unsigned threads = pat.block.x * pat.block.y * pat.block.z;
  const unsigned blocks = pat.grid.x * pat.grid.y * pat.grid.z, wpb = (threads + 31) / 32;
  std::vector<unsigned long long> off(size_t(blocks) * wpb * 32, 0);
  std::vector<unsigned> mask(size_t(blocks) * wpb, 0);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < threads; ++t) {
      dim3 blk(b % pat.grid.x, b / pat.grid.x % pat.grid.y, b / (pat.grid.x * pat.grid.y));
      dim3 thr(t % pat.block.x, t / pat.block.x % pat.block.y, t / (pat.block.x * pat.block.y));
      unsigned w = b * wpb + t / 32, lane = t % 32;
      off[w * 32 + lane] = pat.offset(b * threads + t, blk, thr);
      if (pat.deref && off[w * 32 + lane] + 4 > bufBytes) {
        std::printf("FAIL %s: pattern leaves the buffer\n", pat.name.c_str());
        return false;
      }
      if (pat.on(w, lane)) mask[w] |= 1u << lane;
    }
  // Expected: the reference on the same absolute addresses, summed over warps.
  uint64_t expect[6] = {};
  for (size_t w = 0; w < mask.size(); ++w) {
    uint64_t addr[32];
    for (unsigned l = 0; l < 32; ++l) addr[l] = reinterpret_cast<uint64_t>(dBase) + off[w * 32 + l];
    WarpCounters c = relayout::rt::classifyWarp(addr, mask[w]);
    for (unsigned k = 0; k < 6; ++k) expect[k] += c.column(k);
  }
  unsigned long long *dOff;
  unsigned* dMask;
  float* dSink;
  CK(cudaMalloc(&dOff, off.size() * sizeof off[0]));
  CK(cudaMalloc(&dMask, mask.size() * sizeof mask[0]));
  CK(cudaMalloc(&dSink, size_t(blocks) * threads * sizeof(float)));
  CK(cudaMemcpy(dOff, off.data(), off.size() * sizeof off[0], cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dMask, mask.data(), mask.size() * sizeof mask[0], cudaMemcpyHostToDevice));
  patternKernel<<<pat.grid, pat.block>>>(dOff, dMask, dBase, dSink, site, pat.deref);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<unsigned long long> got(RELAYOUT_NUM_SITES * 6);
  CK(cudaError_t(__rl_fetch(got.data(), RELAYOUT_NUM_SITES)));
  CK(cudaFree(dOff));
  CK(cudaFree(dMask));
  CK(cudaFree(dSink));
  bool ok = true;
  for (unsigned k = 0; k < 6; ++k)
    if (got[site * 6 + k] != expect[k]) {
      std::printf("FAIL %s: %s = %llu, reference %llu\n", pat.name.c_str(), kColumnNames[k],
                  got[site * 6 + k], (unsigned long long)expect[k]);
      ok = false;
    }
  if (ok)
    std::printf("PASS %s (warps %llu, lanes %llu, sectors %llu, lines %llu, near %llu, shared %llu)\n",
                pat.name.c_str(), (unsigned long long)expect[0], (unsigned long long)expect[1],
                (unsigned long long)expect[2], (unsigned long long)expect[3],
                (unsigned long long)expect[4], (unsigned long long)expect[5]);
  return ok;
}

int main() {
  setenv("RELAYOUT_PROFILE", "classify_selftest.profile.json", 0);  // keep the user's profile
  const size_t bufBytes = 4 << 20;
  char* dBase;
  CK(cudaMalloc(&dBase, bufBytes));
  CK(cudaMemset(dBase, 0, bufBytes));
  auto all = [](unsigned, unsigned) { return true; };
  const dim3 g4(4), b128(128);
  std::vector<Pattern> patterns = {
      {"coalesced stride 4", g4, b128, true, [](unsigned i, dim3, dim3) { return 4ull * i; }, all},
      {"struct stride 32, field at 12", g4, b128, true, [](unsigned i, dim3, dim3) { return 32ull * i + 12; }, all},
      {"all lanes one address", g4, b128, true, [](unsigned, dim3, dim3) { return 64ull; }, all},
      {"random 4-byte aligned", g4, b128, true,
       [s = 12345u](unsigned, dim3, dim3) mutable { return 4ull * (lcg(s) >> 13); }, all},
      {"divergent half warps, stride 4", g4, b128, true, [](unsigned i, dim3, dim3) { return 4ull * i; },
       [](unsigned w, unsigned l) { return w % 2 ? (l % 8) < 4 : l < 16; }},
      {"divergent random masks, stride 8", g4, b128, true, [](unsigned i, dim3, dim3) { return 8ull * i; },
       [s = 777u](unsigned, unsigned) mutable { return (lcg(s) >> 16) % 3 != 0; }},
      {"2D block 12x8, struct rows", dim3(2, 3), dim3(12, 8), true,
       [](unsigned, dim3 b, dim3 t) { return 32ull * ((b.y * 8 + t.y) * 24 + b.x * 12 + t.x) + 4; }, all},
      {"3D block 5x3x3 (partial warp), descending", dim3(3), dim3(5, 3, 3), true,
       [](unsigned i, dim3, dim3) { return 4ull * (4096 - i); }, all},
      {"pairs of lanes share", g4, b128, true, [](unsigned i, dim3, dim3) { return 8ull * (i / 2); }, all},
      {"float3 stride 12", g4, b128, true, [](unsigned i, dim3, dim3) { return 12ull * i; }, all},
      {"stride 128 (window edge)", g4, b128, true, [](unsigned i, dim3, dim3) { return 128ull * i; }, all},
      {"stride 129, not read", g4, b128, false, [](unsigned i, dim3, dim3) { return 129ull * i; }, all},
      {"descending struct stride 32", g4, b128, true, [](unsigned i, dim3, dim3) { return 32ull * (600 - i); }, all},
      {"stride 4 but the last lane elsewhere", g4, b128, true,
       [](unsigned i, dim3, dim3) { return i % 32 == 31 ? 8192ull + 4 * i : 4ull * i; }, all},
      {"stride 256 (lines apart)", g4, b128, true, [](unsigned i, dim3, dim3) { return 256ull * i; }, all},
      {"stride 200 (adjacent lines, none near)", g4, b128, true, [](unsigned i, dim3, dim3) { return 200ull * i; }, all},
      {"random pairs of lanes 8 bytes apart", g4, b128, true,
       [s = 99u, last = 0ull](unsigned i, dim3, dim3) mutable {
         return i % 2 ? last + 8 : (last = 4ull * (lcg(s) >> 14));
       }, all},
      {"lanes 8 GiB apart, not read", g4, b128, false,
       [](unsigned i, dim3, dim3) { return (uint64_t(i % 32) << 33) + 4ull * (i / 32); }, all},
  };
  bool ok = true;
  for (unsigned s = 0; s < patterns.size(); ++s) ok = runPattern(s, patterns[s], dBase, bufBytes) && ok;
  ok = runPeriodSelftest() == 0 && ok;
  const size_t units = relayout::rt::registeredUnits().size();
  if (units != 2) {
    std::printf("FAIL registration: %zu units registered, expected 2\n", units);
    ok = false;
  } else {
    std::printf("PASS registration of 2 units\n");
  }
  CK(cudaFree(dBase));
  std::printf("%s\n", ok ? "ALL PASS" : "SOME FAILED");
  return ok ? 0 : 1;
}
