// Loops a CUDA developer writes: an accumulation over neighbours (drawn per iteration), a tiled
// loop with a barrier around an inner loop (neither drawn: the outer holds a loop, the inner no
// access), a loop that only calls a hooked helper (drawn), and one with a lambda (not drawn).
struct Body {
  float x, y, z, mass;
};

__device__ float weight(const Body& b, float r2) { return b.mass / (r2 + 1.0f); }

__global__ void potential(const Body* bodies, int n, float* phi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = 0.0f;
  for (int j = 0; j < n; ++j) {
    if (j == i) continue;
    float dx = bodies[j].x - bodies[i].x, dy = bodies[j].y - bodies[i].y;
    sum += bodies[j].mass * rsqrtf(dx * dx + dy * dy + 1e-3f);
  }
  phi[i] = sum;
}

__global__ void tiled(const Body* bodies, int n, float* out) {
  __shared__ float tile[128];
  float acc = 0.0f;
  for (int start = 0; start < n; start += 128) {
    tile[threadIdx.x] = bodies[start + threadIdx.x].mass;
    __syncthreads();
    for (int k = 0; k < 128; ++k) acc += tile[k];
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

__global__ void weights(const Body* bodies, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float w = 0.0f;
  for (int j = 0; j < n; ++j) w += weight(bodies[j], (float)(i - j));
  out[i] = w;
}

__global__ void scaled(const Body* bodies, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int j = 0; j < n; ++j) {
    auto scale = [](float m) { return 2.0f * m; };
    s += scale(bodies[j].mass);
  }
  out[i] = s;
}
