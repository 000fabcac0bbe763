// Each thread reads one 48-byte triangle whole (nine floats, 16-byte aligned): nvcc loads it with
// two 16-byte vector loads and one scalar.
struct __align__(16) Triangle {
  float ax, ay, az, bx, by, bz, cx, cy, cz;
};

__global__ void areas(const Triangle* tris, float* area, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Triangle t = tris[i];
  const float ux = t.bx - t.ax, uy = t.by - t.ay, uz = t.bz - t.az;
  const float vx = t.cx - t.ax, vy = t.cy - t.ay, vz = t.cz - t.az;
  const float nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
  area[i] = 0.5f * sqrtf(nx * nx + ny * ny + nz * nz);
}
