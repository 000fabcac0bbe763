/* RGBA pixels in linear float and the small helpers both the kernels and the CPU code use. */
#ifndef IMAGE_FILTER_PIXEL_H
#define IMAGE_FILTER_PIXEL_H

#include <math.h>

#if !defined(__NVCC__)
/* Built by the host compiler alone (reference.cpp): the CUDA qualifiers mean nothing there. */
#define __host__
#define __device__
#endif

typedef struct _RGBA {
  float r;
  float g;
  float b;
  float a;
} RGBA;

#define MAX_RADIUS 8

__host__ __device__ inline RGBA scaled(const RGBA& p, float s) {
  RGBA out = {p.r * s, p.g * s, p.b * s, p.a * s};
  return out;
}

__host__ __device__ inline void accumulate(RGBA& sum, const RGBA& p, float w) {
  sum.r += w * p.r;
  sum.g += w * p.g;
  sum.b += w * p.b;
  sum.a += w * p.a;
}

__host__ __device__ inline float luminance(const RGBA& p) { return 0.2126f * p.r + 0.7152f * p.g + 0.0722f * p.b; }

__host__ __device__ inline int clampIndex(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

__host__ __device__ inline float saturate(float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }

/* Filter settings, the same on both sides. */
typedef struct {
  int gaussRadius;
  int bilateralRadius;
  float rangeSigma;  /* sigma of the range (luminance) Gaussian */
  float sharpAmount; /* unsharp mask strength */
  float gauss[2 * MAX_RADIUS + 1];
  float spatial[2 * MAX_RADIUS + 1][2 * MAX_RADIUS + 1];
} FilterParams;

FilterParams makeFilterParams(int gaussRadius, int bilateralRadius);
void referencePipeline(const RGBA* src, int width, int height, const FilterParams* params, RGBA* out);

#endif
