/* Separable Gaussian blur, bilateral smoothing and an unsharp mask over RGBA images. */
#ifndef IMAGE_FILTER_FILTERS_CUH
#define IMAGE_FILTER_FILTERS_CUH

#include "pixel.h"

__constant__ FilterParams c_params;

/* One pass of the separable Gaussian: along rows (Horizontal) or along columns. */
template <bool Horizontal>
__global__ void gaussianPass(const RGBA* src, RGBA* dst, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const int radius = c_params.gaussRadius;
  RGBA sum = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k = -radius; k <= radius; ++k) {
    int sx = Horizontal ? clampIndex(x + k, width) : x;
    int sy = Horizontal ? y : clampIndex(y + k, height);
    accumulate(sum, src[sy * width + sx], c_params.gauss[k + radius]);
  }
  dst[y * width + x] = sum;
}

/* Edge-preserving smoothing: spatial weights from the table, range weights from the luminance. */
__global__ void bilateralFilter(const RGBA* src, RGBA* dst, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const int radius = c_params.bilateralRadius;
  const float inv2Sigma2 = 0.5f / (c_params.rangeSigma * c_params.rangeSigma);
  const RGBA& center = src[y * width + x];
  const float lc = luminance(center);
  RGBA sum = {0.0f, 0.0f, 0.0f, 0.0f};
  float total = 0.0f;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      const RGBA* q = &src[clampIndex(y + dy, height) * width + clampIndex(x + dx, width)];
      float d = 0.2126f * q->r + 0.7152f * q->g + 0.0722f * q->b - lc;
      float w = c_params.spatial[dy + radius][dx + radius] * expf(-d * d * inv2Sigma2);
      accumulate(sum, *q, w);
      total += w;
    }
  dst[y * width + x] = scaled(sum, 1.0f / total);
}

/* out = smooth + amount * (smooth - blurred), clamped to [0, 1]; alpha is kept from smooth. */
__global__ void unsharpMask(const RGBA* smooth, const RGBA* blurred, int count, RGBA* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  float k = c_params.sharpAmount;
  out[i].r = saturate(smooth[i].r + k * (smooth[i].r - blurred[i].r));
  out[i].g = saturate(smooth[i].g + k * (smooth[i].g - blurred[i].g));
  out[i].b = saturate(smooth[i].b + k * (smooth[i].b - blurred[i].b));
  out[i].a = smooth[i].a;
}

__global__ void toRgba8(const RGBA* image, int count, uchar4* bytes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  RGBA p = image[i];
  bytes[i] = make_uchar4((unsigned char)(255.0f * p.r + 0.5f), (unsigned char)(255.0f * p.g + 0.5f),
                         (unsigned char)(255.0f * p.b + 0.5f), (unsigned char)(255.0f * p.a + 0.5f));
}

#endif
