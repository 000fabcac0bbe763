/* Edge-preserving smoothing and sharpening of a synthetic RGBA float image:
 * bilateral filter, separable Gaussian blur, unsharp mask, 8-bit conversion.
 * usage: image_filter [width] [height] */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "filters.cuh"
#include "pixel.h"

#define CHECK_CUDA(call)                                                                         \
  do {                                                                                           \
    cudaError_t err = (call);                                                                    \
    if (err != cudaSuccess) {                                                                    \
      fprintf(stderr, "CUDA error at %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err)); \
      exit(2);                                                                                   \
    }                                                                                            \
  } while (0)

static float noise(unsigned int x, unsigned int y) {
  unsigned int h = x * 374761393u + y * 668265263u;
  h = (h ^ (h >> 13)) * 1274126177u;
  return ((h ^ (h >> 16)) & 0xffff) / 65535.0f - 0.5f;
}

/* Gradients, a few flat discs with sharp edges, and some grain. */
static void makeImage(RGBA* image, int width, int height) {
  const float discs[4][5] = {{0.25f, 0.3f, 0.15f, 0.9f, 0.2f},
                             {0.7f, 0.4f, 0.2f, 0.1f, 0.8f},
                             {0.5f, 0.75f, 0.12f, 0.95f, 0.95f},
                             {0.85f, 0.8f, 0.08f, 0.2f, 0.3f}};
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float u = (float)x / width, v = (float)y / height;
      RGBA p = {u, v, 0.5f + 0.5f * sinf(12.0f * u * v), 1.0f};
      for (int d = 0; d < 4; ++d) {
        float du = u - discs[d][0], dv = v - discs[d][1];
        if (du * du + dv * dv < discs[d][2] * discs[d][2]) {
          p.r = discs[d][3];
          p.g = discs[d][4];
          p.b = 0.5f * (discs[d][3] + discs[d][4]);
        }
      }
      float grain = 0.05f * noise(x, y);
      p.r = saturate(p.r + grain);
      p.g = saturate(p.g + grain);
      p.b = saturate(p.b + grain);
      image[y * width + x] = p;
    }
}

int main(int argc, char** argv) {
  int width = argc > 1 ? atoi(argv[1]) : 1920;
  int height = argc > 2 ? atoi(argv[2]) : 1080;
  if (width < 1 || height < 1) {
    fprintf(stderr, "usage: %s [width] [height]\n", argv[0]);
    return 2;
  }
  const int count = width * height;
  const size_t bytes = (size_t)count * sizeof(RGBA);
  FilterParams params = makeFilterParams(4, 2);
  CHECK_CUDA(cudaMemcpyToSymbol(c_params, &params, sizeof(FilterParams)));

  RGBA* hostImage;
  RGBA* hostResult;
  uchar4* hostBytes;
  CHECK_CUDA(cudaMallocHost((void**)&hostImage, bytes));
  CHECK_CUDA(cudaMallocHost((void**)&hostResult, bytes));
  CHECK_CUDA(cudaMallocHost((void**)&hostBytes, count * sizeof(uchar4)));
  makeImage(hostImage, width, height);

  /* One device pool holds the five images: source, smoothed, row-blurred, blurred, result. */
  char* pool;
  uchar4* bytes8;
  CHECK_CUDA(cudaMalloc((void**)&pool, 5 * bytes));
  CHECK_CUDA(cudaMalloc((void**)&bytes8, count * sizeof(uchar4)));
  char* source = pool;
  char* smooth = pool + bytes;
  char* rows = pool + 2 * bytes;
  char* blurred = pool + 3 * bytes;
  char* result = pool + 4 * bytes;

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaMemcpyAsync(source, hostImage, bytes, cudaMemcpyHostToDevice, stream));
  CHECK_CUDA(cudaEventRecord(start, stream));
  dim3 block(32, 8), grid((width + 31) / 32, (height + 7) / 8);
  bilateralFilter<<<grid, block, 0, stream>>>((const RGBA*)source, (RGBA*)smooth, width, height);
  gaussianPass<true><<<grid, block, 0, stream>>>((const RGBA*)smooth, (RGBA*)rows, width, height);
  gaussianPass<false><<<grid, block, 0, stream>>>((const RGBA*)rows, (RGBA*)blurred, width, height);
  unsharpMask<<<(count + 255) / 256, 256, 0, stream>>>((const RGBA*)smooth, (const RGBA*)blurred, count, (RGBA*)result);
  toRgba8<<<(count + 255) / 256, 256, 0, stream>>>((const RGBA*)result, count, bytes8);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaMemcpyAsync(hostResult, result, bytes, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaMemcpyAsync(hostBytes, bytes8, count * sizeof(uchar4), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  float ms = 0.0f;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));

  RGBA* reference = (RGBA*)malloc(bytes);
  referencePipeline(hostImage, width, height, &params, reference);
  double mean[4] = {0, 0, 0, 0}, maxErr = 0.0;
  unsigned long long byteSum = 0;
  for (int i = 0; i < count; ++i) {
    const RGBA& g = hostResult[i];
    const RGBA& c = reference[i];
    mean[0] += g.r;
    mean[1] += g.g;
    mean[2] += g.b;
    mean[3] += g.a;
    maxErr = fmax(maxErr, fmax(fmax(fabs(g.r - c.r), fabs(g.g - c.g)), fmax(fabs(g.b - c.b), fabs(g.a - c.a))));
    byteSum += hostBytes[i].x + hostBytes[i].y + hostBytes[i].z + hostBytes[i].w;
  }
  printf("%dx%d RGBA float image, GPU %.3f ms\n", width, height, ms);
  printf("mean r %.5f g %.5f b %.5f a %.5f, 8-bit sum %llu\n", mean[0] / count, mean[1] / count, mean[2] / count,
         mean[3] / count, byteSum);
  printf("max |GPU - CPU| %.3e\n", maxErr);
  int passed = maxErr < 1e-4;
  printf("%s (every channel of every pixel within 1e-4 of the CPU)\n", passed ? "CHECK PASSED" : "CHECK FAILED");

  free(reference);
  cudaFree(bytes8);
  cudaFree(pool);
  cudaFreeHost(hostBytes);
  cudaFreeHost(hostResult);
  cudaFreeHost(hostImage);
  cudaStreamDestroy(stream);
  return passed ? 0 : 1;
}
