// A sparse matrix in ELL form: each row's kWidth nonzeros as {value, column} records, row-major
// (entry (row, k) at row * kWidth + k); padding entries have column -1.
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Nonzero {
  float value;
  int column;
};

constexpr int kWidth = 7;

// y = A x, one thread per row.
__global__ void spmv(const Nonzero* A, const float* x, float* y, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int k = 0; k < kWidth; ++k) {
    const int column = A[row * kWidth + k].column;
    if (column >= 0) sum += A[row * kWidth + k].value * x[column];
  }
  y[row] = sum;
}

// Scales every stored value; the entry index is a local, used only to index the matrix.
__global__ void scale(Nonzero* A, float factor, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int k = 0; k < kWidth; ++k) {
    const size_t e = (size_t)row * kWidth + k;
    A[e].value *= factor;
  }
}

// The diagonal, found by its column: an index that is not written `row * kWidth + k`.
__global__ void diagonal(const Nonzero* A, float* d, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int at = row * kWidth;
  while (A[at].column != row) ++at;
  d[row] = A[at].value;
}

// The largest stored value of each row, its entries copied whole.
__global__ void rowMax(const Nonzero* A, float* m, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float best = 0.0f;
  for (int k = 0; k < kWidth; ++k) {
    const Nonzero entry = A[row * kWidth + k];
    if (entry.column >= 0 && entry.value > best) best = entry.value;
  }
  m[row] = best;
}

int main() {
  const int rows = 1000;
  std::vector<Nonzero> h(size_t(rows) * kWidth);
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < kWidth; ++k) {
      int c = r + k - kWidth / 2;
      h[size_t(r) * kWidth + k] = c >= 0 && c < rows ? Nonzero{k == kWidth / 2 ? 4.0f : -0.5f, c} : Nonzero{0.0f, -1};
    }
  std::vector<float> x(rows, 1.0f), y(rows), d(rows);
  Nonzero* A;
  float *dx, *dy, *dd;
  cudaMalloc(&A, h.size() * sizeof(Nonzero));
  cudaMalloc(&dx, rows * sizeof(float));
  cudaMalloc(&dy, rows * sizeof(float));
  cudaMalloc(&dd, rows * sizeof(float));
  cudaMemcpy(A, h.data(), h.size() * sizeof(Nonzero), cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x.data(), rows * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<(rows + 127) / 128, 128>>>(A, 2.0f, rows);
  spmv<<<(rows + 127) / 128, 128>>>(A, dx, dy, rows);
  diagonal<<<(rows + 127) / 128, 128>>>(A, dd, rows);
  rowMax<<<(rows + 127) / 128, 128>>>(A, dx, rows);
  cudaMemcpy(y.data(), dy, rows * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(d.data(), dd, rows * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(h.data(), A, h.size() * sizeof(Nonzero), cudaMemcpyDeviceToHost);
  double sum = 0;
  for (int r = 0; r < rows; ++r) sum += y[r] + d[r] + h[size_t(r) * kWidth].value;
  printf("checksum %.3f\n", sum);
  return 0;
}
