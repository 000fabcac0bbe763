// GPU pipeline: project vertices, set up triangles, rasterize with a 64-bit depth/id atomicMin
// (no float atomics), then resolve and shade every pixel.
#include <cmath>

#include "raster_gpu.h"

__constant__ Camera c_camera;

__global__ void clearDepth(DepthKey* depth, int pixels) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < pixels) depth[p] = kFarKey;
}

__global__ void transformVertices(const Vertex* vertices, int n, ScreenVertex* screen) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) screen[i] = project(c_camera, vertices[i].pos);
}

__global__ void setupTriangles(Triangle* tris, int m, const Vertex* vertices) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m) return;
  Triangle& tri = tris[t];
  float3 p0 = vertices[tri.v[0]].pos, p1 = vertices[tri.v[1]].pos, p2 = vertices[tri.v[2]].pos;
  float3 n = cross3(make_float3(p1.x - p0.x, p1.y - p0.y, p1.z - p0.z),
                    make_float3(p2.x - p0.x, p2.y - p0.y, p2.z - p0.z));
  float len = sqrtf(n.x * n.x + n.y * n.y + n.z * n.z);
  tri.normal = len > 0.0f ? make_float3(n.x / len, n.y / len, n.z / len) : make_float3(0.0f, 0.0f, 1.0f);
}

__global__ void rasterizeTriangles(const Triangle* tris, int m, const ScreenVertex* screen, DepthKey* depth) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m) return;
  const ScreenVertex a = screen[tris[t].v[0]], b = screen[tris[t].v[1]], c = screen[tris[t].v[2]];
  if (!a.visible || !b.visible || !c.visible) return;
  int x0 = max(0, (int)floorf(fminf(a.x, fminf(b.x, c.x)))), x1 = min(c_camera.width - 1, (int)ceilf(fmaxf(a.x, fmaxf(b.x, c.x))));
  int y0 = max(0, (int)floorf(fminf(a.y, fminf(b.y, c.y)))), y1 = min(c_camera.height - 1, (int)ceilf(fmaxf(a.y, fmaxf(b.y, c.y))));
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      float w[3];
      if (!barycentric(a, b, c, x + 0.5f, y + 0.5f, w)) continue;
      float z = w[0] * a.depth + w[1] * b.depth + w[2] * c.depth;
      if (z < 0.0f || z > 1.0f) continue;
      atomicMin(&depth[y * c_camera.width + x], makeKey(z, t));
    }
}

template <class Shader>
__global__ void shadePixels(const DepthKey* depth, const Triangle* tris, const Vertex* vertices,
                            const ScreenVertex* screen, Shader shade, float3* image) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= c_camera.width || y >= c_camera.height) return;
  int p = y * c_camera.width + x;
  DepthKey key = depth[p];
  if (key == kFarKey) {
    image[p] = skyColor();
    return;
  }
  const Triangle& tri = tris[keyTriangle(key)];
  float w[3];
  barycentric(screen[tri.v[0]], screen[tri.v[1]], screen[tri.v[2]], x + 0.5f, y + 0.5f, w);
  float3 color = make_float3(0.0f, 0.0f, 0.0f);
  for (int k = 0; k < 3; ++k) {
    const Vertex& v = vertices[tri.v[k]];
    color.x += w[k] * v.color.x;
    color.y += w[k] * v.color.y;
    color.z += w[k] * v.color.z;
  }
  image[p] = shade(color, tri.normal, tri.material);
}

GpuRasterizer::GpuRasterizer(const Mesh& mesh, const Camera& camera) : camera_(camera) {
  vertexCount_ = (int)mesh.vertices.size();
  triangleCount_ = (int)mesh.triangles.size();
  int pixels = camera.width * camera.height;
  cudaMalloc(&vertices_, vertexCount_ * sizeof(Vertex));
  cudaMalloc(&triangles_, triangleCount_ * sizeof(Triangle));
  cudaMalloc(&screen_, vertexCount_ * sizeof(ScreenVertex));
  cudaMalloc(&depth_, pixels * sizeof(DepthKey));
  cudaMalloc(&image_, pixels * sizeof(float3));
  cudaMemcpy(vertices_, mesh.vertices.data(), vertexCount_ * sizeof(Vertex), cudaMemcpyHostToDevice);
  cudaMemcpy(triangles_, mesh.triangles.data(), triangleCount_ * sizeof(Triangle), cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(c_camera, &camera, sizeof(Camera));
}

GpuRasterizer::~GpuRasterizer() {
  cudaFree(image_);
  cudaFree(depth_);
  cudaFree(screen_);
  cudaFree(triangles_);
  cudaFree(vertices_);
}

void GpuRasterizer::render(const LambertShader& shader) {
  const int block = 256;
  int pixels = camera_.width * camera_.height;
  clearDepth<<<(pixels + block - 1) / block, block>>>(depth_, pixels);
  transformVertices<<<(vertexCount_ + block - 1) / block, block>>>(vertices_, vertexCount_, screen_);
  setupTriangles<<<(triangleCount_ + block - 1) / block, block>>>(triangles_, triangleCount_, vertices_);
  rasterizeTriangles<<<(triangleCount_ + block - 1) / block, block>>>(triangles_, triangleCount_, screen_, depth_);
  dim3 tile(16, 16), tiles((camera_.width + 15) / 16, (camera_.height + 15) / 16);
  shadePixels<<<tiles, tile>>>(depth_, triangles_, vertices_, screen_, shader, image_);
}

cudaError_t GpuRasterizer::download(std::vector<float3>& image, std::vector<DepthKey>& depth) const {
  int pixels = camera_.width * camera_.height;
  image.resize(pixels);
  depth.resize(pixels);
  cudaMemcpy(depth.data(), depth_, pixels * sizeof(DepthKey), cudaMemcpyDeviceToHost);
  cudaMemcpy(image.data(), image_, pixels * sizeof(float3), cudaMemcpyDeviceToHost);
  return cudaGetLastError();
}
