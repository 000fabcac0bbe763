// A small wavefront ray tracer (spheres, mirror bounces, a directional light with shadows),
// checked against the same tracer run on the CPU.
// usage: raytrace [width] [height] [spheres] [bounces]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tracer.cuh"

#define CUDA_TRY(expr)                                                                                  \
  do {                                                                                                  \
    cudaError_t e = (expr);                                                                             \
    if (e != cudaSuccess) {                                                                             \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e)); \
      std::exit(2);                                                                                     \
    }                                                                                                   \
  } while (0)

static unsigned int g_seed = 20240611u;
static float frand() {
  g_seed = g_seed * 747796405u + 2891336453u;
  unsigned int word = ((g_seed >> ((g_seed >> 28u) + 4u)) ^ g_seed) * 277803737u;
  return ((word >> 22u) ^ word) / 4294967296.0f;
}

static void buildScene(std::vector<Sphere>& spheres, Material (&materials)[kMaxMaterials], int count) {
  for (int m = 0; m < kMaxMaterials; ++m) {
    materials[m].albedo = make_float3(0.2f + 0.8f * frand(), 0.2f + 0.8f * frand(), 0.2f + 0.8f * frand());
    materials[m].emission = make_float3(0.0f, 0.0f, 0.0f);
    materials[m].reflectivity = m % 3 == 0 ? 0.8f : 0.1f * frand();
    materials[m].shininess = 8.0f + 56.0f * frand();
  }
  materials[kMaxMaterials - 1].emission = make_float3(2.0f, 1.6f, 1.0f);  // a few glowing spheres
  spheres.push_back({make_float3(0.0f, -100.0f, 0.0f), 100.0f, 1});       // the ground
  int side = 1;
  while (side * side < count) ++side;
  for (int k = 0; spheres.size() < static_cast<size_t>(count) + 1; ++k) {
    float x = -8.0f + 16.0f * ((k % side) + 0.2f + 0.6f * frand()) / side;
    float z = -8.0f + 16.0f * ((k / side) + 0.2f + 0.6f * frand()) / side;
    float r = std::min(0.15f + 0.25f * frand(), 6.0f / side);
    spheres.push_back({make_float3(x, r, z), r, static_cast<int>(frand() * kMaxMaterials) % kMaxMaterials});
  }
}

static Camera makeCamera(int width, int height) {
  Camera cam;
  cam.eye = make_float3(0.0f, 3.0f, -12.0f);
  cam.forward = normalize(make_float3(0.0f, 0.5f, 0.0f) - cam.eye);
  cam.right = normalize(cross(make_float3(0.0f, 1.0f, 0.0f), cam.forward));
  cam.up = cross(cam.forward, cam.right);
  cam.tanHalfFov = 0.6f;
  cam.width = width;
  cam.height = height;
  return cam;
}

// The CPU reference: the same bounces, in the same order, through the same host/device functions.
static void renderOnHost(const Camera& cam, const std::vector<Sphere>& spheres, const Material* materials, int bounces,
                         float3 toLight, std::vector<float3>& radiance) {
  const int n = cam.width * cam.height;
  const int count = static_cast<int>(spheres.size());
  std::vector<Ray> rays(n);
  std::vector<Hit> hits(n);
  radiance.assign(n, make_float3(0.0f, 0.0f, 0.0f));
  for (int y = 0; y < cam.height; ++y)
    for (int x = 0; x < cam.width; ++x) rays[y * cam.width + x] = primaryRay(cam, x, y);
  for (int b = 0; b <= bounces; ++b)
    for (int i = 0; i < n; ++i) {
      closestHit(rays[i], spheres.data(), count, &hits[i]);
      if (b == 0) shadeBounce<Phong>(rays[i], hits[i], spheres.data(), count, materials, toLight, radiance.data());
      else shadeBounce<Lambert>(rays[i], hits[i], spheres.data(), count, materials, toLight, radiance.data());
    }
}

int main(int argc, char** argv) {
  const int width = argc > 1 ? std::atoi(argv[1]) : 640;
  const int height = argc > 2 ? std::atoi(argv[2]) : 480;
  const int sphereCount = argc > 3 ? std::atoi(argv[3]) : 64;
  const int bounces = argc > 4 ? std::atoi(argv[4]) : 3;
  if (width < 1 || height < 1 || sphereCount < 1 || bounces < 0) {
    std::fprintf(stderr, "usage: %s [width] [height] [spheres] [bounces]\n", argv[0]);
    return 2;
  }
  const int n = width * height;
  std::vector<Sphere> spheres;
  Material materials[kMaxMaterials];
  buildScene(spheres, materials, sphereCount);
  const int count = static_cast<int>(spheres.size());
  const Camera cam = makeCamera(width, height);
  const float3 toLight = normalize(make_float3(1.0f, 2.0f, -0.5f));

  cudaStream_t stream;
  CUDA_TRY(cudaStreamCreate(&stream));
  Sphere* dSpheres;
  Ray* dRays;
  Hit* dHits;
  float3* dRadiance;
  uchar4* dPixels;
  CUDA_TRY(cudaMalloc(&dSpheres, sizeof(Sphere) * count));
  CUDA_TRY(cudaMalloc(&dRays, sizeof(Ray) * n));
  CUDA_TRY(cudaMalloc(&dHits, sizeof(Hit) * n));
  CUDA_TRY(cudaMalloc(&dRadiance, sizeof(float3) * n));
  CUDA_TRY(cudaMalloc(&dPixels, sizeof(uchar4) * n));
  float3* hRadiance;
  uchar4* hPixels;
  CUDA_TRY(cudaMallocHost(&hRadiance, sizeof(float3) * n));
  CUDA_TRY(cudaMallocHost(&hPixels, sizeof(uchar4) * n));
  CUDA_TRY(cudaMemcpyToSymbolAsync(c_materials, materials, sizeof(materials), 0, cudaMemcpyHostToDevice, stream));
  CUDA_TRY(cudaMemcpyAsync(dSpheres, spheres.data(), sizeof(Sphere) * count, cudaMemcpyHostToDevice, stream));

  cudaEvent_t start, stop;
  CUDA_TRY(cudaEventCreate(&start));
  CUDA_TRY(cudaEventCreate(&stop));
  CUDA_TRY(cudaEventRecord(start, stream));
  dim3 tile(16, 16), grid((width + 15) / 16, (height + 15) / 16);
  generateRays<<<grid, tile, 0, stream>>>(cam, dRays, dRadiance);
  const int threads = 256, blocks = (n + threads - 1) / threads;
  for (int b = 0; b <= bounces; ++b) {
    traceRays<<<blocks, threads, 0, stream>>>(dRays, n, dSpheres, count, dHits);
    if (b == 0)  // highlights on what the eye sees directly; the mirror bounces stay diffuse
      shadeRays<Phong><<<blocks, threads, 0, stream>>>(dRays, dHits, n, dSpheres, count, toLight, dRadiance);
    else shadeRays<Lambert><<<blocks, threads, 0, stream>>>(dRays, dHits, n, dSpheres, count, toLight, dRadiance);
  }
  toneMap<<<blocks, threads, 0, stream>>>(dRadiance, n, dPixels);
  CUDA_TRY(cudaGetLastError());
  CUDA_TRY(cudaEventRecord(stop, stream));
  CUDA_TRY(cudaMemcpyAsync(hRadiance, dRadiance, sizeof(float3) * n, cudaMemcpyDeviceToHost, stream));
  CUDA_TRY(cudaMemcpyAsync(hPixels, dPixels, sizeof(uchar4) * n, cudaMemcpyDeviceToHost, stream));
  CUDA_TRY(cudaStreamSynchronize(stream));
  float ms = 0.0f;
  CUDA_TRY(cudaEventElapsedTime(&ms, start, stop));

  std::vector<float3> reference;
  renderOnHost(cam, spheres, materials, bounces, toLight, reference);

  // Rays that graze a silhouette or a shadow edge may go either way on either side; those pixels
  // differ a lot, the others hardly. Allow a few of the former and a small mean difference.
  double sum[3] = {0, 0, 0}, meanDiff = 0.0;
  long long pixelSum = 0;
  int outliers = 0;
  for (int i = 0; i < n; ++i) {
    float3 g = hRadiance[i], c = reference[i];
    sum[0] += g.x;
    sum[1] += g.y;
    sum[2] += g.z;
    float d = std::max(std::fabs(g.x - c.x), std::max(std::fabs(g.y - c.y), std::fabs(g.z - c.z)));
    meanDiff += d;
    if (d > 1e-2f) ++outliers;
    pixelSum += hPixels[i].x + hPixels[i].y + hPixels[i].z;
  }
  meanDiff /= n;
  std::printf("%dx%d pixels, %d spheres, %d bounces, GPU %.3f ms\n", width, height, count, bounces, ms);
  std::printf("mean radiance %.5f %.5f %.5f, 8-bit checksum %lld\n", sum[0] / n, sum[1] / n, sum[2] / n, pixelSum);
  std::printf("mean |GPU - CPU| %.3e, pixels off by more than 1e-2: %d\n", meanDiff, outliers);
  bool passed = meanDiff < 1e-3 && outliers <= n / 200;
  std::printf("%s (mean difference < 1e-3, at most 0.5%% of pixels off by > 1e-2)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED");

  cudaFreeHost(hPixels);
  cudaFreeHost(hRadiance);
  cudaFree(dPixels);
  cudaFree(dRadiance);
  cudaFree(dHits);
  cudaFree(dRays);
  cudaFree(dSpheres);
  cudaStreamDestroy(stream);
  return passed ? 0 : 1;
}
