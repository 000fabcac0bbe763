// Device arrays kept in struct members, copies of the pointer, views `p + off`, slices of copies,
// device-to-device copies and a cudaFree loop over several arrays.
#include <cstdio>
#include <vector>

struct Body {
  float x, y;  // position
  float m;     // mass
};

__global__ void push(Body* b, float dx, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i].x += dx * b[i].m;
}

__global__ void shift(Body* all, int half, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  Body* upper = all + half;  // the second half, as a view
  if (i < n) upper[i].y = all[i].y;
}

template <class T>
static std::vector<T> download(const T* d, size_t count) {  // device array -> host
  std::vector<T> h(count);
  cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

struct Sim {
  int n = 0;
  Body *cur, *saved;  // the state and a copy to restart from
  Body* spare = nullptr;
  explicit Sim(int count) : n(count) {
    cudaMalloc(&cur, n * sizeof(Body));
    cudaMalloc(&saved, n * sizeof(Body));
  }
  void restart() { cudaMemcpyAsync(cur, saved, n * sizeof(Body), cudaMemcpyDeviceToDevice); }
  void step() { push<<<(n + 255) / 256, 256>>>(cur, 0.5f, n); }
};

struct Range {  // an array and its length, built with aggregate initialization
  Body* first;
  int count;
};

int main() {
  const int n = 1024, half = n / 2;
  std::vector<Body> host(n);
  Sim sim(n);
  // Upload the halves separately: slices of the same copy.
  cudaMemcpy(sim.saved, host.data(), half * sizeof(Body), cudaMemcpyHostToDevice);
  cudaMemcpy(sim.saved + half, host.data() + half, (n - half) * sizeof(Body), cudaMemcpyHostToDevice);
  cudaMemset(sim.cur + half, 0, half * sizeof(Body));
  sim.restart();
  sim.step();
  push<<<1, 256>>>(sim.cur + half, 1.0f, half);  // only the upper half
  shift<<<4, 256>>>(sim.cur, half, half);
  sim.spare = sim.saved;
  cudaMemcpy(sim.saved, sim.cur, n * sizeof(Body), cudaMemcpyDeviceToDevice);
  cudaMemcpy(host.data(), sim.spare, n * sizeof(Body), cudaMemcpyDeviceToHost);
  float* other;
  cudaMalloc(&other, n * sizeof(float));
  const std::vector<Body> back = download(sim.cur, n);  // the template's overload for the device struct
  const std::vector<float> values = download(other, n);   // the template itself
  for (void* a : {(void*)other, (void*)sim.cur})
    cudaFree(a);
  cudaFree(sim.saved);
  Body* shared;  // managed: the host writes it through the same accesses as the kernels
  cudaMallocManaged(&shared, n * sizeof(Body));
  shared[0].x = 1.0f;
  Range whole = {shared, n};
  Range none = {nullptr, 0};
  push<<<1, 256>>>(whole.first, 1.0f, whole.count);
  cudaDeviceSynchronize();
  cudaFree(shared);
  (void)none;
  std::printf("%f %f %f\n", host[0].x, back[0].y, values[0]);
  return 0;
}
