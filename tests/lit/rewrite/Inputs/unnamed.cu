// Members whose types have no name: a union (Sample::u), an anonymous struct (Body::pos, in a
// namespace), and an array of an anonymous struct (Track::hits, refused).
struct Sample {
  union { float f; int i; } u;
  float y;
};

namespace sim {
struct Body {
  struct { float x, y; } pos;
  float mass;
  int tag;
};
}  // namespace sim

struct Track {
  struct { float t; } hits[2];
  float w;
};

__global__ void scale(Sample* __restrict__ s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) s[i].y *= s[i].u.f;
}

__global__ void move(sim::Body* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    sim::Body c = b[i];
    b[i].pos.x += c.mass;
  }
}

__global__ void last(Track* t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i].w = t[i].hits[1].t;
}

int main() {
  const int n = 64;
  Sample* s;
  sim::Body* b;
  Track* t;
  cudaMalloc(&s, n * sizeof(Sample));
  cudaMalloc(&b, n * sizeof(sim::Body));
  cudaMalloc(&t, n * sizeof(Track));
  scale<<<1, n>>>(s, n);
  move<<<1, n>>>(b, n);
  last<<<1, n>>>(t, n);
  cudaFree(s);
  cudaFree(b);
  cudaFree(t);
  return 0;
}
