// Animates a twisting torus given as an STL-style triangle soup: each frame poses every facet of the
// rest mesh (corners twisted, normal recomputed) and sums the posed mesh's area, volume and centroid.
// usage: mesh_deform [ring segments = 2048] [tube segments = 512] [frames = 1200]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mesh.h"
#include "mesh_kernels.cuh"

#define CHECK(call)                                                                                              \
  do {                                                                                                           \
    const cudaError_t status_ = (call);                                                                          \
    if (status_ != cudaSuccess) {                                                                                \
      std::fprintf(stderr, "mesh_deform: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__,                  \
                   cudaGetErrorString(status_));                                                                 \
      std::exit(2);                                                                                              \
    }                                                                                                            \
  } while (0)

namespace {

struct ReferenceMoments {
  double area = 0, volume = 0, mx = 0, my = 0, mz = 0;
};

ReferenceMoments referenceMoments(const std::vector<Facet>& facets) {
  ReferenceMoments m;
  for (const Facet& f : facets) {
    const double ax = f.a.x, ay = f.a.y, az = f.a.z, bx = f.b.x, by = f.b.y, bz = f.b.z, cx = f.c.x, cy = f.c.y,
                 cz = f.c.z;
    const double ex = bx - ax, ey = by - ay, ez = bz - az, gx = cx - ax, gy = cy - ay, gz = cz - az;
    const double nx = ey * gz - ez * gy, ny = ez * gx - ex * gz, nz = ex * gy - ey * gx;
    m.area += 0.5 * std::sqrt(nx * nx + ny * ny + nz * nz);
    const double volume = (ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx)) / 6.0;
    m.volume += volume;
    m.mx += 0.25 * volume * (ax + bx + cx);
    m.my += 0.25 * volume * (ay + by + cy);
    m.mz += 0.25 * volume * (az + bz + cz);
  }
  return m;
}

float maxDifference(float3 p, float3 q) {
  return std::max({std::fabs(p.x - q.x), std::fabs(p.y - q.y), std::fabs(p.z - q.z)});
}

}  // namespace

int main(int argc, char** argv) {
  const int u = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int v = argc > 2 ? std::atoi(argv[2]) : 512;
  const int frames = argc > 3 ? std::atoi(argv[3]) : 1200;
  if (u < 8 || v < 8 || frames < 1 || size_t(2) * u * v > size_t(1) << 30) {
    std::fprintf(stderr, "usage: %s [ring segments >= 8] [tube segments >= 8] [frames >= 1]\n", argv[0]);
    return 2;
  }
  const std::vector<Facet> rest = makeTorus(u, v, 1.f, 0.35f);
  const int n = int(rest.size());
  const int blocks = (n + kMomentThreads - 1) / kMomentThreads;

  Facet *d_rest = nullptr, *d_posed = nullptr;
  Moments *d_partial = nullptr, *d_frames = nullptr;
  CHECK(cudaMalloc(&d_rest, sizeof(Facet) * n));
  CHECK(cudaMalloc(&d_posed, sizeof(Facet) * n));
  CHECK(cudaMalloc(&d_partial, sizeof(Moments) * blocks));
  CHECK(cudaMalloc(&d_frames, sizeof(Moments) * (frames + 1)));
  CHECK(cudaMemcpy(d_rest, rest.data(), sizeof(Facet) * n, cudaMemcpyHostToDevice));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  // Entry `frames` holds the rest mesh's moments.
  facetMoments<kMomentThreads><<<blocks, kMomentThreads>>>(d_rest, n, d_partial);
  frameMoments<<<1, kMomentThreads>>>(d_partial, blocks, d_frames + frames);
  for (int frame = 0; frame < frames; ++frame) {
    poseMesh<<<blocks, kMomentThreads>>>(d_rest, d_posed, n, twistForFrame(frame, frames));
    facetMoments<kMomentThreads><<<blocks, kMomentThreads>>>(d_posed, n, d_partial);
    frameMoments<<<1, kMomentThreads>>>(d_partial, blocks, d_frames + frame);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<Moments> moments(frames + 1);
  std::vector<Facet> posed(n);
  CHECK(cudaMemcpy(moments.data(), d_frames, sizeof(Moments) * (frames + 1), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(posed.data(), d_posed, sizeof(Facet) * n, cudaMemcpyDeviceToHost));

  // The last frame's posed facets (every 127th) against the CPU, and its moments against a double sum.
  const Twist last = twistForFrame(frames - 1, frames);
  int wrongFacets = 0;
  float maxCorner = 0, maxNormal = 0;
  for (int i = 0; i < n; i += 127) {
    const Facet& r = rest[i];
    const Facet expect = makeFacet(last.apply(r.a), last.apply(r.b), last.apply(r.c));
    const Facet& got = posed[i];
    const float corner =
        std::max({maxDifference(got.a, expect.a), maxDifference(got.b, expect.b), maxDifference(got.c, expect.c)});
    const float normal = maxDifference(got.normal, expect.normal);
    maxCorner = std::max(maxCorner, corner);
    maxNormal = std::max(maxNormal, normal);
    if (!(corner <= 1e-5f) || !(normal <= 2e-3f)) ++wrongFacets;
  }
  const ReferenceMoments ref = referenceMoments(posed);
  const Moments& g = moments[frames - 1];
  const double areaErr = std::fabs(g.area - ref.area) / ref.area;
  const double volumeErr = std::fabs(g.volume - ref.volume) / std::fabs(ref.volume);
  const double centroidErr = std::max({std::fabs(g.moment.x / g.volume - ref.mx / ref.volume),
                                       std::fabs(g.moment.y / g.volume - ref.my / ref.volume),
                                       std::fabs(g.moment.z / g.volume - ref.mz / ref.volume)});

  float minVolume = moments[0].volume, maxVolume = moments[0].volume;
  for (int f = 0; f < frames; ++f) {
    minVolume = std::min(minVolume, moments[f].volume);
    maxVolume = std::max(maxVolume, moments[f].volume);
  }
  const Moments& r0 = moments[frames];
  std::printf("facets %d (%d x %d quads), %d frames\n", n, u, v, frames);
  std::printf("kernel time %.1f ms\n", ms);
  std::printf("rest mesh: area %.5f volume %.5f (torus %.5f)\n", r0.area, r0.volume, 2 * M_PI * M_PI * 0.35 * 0.35);
  std::printf("posed volume over the frames: %.6f to %.6f\n", minVolume, maxVolume);
  for (int f : {0, frames / 2, frames - 1})
    std::printf("frame %d: area %.5f volume %.5f centroid %.5f %.5f %.5f\n", f, moments[f].area, moments[f].volume,
                moments[f].moment.x / moments[f].volume, moments[f].moment.y / moments[f].volume,
                moments[f].moment.z / moments[f].volume);
  std::printf("last frame against the CPU: corners %.1e, normals %.1e, %d facets differ; area %.1e volume %.1e "
              "centroid %.1e\n",
              maxCorner, maxNormal, wrongFacets, areaErr, volumeErr, centroidErr);
  const bool passed = wrongFacets == 0 && areaErr < 1e-4 && volumeErr < 1e-4 && centroidErr < 1e-4;
  std::printf("%s (every 127th facet: corners within 1e-5, normals 2e-3; area and volume within a relative 1e-4, "
              "centroid 1e-4)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED");

  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  cudaFree(d_frames);
  cudaFree(d_partial);
  cudaFree(d_posed);
  cudaFree(d_rest);
  return passed ? 0 : 1;
}
