/* Filter weights and the CPU version of the pipeline; plain C++ (built by the host compiler). */
#include <math.h>
#include <stdlib.h>

#include "pixel.h"

FilterParams makeFilterParams(int gaussRadius, int bilateralRadius) {
  FilterParams p;
  p.gaussRadius = gaussRadius;
  p.bilateralRadius = bilateralRadius;
  p.rangeSigma = 0.1f;
  p.sharpAmount = 0.6f;
  float sigma = 0.5f * gaussRadius + 0.5f, total = 0.0f;
  for (int k = -gaussRadius; k <= gaussRadius; ++k)
    total += p.gauss[k + gaussRadius] = expf(-0.5f * k * k / (sigma * sigma));
  for (int k = 0; k <= 2 * gaussRadius; ++k) p.gauss[k] /= total;
  float spatialSigma = bilateralRadius + 0.5f;
  for (int dy = -bilateralRadius; dy <= bilateralRadius; ++dy)
    for (int dx = -bilateralRadius; dx <= bilateralRadius; ++dx)
      p.spatial[dy + bilateralRadius][dx + bilateralRadius] =
          expf(-0.5f * (dx * dx + dy * dy) / (spatialSigma * spatialSigma));
  return p;
}

static void bilateral(const RGBA* src, int width, int height, const FilterParams* p, RGBA* dst) {
  const int radius = p->bilateralRadius;
  const float inv2Sigma2 = 0.5f / (p->rangeSigma * p->rangeSigma);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const float lc = luminance(src[y * width + x]);
      RGBA sum = {0.0f, 0.0f, 0.0f, 0.0f};
      float total = 0.0f;
      for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx) {
          const RGBA& q = src[clampIndex(y + dy, height) * width + clampIndex(x + dx, width)];
          float d = 0.2126f * q.r + 0.7152f * q.g + 0.0722f * q.b - lc;
          float w = p->spatial[dy + radius][dx + radius] * expf(-d * d * inv2Sigma2);
          accumulate(sum, q, w);
          total += w;
        }
      dst[y * width + x] = scaled(sum, 1.0f / total);
    }
}

static void gaussian(const RGBA* src, int width, int height, const FilterParams* p, bool horizontal, RGBA* dst) {
  const int radius = p->gaussRadius;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      RGBA sum = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int k = -radius; k <= radius; ++k) {
        int sx = horizontal ? clampIndex(x + k, width) : x;
        int sy = horizontal ? y : clampIndex(y + k, height);
        accumulate(sum, src[sy * width + sx], p->gauss[k + radius]);
      }
      dst[y * width + x] = sum;
    }
}

void referencePipeline(const RGBA* src, int width, int height, const FilterParams* params, RGBA* out) {
  const size_t count = (size_t)width * height;
  RGBA* smooth = (RGBA*)malloc(count * sizeof(RGBA));
  RGBA* tmp = (RGBA*)malloc(count * sizeof(RGBA));
  RGBA* blurred = (RGBA*)malloc(count * sizeof(RGBA));
  bilateral(src, width, height, params, smooth);
  gaussian(smooth, width, height, params, true, tmp);
  gaussian(tmp, width, height, params, false, blurred);
  const float k = params->sharpAmount;
  for (size_t i = 0; i < count; ++i) {
    out[i].r = saturate(smooth[i].r + k * (smooth[i].r - blurred[i].r));
    out[i].g = saturate(smooth[i].g + k * (smooth[i].g - blurred[i].g));
    out[i].b = saturate(smooth[i].b + k * (smooth[i].b - blurred[i].b));
    out[i].a = smooth[i].a;
  }
  free(blurred);
  free(tmp);
  free(smooth);
}
