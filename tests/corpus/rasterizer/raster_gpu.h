// Host-side owner of the GPU buffers of one scene.
#pragma once

#include <vector>

#include "mesh.h"
#include "raster.cuh"
#include "shading.h"

class GpuRasterizer {
 public:
  GpuRasterizer(const Mesh& mesh, const Camera& camera);
  ~GpuRasterizer();
  GpuRasterizer(const GpuRasterizer&) = delete;
  GpuRasterizer& operator=(const GpuRasterizer&) = delete;

  void render(const LambertShader& shader);
  cudaError_t download(std::vector<float3>& image, std::vector<DepthKey>& depth) const;

 private:
  Camera camera_;
  int vertexCount_ = 0, triangleCount_ = 0;
  Vertex* vertices_ = nullptr;
  Triangle* triangles_ = nullptr;
  ScreenVertex* screen_ = nullptr;
  DepthKey* depth_ = nullptr;
  float3* image_ = nullptr;
};
