// The colour grade: auto exposure from the luma histogram, a filmic tone curve, lift/gain,
// contrast and saturation, in linear light between an sRGB decode and encode table.
#pragma once
#include <cmath>
#include <vector>

#include "pixel.h"

constexpr int kHistogramBins = 256;
constexpr int kEncodeSteps = 4096;

struct Grade {
  float key;         // the mid-grey the exposure aims the scene's average at
  float contrast;    // strength of the S-curve about 0.5
  float saturation;  // 1 keeps the colours
  float3 lift;       // raises the blacks per channel
  float3 gain;       // scales the whites per channel

  __host__ __device__ float channel(float c, float exposure, float lift, float gain) const {
    c *= exposure;
    c = c / (1.f + c);
    c = gain * (c + lift * (1.f - c));
    c = c + contrast * c * (1.f - c) * (2.f * c - 1.f);
    return c < 0.f ? 0.f : (c > 1.f ? 1.f : c);
  }

  // Graded linear colour of decoded linear colour (r, g, b).
  __host__ __device__ float3 apply(float r, float g, float b, float exposure) const {
    r = channel(r, exposure, lift.x, gain.x);
    g = channel(g, exposure, lift.y, gain.y);
    b = channel(b, exposure, lift.z, gain.z);
    const float y = 0.2126f * r + 0.7152f * g + 0.0722f * b;
    r = y + saturation * (r - y);
    g = y + saturation * (g - y);
    b = y + saturation * (b - y);
    return make_float3(r < 0.f ? 0.f : (r > 1.f ? 1.f : r), g < 0.f ? 0.f : (g > 1.f ? 1.f : g),
                       b < 0.f ? 0.f : (b > 1.f ? 1.f : b));
  }
};

// Exposure that brings the histogram's log-average luminance to the key, within [1/4, 8].
__host__ __device__ inline float exposureFromHistogram(const unsigned* histogram, const float* decode, int pixels,
                                                       float key) {
  float logSum = 0.f;
  for (int bin = 0; bin < kHistogramBins; ++bin) logSum += float(histogram[bin]) * logf(decode[bin] + 1e-4f);
  const float average = expf(logSum / float(pixels));
  const float exposure = key / average;
  return exposure < 0.25f ? 0.25f : (exposure > 8.f ? 8.f : exposure);
}

// The encode table's entry for linear light c in [0, 1].
__host__ __device__ inline int encodeSlot(float c) { return int(c * float(kEncodeSteps - 1) + 0.5f); }

// sRGB code value -> linear light.
std::vector<float> makeDecodeTable();
// Linear light quantised to kEncodeSteps steps -> sRGB code value.
std::vector<unsigned char> makeEncodeTable();
