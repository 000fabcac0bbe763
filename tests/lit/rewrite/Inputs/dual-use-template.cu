// One lighting template serves the kernel and the CPU reference; each picks its light model with an
// explicit template argument.
#include <cmath>
#include <cstdio>
#include <vector>

struct Light {
  float x, y;
  float power;
};

struct Soft {
  __host__ __device__ static float falloff(float d2) { return 1.0f / (1.0f + d2); }
};

struct Hard {
  __host__ __device__ static float falloff(float d2) { return d2 < 1.0f ? 1.0f : 0.0f; }
};

template <typename Model>
__host__ __device__ float illuminate(const Light* lights, int count, float px, float py) {
  float sum = 0.0f;
  for (int k = 0; k < count; ++k) {
    float dx = lights[k].x - px, dy = lights[k].y - py;
    sum += lights[k].power * Model::falloff(dx * dx + dy * dy);
  }
  return sum;
}

__global__ void shadeGrid(const Light* lights, int count, float* image, int side) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= side * side) return;
  float px = float(i % side) / side * 4.0f, py = float(i / side) / side * 4.0f;
  image[i] = illuminate<Soft>(lights, count, px, py) + 0.5f * illuminate<Hard>(lights, count, px, py);
}

int main() {
  const int count = 16, side = 64;
  std::vector<Light> lights(count);
  for (int k = 0; k < count; ++k) lights[k] = Light{0.25f * k, 4.0f - 0.2f * k, 1.0f + 0.1f * k};
  Light* dLights;
  float* dImage;
  cudaMalloc(&dLights, count * sizeof(Light));
  cudaMalloc(&dImage, side * side * sizeof(float));
  cudaMemcpy(dLights, lights.data(), count * sizeof(Light), cudaMemcpyHostToDevice);
  shadeGrid<<<(side * side + 127) / 128, 128>>>(dLights, count, dImage, side);
  std::vector<float> image(side * side);
  cudaMemcpy(image.data(), dImage, image.size() * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  double sum = 0;
  for (int i = 0; i < side * side; ++i) {
    float px = float(i % side) / side * 4.0f, py = float(i / side) / side * 4.0f;
    float ref = illuminate<Soft>(lights.data(), count, px, py) + 0.5f * illuminate<Hard>(lights.data(), count, px, py);
    wrong += std::fabs(ref - image[i]) > 1e-4f * (1.0f + std::fabs(ref));
    sum += image[i];
  }
  std::printf("%d wrong, sum %.3f\n", wrong, sum);
  cudaFree(dLights);
  cudaFree(dImage);
  return wrong != 0;
}
