// Calls on elements whose accesses through `this` cannot all be counted as the element's.
struct Vec {
  float x, y;
  __device__ float len2() const { return x * x + y * y; }
};
struct Mover {
  Vec pos;
  float m;
  __device__ virtual float weight() const { return m; }
};
struct Base {
  float b;
  __device__ float getB() const { return b; }
};
struct Derived : Base {
  float d;
  __device__ float sum() const { return getB() + d; }
};
__global__ void limits(const Vec* v, const Mover* p, const Derived* q, float* out) {
  int i = threadIdx.x;
  out[i] = v[i].len2() + p[i].pos.len2() + p[i].weight() + q[i].getB() + q[i].sum();
}
