// 8-bit RGBA pixels (sRGB-coded colour, straight alpha) and the integer helpers both sides use.
#pragma once
#include <cuda_runtime.h>

struct Pixel {
  unsigned char r, g, b, a;
};

// Rec. 709 luma of the coded values, in 0..255 (the weights sum to 256).
__host__ __device__ inline int luma(const Pixel& p) { return (54 * p.r + 183 * p.g + 19 * p.b) >> 8; }

// `over` composited over `under` (8-bit, rounded).
__host__ __device__ inline Pixel blendOver(const Pixel& over, const Pixel& under) {
  const int a = over.a, rest = 255 - a;
  Pixel out;
  out.r = (unsigned char)((over.r * a + under.r * rest + 127) / 255);
  out.g = (unsigned char)((over.g * a + under.g * rest + 127) / 255);
  out.b = (unsigned char)((over.b * a + under.b * rest + 127) / 255);
  out.a = 255;
  return out;
}

__host__ __device__ inline unsigned hash32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// The camera's frame `frame`: a sky gradient, a sun moving across it, hills and sensor noise
// (integer arithmetic only, so the host draws the very same frame).
__host__ __device__ inline Pixel scenePixel(int x, int y, int width, int height, int frame) {
  const int sky = y * 255 / height;
  int r = 40 + sky / 3, g = 70 + sky / 2, b = 200 - sky / 2;
  const int sunX = (frame * 7) % (width + 400) - 200, sunY = height / 4 + (frame % 97);
  const int dx = x - sunX, dy = y - sunY, radius = height / 10;
  const int d2 = dx * dx + dy * dy;
  if (d2 < radius * radius) {
    r = 255;
    g = 240;
    b = 180;
  } else if (d2 < 4 * radius * radius) {
    const int glow = 128 - 32 * d2 / (radius * radius);  // 96 at the rim down to 0 at twice the radius
    r += glow;
    g += glow / 2;
  }
  const int ridge = (x * 13 + frame) % 512;
  const int hill = height * 2 / 3 + (ridge < 256 ? ridge : 511 - ridge) / 4;
  if (y > hill) {
    r = 30 + (y - hill) % 40;
    g = 90 + (x % 64);
    b = 35;
  }
  const int noise = int(hash32(unsigned(y * width + x) * 2654435761U + unsigned(frame)) & 15) - 8;
  Pixel p;
  p.r = (unsigned char)(r + noise < 0 ? 0 : (r + noise > 255 ? 255 : r + noise));
  p.g = (unsigned char)(g + noise < 0 ? 0 : (g + noise > 255 ? 255 : g + noise));
  p.b = (unsigned char)(b + noise < 0 ? 0 : (b + noise > 255 ? 255 : b + noise));
  p.a = 255;
  return p;
}
