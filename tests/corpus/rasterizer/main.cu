// Software rasterizer: a hilly terrain mesh rendered with a depth buffer and Lambert shading.
// Usage: rasterizer [grid] [width] [height]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "mesh.h"
#include "raster_gpu.h"

static Camera makeCamera(int width, int height) {
  // Look-at from above the south edge towards the centre, 50 degree vertical field of view.
  const double eye[3] = {0.0, -1.7, 1.0}, at[3] = {0.0, 0.1, 0.0}, up[3] = {0.0, 0.0, 1.0};
  double f[3] = {at[0] - eye[0], at[1] - eye[1], at[2] - eye[2]};
  double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
  for (double& c : f) c /= fl;
  double s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
  double sl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  for (double& c : s) c /= sl;
  double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
  double view[16] = {s[0], s[1], s[2], -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]),
                     u[0], u[1], u[2], -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]),
                     -f[0], -f[1], -f[2], f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2],
                     0, 0, 0, 1};
  double aspect = (double)width / height, nearZ = 0.1, farZ = 10.0;
  double t = 1.0 / tan(50.0 * M_PI / 360.0);
  double proj[16] = {t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (farZ + nearZ) / (nearZ - farZ),
                     2 * farZ * nearZ / (nearZ - farZ), 0, 0, -1, 0};
  Camera cam;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      double sum = 0;
      for (int k = 0; k < 4; ++k) sum += proj[r * 4 + k] * view[k * 4 + c];
      cam.viewProj[r * 4 + c] = (float)sum;
    }
  cam.width = width;
  cam.height = height;
  float ll = sqrtf(0.4f * 0.4f + 0.3f * 0.3f + 0.866f * 0.866f);
  cam.light = make_float3(0.4f / ll, -0.3f / ll, 0.866f / ll);
  return cam;
}

// The same stages, one after the other, on the CPU.
static void renderCpu(Mesh mesh, const Camera& cam, const LambertShader& shade, std::vector<float3>& image,
                      std::vector<DepthKey>& depth) {
  const int pixels = cam.width * cam.height;
  depth.assign(pixels, kFarKey);
  image.resize(pixels);
  std::vector<ScreenVertex> screen(mesh.vertices.size());
  for (size_t i = 0; i < mesh.vertices.size(); ++i) screen[i] = project(cam, mesh.vertices[i].pos);
  for (Triangle& tri : mesh.triangles) {
    float3 p0 = mesh.vertices[tri.v[0]].pos, p1 = mesh.vertices[tri.v[1]].pos, p2 = mesh.vertices[tri.v[2]].pos;
    float3 n = cross3(make_float3(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z),
                      make_float3(p2.x - p0.x, p2.y - p0.y, p2.z - p0.z));
    float len = sqrtf(n.x * n.x + n.y * n.y + n.z * n.z);
    tri.normal = len > 0.0f ? make_float3(n.x / len, n.y / len, n.z / len) : make_float3(0.0f, 0.0f, 1.0f);
  }
  for (int t = 0; t < (int)mesh.triangles.size(); ++t) {
    const ScreenVertex a = screen[mesh.triangles[t].v[0]], b = screen[mesh.triangles[t].v[1]],
                       c = screen[mesh.triangles[t].v[2]];
    if (!a.visible || !b.visible || !c.visible) continue;
    int x0 = std::max(0, (int)floorf(std::min(a.x, std::min(b.x, c.x))));
    int x1 = std::min(cam.width - 1, (int)ceilf(std::max(a.x, std::max(b.x, c.x))));
    int y0 = std::max(0, (int)floorf(std::min(a.y, std::min(b.y, c.y))));
    int y1 = std::min(cam.height - 1, (int)ceilf(std::max(a.y, std::max(b.y, c.y))));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        float w[3];
        if (!barycentric(a, b, c, x + 0.5f, y + 0.5f, w)) continue;
        float z = w[0] * a.depth + w[1] * b.depth + w[2] * c.depth;
        if (z < 0.0f || z > 1.0f) continue;
        DepthKey& d = depth[y * cam.width + x];
        d = std::min(d, makeKey(z, t));
      }
  }
  for (int p = 0; p < pixels; ++p) {
    if (depth[p] == kFarKey) {
      image[p] = skyColor();
      continue;
    }
    const Triangle& tri = mesh.triangles[keyTriangle(depth[p])];
    float w[3];
    int x = p % cam.width, y = p / cam.width;
    barycentric(screen[tri.v[0]], screen[tri.v[1]], screen[tri.v[2]], x + 0.5f, y + 0.5f, w);
    float3 color = make_float3(0.0f, 0.0f, 0.0f);
    for (int k = 0; k < 3; ++k) {
      const Vertex& v = mesh.vertices[tri.v[k]];
      color.x += w[k] * v.color.x;
      color.y += w[k] * v.color.y;
      color.z += w[k] * v.color.z;
    }
    image[p] = shade(color, tri.normal, tri.material);
  }
}

int main(int argc, char** argv) {
  int grid = argc > 1 ? atoi(argv[1]) : 768;
  int width = argc > 2 ? atoi(argv[2]) : 1280;
  int height = argc > 3 ? atoi(argv[3]) : 720;
  if (grid < 2 || width < 1 || height < 1) {
    fprintf(stderr, "usage: %s [grid >= 2] [width] [height]\n", argv[0]);
    return 2;
  }
  Mesh mesh = makeTerrain(grid, 99u);
  Camera cam = makeCamera(width, height);
  LambertShader shader = {cam.light, 0.25f,
                          {{1.0f, 1.0f, 1.0f}, {0.95f, 0.9f, 0.8f}, {0.85f, 0.95f, 0.85f}, {0.9f, 0.9f, 1.0f}}};

  std::vector<float3> gpuImage, cpuImage;
  std::vector<DepthKey> gpuDepth, cpuDepth;
  {
    GpuRasterizer gpu(mesh, cam);
    gpu.render(shader);
    cudaError_t err = gpu.download(gpuImage, gpuDepth);
    if (err != cudaSuccess) {
      fprintf(stderr, "rasterizer: %s\n", cudaGetErrorString(err));
      return 2;
    }
  }
  renderCpu(mesh, cam, shader, cpuImage, cpuDepth);

  // The GPU contracts multiply-adds, so a pixel on an edge or at a depth tie can pick the other
  // triangle: at most 0.5% of the pixels may differ by more than 1e-3 in a channel.
  const int pixels = width * height;
  int covered = 0, otherTriangle = 0, differing = 0;
  double checksum = 0, cpuChecksum = 0;
  for (int p = 0; p < pixels; ++p) {
    covered += gpuDepth[p] != kFarKey;
    otherTriangle += keyTriangle(gpuDepth[p]) != keyTriangle(cpuDepth[p]);
    float3 g = gpuImage[p], c = cpuImage[p];
    float diff = std::max(fabsf(g.x - c.x), std::max(fabsf(g.y - c.y), fabsf(g.z - c.z)));
    differing += diff > 1e-3f;
    checksum += g.x + g.y + g.z;
    cpuChecksum += c.x + c.y + c.z;
  }
  const double allowed = 0.005;
  printf("terrain %dx%d, %zu triangles, image %dx%d\n", grid, grid, mesh.triangles.size(), width, height);
  printf("covered pixels %d, image checksum %.3f (CPU %.3f)\n", covered, checksum, cpuChecksum);
  printf("pixels with another triangle %d, pixels differing %d\n", otherTriangle, differing);
  bool passed = differing <= allowed * pixels;
  printf("%s (at most %.1f%% of the pixels may differ from the CPU image by more than 1e-3)\n",
         passed ? "CHECK PASSED" : "CHECK FAILED", 100 * allowed);
  return passed ? 0 : 1;
}
