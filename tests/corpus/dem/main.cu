// A block of grains settles under gravity in a box: discrete element method with frictional
// contacts. The GPU run is compared with the same scheme on the CPU.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "grain.h"

static float random01(unsigned int& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return (state & 0xFFFFFF) / float(0x1000000);
}

static void referenceDem(std::vector<Grain>& grains, const DemParams& p, int steps, int* overflow) {
  const int n = int(grains.size());
  const int cells = p.cells.x * p.cells.y * p.cells.z;
  std::vector<int> count(cells), list(size_t(cells) * DEM_CELL_CAPACITY);
  std::vector<float3> force(n), torque(n);
  *overflow = 0;
  for (int s = 0; s < steps; ++s) {
    std::fill(count.begin(), count.end(), 0);
    for (int i = 0; i < n; ++i) {
      const int3 c = cellOf(grains[i].pos, p);
      const int cell = (c.z * p.cells.y + c.y) * p.cells.x + c.x;
      if (count[cell] < DEM_CELL_CAPACITY) list[cell * DEM_CELL_CAPACITY + count[cell]] = i;
      else ++*overflow;
      ++count[cell];
    }
    for (int i = 0; i < n; ++i) {
      const int3 c = cellOf(grains[i].pos, p);
      float3 f = wallForce(grains[i], p), t = make_float3(0, 0, 0);
      for (int z = std::max(c.z - 1, 0); z <= std::min(c.z + 1, p.cells.z - 1); ++z)
        for (int y = std::max(c.y - 1, 0); y <= std::min(c.y + 1, p.cells.y - 1); ++y)
          for (int x = std::max(c.x - 1, 0); x <= std::min(c.x + 1, p.cells.x - 1); ++x) {
            const int cell = (z * p.cells.y + y) * p.cells.x + x;
            for (int k = 0; k < std::min(count[cell], DEM_CELL_CAPACITY); ++k) {
              const int j = list[cell * DEM_CELL_CAPACITY + k];
              if (j != i) f += contactForce(&grains[i], &grains[j], p, &t);
            }
          }
      force[i] = f;
      torque[i] = t;
    }
    for (int i = 0; i < n; ++i) {
      Grain& g = grains[i];
      const float invMass = 1.0f / g.mass, invInertia = 1.0f / (0.4f * g.mass * g.radius * g.radius);
      g.vel += p.dt * (invMass * force[i] + make_float3(0, -p.gravity, 0));
      g.pos += p.dt * g.vel;
      g.omega += (p.dt * invInertia) * torque[i];
    }
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::max(1024, atoi(argv[1])) : 8192;
  const int steps = argc > 2 ? std::max(1, atoi(argv[2])) : 80;
  const int columns = 32, layers = (n + columns * columns - 1) / (columns * columns);
  const float spacing = 1.0f;

  DemParams p;
  p.kn = 1e4f;
  p.damping = 5.0f;
  p.friction = 0.5f;
  p.kt = 5.0f;
  p.gravity = 9.81f;
  p.dt = 1e-3f;
  p.box = make_float3(columns * spacing + 0.02f, 0, columns * spacing + 0.02f);
  p.cells = make_int3(int(std::ceil(p.box.x)), int(std::ceil(layers * spacing + 2.0f)), int(std::ceil(p.box.z)));

  // A lattice of grains of radius 0.45 to 0.5, with small random velocities.
  std::vector<Grain> grains(n);
  unsigned int seed = 20240611u;
  for (int i = 0; i < n; ++i) {
    const int ix = i % columns, iz = (i / columns) % columns, iy = i / (columns * columns);
    Grain& g = grains[i];
    g.radius = 0.45f + 0.05f * random01(seed);
    g.mass = 4.18879f * g.radius * g.radius * g.radius;
    g.pos = make_float3(0.5f + ix * spacing, 0.5f + iy * spacing, 0.5f + iz * spacing);
    g.vel = make_float3(0.2f * (random01(seed) - 0.5f), 0.2f * (random01(seed) - 0.5f), 0.2f * (random01(seed) - 0.5f));
    g.omega = make_float3(0, 0, 0);
  }
  std::vector<Grain> reference = grains;

  int gpuOverflow = 0, cpuOverflow = 0;
  runDem(grains.data(), n, p, steps, &gpuOverflow);
  referenceDem(reference, p, steps, &cpuOverflow);

  // Contacts make grain paths sensitive to rounding, so the check is statistical: the mean height within
  // 1e-4, the kinetic energy within 1e-2 relative, and at most 1% of the grains farther apart than 1e-3.
  double maxPos = 0, kinetic = 0, cpuKinetic = 0, rotational = 0, height = 0, cpuHeight = 0;
  int apart = 0;
  for (int i = 0; i < n; ++i) {
    const Grain &g = grains[i], &r = reference[i];
    const double d = norm(g.pos - r.pos);
    maxPos = std::max(maxPos, d);
    if (d > 1e-3) ++apart;
    kinetic += 0.5 * g.mass * dot(g.vel, g.vel);
    cpuKinetic += 0.5 * r.mass * dot(r.vel, r.vel);
    cpuHeight += r.pos.y / n;
    rotational += 0.2 * g.mass * g.radius * g.radius * dot(g.omega, g.omega);
    height += g.pos.y / n;
  }
  printf("grains %d, steps %d, grid %dx%dx%d\n", n, steps, p.cells.x, p.cells.y, p.cells.z);
  printf("mean height        %.5f\n", height);
  printf("kinetic energy     %.5e\n", kinetic);
  printf("rotational energy  %.5e\n", rotational);
  const double kineticErr = std::fabs(kinetic - cpuKinetic) / std::max(cpuKinetic, 1e-30);
  printf("height error %.2e, kinetic energy error %.2e, grains apart %d (max %.2e), cell overflows %d\n",
         std::fabs(height - cpuHeight), kineticErr, apart, maxPos, gpuOverflow);
  const bool ok = std::isfinite(height + kinetic + rotational) && std::fabs(height - cpuHeight) < 1e-4 &&
                  kineticErr < 1e-2 && apart <= n / 100 && gpuOverflow == 0 && cpuOverflow == 0;
  printf("%s\n", ok ? "CHECK PASSED" : "CHECK FAILED");
  return ok ? 0 : 1;
}
