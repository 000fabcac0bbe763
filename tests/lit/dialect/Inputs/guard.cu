// Written for nvcc and for a plain C++ compiler: without nvcc, the CUDA keywords vanish.
#if !defined(__NVCC__)
#define __device__
#define __host__
#define __global__
#endif

struct Particle {
  float x, v;
};

__device__ float energy(const Particle* p, int i) { return 0.5f * p[i].v * p[i].v; }

__global__ void step(Particle* p, float* e, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i].x += p[i].v;
    e[i] = energy(p, i);
  }
}
