// A kernel that calls __device__ helpers taking the struct's pointer, one declared ahead of use.
struct Body {
  double mass;
  float x, y, z;
  float vx, vy, vz;
  int id;
};

__device__ float kinetic(const Body* b, int i);

__device__ void push(Body* __restrict__ b, int i, float dt) {
  b[i].x += b[i].vx * dt;
  b[i].y += b[i].vy * dt;
  b[i].z += b[i].vz * dt;
}

__global__ void step(Body* bodies, float* energy, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  push(bodies, i, dt);
  energy[i] = kinetic(bodies, i);
}

__device__ float kinetic(const Body* b, int i) {
  float v2 = b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz;
  return 0.5f * float(b[i].mass) * v2;
}

int main() {
  const int n = 4096;
  Body* h = new Body[n]();
  Body* d_bodies = nullptr;
  float* d_energy = nullptr;
  cudaMalloc((void**)&d_bodies, n * sizeof(*d_bodies));
  cudaMalloc(&d_energy, n * sizeof(float));
  cudaMemset(d_bodies, 0, n * sizeof(Body));
  cudaMemcpy(d_bodies, h, n * sizeof(Body), cudaMemcpyHostToDevice);
  step<<<n / 128, 128>>>(d_bodies, d_energy, n, 0.1f);
  cudaMemcpy(h, d_bodies, n * sizeof(Body), cudaMemcpyDeviceToHost);
  cudaFree(d_bodies);
  cudaFree(d_energy);
  delete[] h;
  return 0;
}
