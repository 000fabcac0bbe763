// Atoms with their own integration steps as member functions, called on array elements, and
// thermostat cells that keep their state private.
#include <cstdio>
#include <cuda_runtime.h>

struct Atom {
  __host__ __device__ Atom() : x_(0.f), v_(0.f), f_(0.f) {}
  __host__ __device__ Atom(float x, float v) : x_(x), v_(v), f_(0.f) {}
  __host__ __device__ void kick(float halfStepOverMass) { v_ += halfStepOverMass * f_; }
  __host__ __device__ void drift(float dt, float box) {
    x_ += dt * v_;
    if (x_ >= box) x_ -= box;
  }
  __host__ __device__ void setForce(float f) { f_ = f; }
  __host__ __device__ float position() const { return x_; }
  // A velocity-Verlet step as two half kicks around a drift.
  __host__ __device__ void verlet(float dt, float box) {
    kick(0.5f * dt);
    drift(dt, box);
    kick(0.5f * dt);
  }
  __host__ __device__ void reflect() { negate(v_); }
  __host__ __device__ void restart(float x) { *this = Atom(x, 0.f); }
  __host__ __device__ void pin(float x) {
    setForce(0.f);
    x_ = x;
    v_ = 0.f;
  }

 private:
  __host__ __device__ static void negate(float& value) { value = -value; }

 public:

  float x_, v_, f_;
};

// A thermal kick through a reference to the atom, as helper functions are often written.
__device__ void thermalize(Atom& a, float h) {
  a.kick(h);
  if (a.position() > 5.f) a.drift(0.f, 10.f);
}

__global__ void relaxThroughRefs(Atom* atoms, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Atom& a = atoms[i];
  a.setForce(1.0f);
  thermalize(atoms[i], 0.25f);
}

class Thermostat {
 public:
  __host__ __device__ void couple(float target, float rate) { t_ += rate * (target - t_); }
  __host__ __device__ float temperature() const { return t_; }

 private:
  float t_ = 1.0f;
  float pad_ = 0.0f;
};

__global__ void relaxCells(Thermostat* cells, int n, float target) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cells[i].couple(target, 0.1f);
}

__global__ void place(Atom* atoms, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atoms[i] = Atom(0.001f * i, 0.5f - 0.0001f * i);
}

__global__ void step(Atom* atoms, int n, float dt, float box, int substeps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atoms[i].setForce(-atoms[i].position());
  for (int s = 0; s < substeps; ++s) atoms[i].kick(0.5f * dt);
  if (box > 0.f)
    atoms[i].drift(dt, box);
  else
    atoms[i].kick(0.5f * dt);
}

__global__ void kickEvery(Atom* atoms, int n, float h) {
  int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  while (i < n) {
    atoms[i + 1].kick(h);
    i += 2 * gridDim.x * blockDim.x;
  }
}

// The same steps through a pointer to the element.
__global__ void stepThroughPointer(Atom* atoms, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Atom* a = atoms + i;
  a->setForce(-a->position());
  a->kick(0.5f * dt);
  a->drift(dt, 10.f);
}

// Member functions that write some of the fields (through the others they call, or a field bound
// to a reference), every field, or the whole object.
__global__ void restep(Atom* atoms, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atoms[i].verlet(dt, 10.f);
  if (atoms[i].position() < 0.5f) atoms[i].reflect();
  if (i == 0) atoms[i].pin(1.f);
  if (i == 1) atoms[i].restart(2.f);
}

int main() {
  const int n = 1 << 14;
  Atom* atoms = nullptr;
  cudaMalloc(&atoms, n * sizeof(Atom));
  place<<<(n + 127) / 128, 128>>>(atoms, n);
  step<<<(n + 127) / 128, 128>>>(atoms, n, 0.01f, 10.f, 2);
  kickEvery<<<16, 128>>>(atoms, n, 0.5f);
  relaxThroughRefs<<<(n + 127) / 128, 128>>>(atoms, n);
  step<<<(n + 127) / 128, 128>>>(atoms, n, 0.01f, 10.f, 1);
  stepThroughPointer<<<(n + 127) / 128, 128>>>(atoms, n, 0.02f);
  restep<<<(n + 127) / 128, 128>>>(atoms, n, 0.01f);
  Thermostat* cells = nullptr;
  cudaMalloc(&cells, 256 * sizeof(Thermostat));
  relaxCells<<<1, 256>>>(cells, 256, 2.0f);
  Thermostat firstCell;
  cudaMemcpy(&firstCell, cells, sizeof(Thermostat), cudaMemcpyDeviceToHost);
  Atom* host = new Atom[n];
  cudaMemcpy(host, atoms, n * sizeof(Atom), cudaMemcpyDeviceToHost);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += host[i].position() * (1 + i % 7);
  std::printf("checksum %.6f, first cell %.4f\n", sum, firstCell.temperature());
  delete[] host;
  cudaFree(atoms);
  cudaFree(cells);
  return 0;
}
