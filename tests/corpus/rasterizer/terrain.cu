#include <cmath>

#include "mesh.h"

static float lattice(int x, int y, unsigned int seed) {
  unsigned int h = (unsigned int)x * 73856093u ^ (unsigned int)y * 19349663u ^ seed;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (h & 0xFFFFFF) / 16777215.0f;
}

// Value noise, bilinear between lattice points, two octaves.
static float noise(float x, float y, unsigned int seed) {
  float total = 0.0f, amplitude = 1.0f;
  for (int octave = 0; octave < 2; ++octave) {
    int x0 = (int)floorf(x), y0 = (int)floorf(y);
    float fx = x - x0, fy = y - y0;
    float a = lattice(x0, y0, seed), b = lattice(x0 + 1, y0, seed);
    float c = lattice(x0, y0 + 1, seed), d = lattice(x0 + 1, y0 + 1, seed);
    total += amplitude * ((a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy);
    x *= 2.0f;
    y *= 2.0f;
    amplitude *= 0.5f;
    seed = seed * 31u + 7u;
  }
  return total;
}

Mesh makeTerrain(int grid, unsigned int seed) {
  Mesh mesh;
  mesh.vertices.resize((size_t)grid * grid);
  for (int j = 0; j < grid; ++j)
    for (int i = 0; i < grid; ++i) {
      float x = -1.0f + 2.0f * i / (grid - 1), y = -1.0f + 2.0f * j / (grid - 1);
      float h = 0.35f * noise(4.0f * (x + 1.0f), 4.0f * (y + 1.0f), seed);
      Vertex& v = mesh.vertices[(size_t)j * grid + i];
      v.pos = make_float3(x, y, h);
      // Green valleys, brown slopes, white peaks.
      float t = h / 0.525f;
      v.color = make_float3(0.2f + 0.8f * t * t, 0.5f + 0.4f * t, 0.15f + 0.8f * t * t * t);
    }
  for (int j = 0; j + 1 < grid; ++j)
    for (int i = 0; i + 1 < grid; ++i) {
      int a = j * grid + i, b = a + 1, c = a + grid, d = c + 1;
      int material = (i / 16 + j / 16) % MATERIAL_COUNT;
      mesh.triangles.push_back(Triangle{{a, b, d}, material, make_float3(0, 0, 1)});
      mesh.triangles.push_back(Triangle{{a, d, c}, material, make_float3(0, 0, 1)});
    }
  return mesh;
}
