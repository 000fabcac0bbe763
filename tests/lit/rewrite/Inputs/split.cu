// SoA array fields split by index: one run of `stride` values per index, read and written with
// constant and run-time subscripts, through restrict locals, a template's overload, whole-element
// copies, and host code of pinned memory; copied whole, in slices and between blocks.
#include <vector>

struct Face {
  float area;
  int neighbor[4];
  float normal[4][3];
};

__device__ float weight(const Face* __restrict__ f, int i, int j) {
  return f[i].normal[j][1] + f[i].normal[2][j % 3] + f->neighbor[3];
}

template <class T>
static float corner(const T* f, int i) { return f[i].normal[0][0] + f[i].neighbor[i % 4]; }

__global__ void flux(const Face* faces, Face* out, float* sum, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int j = 0; j < 4; ++j) {
    const int nb = faces[i].neighbor[j];
    if (nb >= 0) s += faces[i].normal[j][0] * faces[nb].area + weight(faces, i, j);
  }
  out[i].neighbor[(i + 1) % 4] = faces[i].neighbor[0];
  (out[i].normal[1])[2] += s;
  out[i].normal[threadIdx.x % 4][1]++;
  Face copy = faces[i];
  copy.normal[3][2] = weight(faces, i, 1);
  out[(i + 7) % n] = copy;
  sum[i] = s;
}

int main() {
  const int n = 256, half = 100;
  std::vector<Face> h(n);
  Face* d_faces;
  Face* d_out;
  float* d_sum;
  cudaMalloc(&d_faces, n * sizeof(Face));
  cudaMalloc(&d_out, n * sizeof(Face));
  cudaMalloc(&d_sum, n * sizeof(float));
  cudaMemcpy(d_faces, h.data(), half * sizeof(Face), cudaMemcpyHostToDevice);
  cudaMemcpy(d_faces + half, h.data() + half, (n - half) * sizeof(Face), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, n * sizeof(Face));
  flux<<<n / 128, 128>>>(d_faces, d_out, d_sum, n);
  cudaMemcpy(d_faces, d_out, n * sizeof(Face), cudaMemcpyDeviceToDevice);
  cudaMemcpy(h.data() + half, d_out + half, (n - half) * sizeof(Face), cudaMemcpyDeviceToHost);
  Face* pinned;
  cudaMallocHost(&pinned, n * sizeof(Face));
  cudaMemcpyAsync(pinned, d_out, n * sizeof(Face), cudaMemcpyDeviceToHost, 0);
  cudaDeviceSynchronize();
  float total = 0;
  for (int i = 0; i < n; ++i) total += pinned[i].normal[i % 4][2] + pinned[i].neighbor[3];
  total += corner(pinned, 3);
  cudaFreeHost(pinned);
  cudaFree(d_faces);
  cudaFree(d_out);
  cudaFree(d_sum);
  return total > 0;
}
