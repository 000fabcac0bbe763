// An ELL matrix of {value, column} records, rows of kWidth entries (entry (row, k) at
// row * kWidth + k), used whole: read through a const reference, and cleared by whole stores.
#include <cstdio>
#include <vector>

struct Nonzero {
  float value;
  int column;
};

constexpr int kWidth = 5;

// Every entry of each row cleared to padding.
__global__ void clearRows(Nonzero* A, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  for (int k = 0; k < kWidth; ++k) A[row * kWidth + k] = Nonzero{0.0f, -1};
}

// The identity: one entry per row, on the diagonal.
__global__ void setIdentity(Nonzero* A, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows) A[row * kWidth + 0] = Nonzero{1.0f, row};
}

// Each row's sum of stored values, its entries read through a const reference.
__global__ void rowSums(const Nonzero* A, float* sums, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int k = 0; k < kWidth; ++k) {
    const Nonzero& entry = A[row * kWidth + k];
    if (entry.column >= 0) sum += entry.value;
  }
  sums[row] = sum;
}

int main() {
  const int rows = 1000;
  Nonzero* A;
  float* sums;
  cudaMalloc(&A, size_t(rows) * kWidth * sizeof(Nonzero));
  cudaMalloc(&sums, rows * sizeof(float));
  clearRows<<<(rows + 127) / 128, 128>>>(A, rows);
  setIdentity<<<(rows + 127) / 128, 128>>>(A, rows);
  rowSums<<<(rows + 127) / 128, 128>>>(A, sums, rows);
  std::vector<float> h(rows);
  cudaMemcpy(h.data(), sums, rows * sizeof(float), cudaMemcpyDeviceToHost);
  double total = 0;
  for (float s : h) total += s;
  std::printf("total %.1f\n", total);
  cudaFree(sums);
  cudaFree(A);
  return total == rows ? 0 : 1;
}
