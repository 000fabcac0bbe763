// Included by main.cu, as older codes do, rather than compiled on its own.
__global__ void drag(Particle* p, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = speed2(p, i);
    p[i].vx -= k * s * p[i].vx;
    p[i].vy -= k * s * p[i].vy;
  }
}
