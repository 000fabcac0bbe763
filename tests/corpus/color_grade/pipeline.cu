// Kernels of the grading pipeline and the class that runs them.
#include <algorithm>
#include <cmath>

#include "check.h"
#include "pipeline.h"

namespace {

constexpr int kThreads = 256;
constexpr int kStrideBlocks = 1024;

__global__ void renderFrame(Pixel* frame, int width, int height, int index) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  frame[y * width + x] = scenePixel(x, y, width, height, index);
}

__global__ void lumaHistogram(const Pixel* frame, int n, unsigned* histogram) {
  __shared__ unsigned bins[kHistogramBins];
  for (int b = threadIdx.x; b < kHistogramBins; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const Pixel p = frame[i];
    atomicAdd(&bins[luma(p)], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kHistogramBins; b += blockDim.x)
    if (bins[b] != 0) atomicAdd(&histogram[b], bins[b]);
}

__global__ void autoExposure(const unsigned* histogram, const float* decode, int pixels, float key, float* exposure) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *exposure = exposureFromHistogram(histogram, decode, pixels, key);
}

// The tables go to shared memory once per block; the blocks then stride over the frame.
__global__ void gradeComposite(const Pixel* frame, const Pixel* overlay, Pixel* out, int n, Grade grade,
                               const float* decodeTable, const unsigned char* encodeTable, const float* exposure) {
  __shared__ float decode[kHistogramBins];
  __shared__ unsigned char encode[kEncodeSteps];
  for (int k = threadIdx.x; k < kHistogramBins; k += blockDim.x) decode[k] = decodeTable[k];
  for (int k = threadIdx.x; k < kEncodeSteps; k += blockDim.x) encode[k] = encodeTable[k];
  __syncthreads();
  const float e = *exposure;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const Pixel p = frame[i];
    const float3 c = grade.apply(decode[p.r], decode[p.g], decode[p.b], e);
    Pixel graded;
    graded.r = encode[encodeSlot(c.x)];
    graded.g = encode[encodeSlot(c.y)];
    graded.b = encode[encodeSlot(c.z)];
    graded.a = 255;
    out[i] = blendOver(overlay[i], graded);
  }
}

}  // namespace

GradingPipeline::GradingPipeline(int width, int height, int frames, const std::vector<Pixel>& overlay,
                                 const Grade& grade)
    : width_(width), height_(height), frames_(frames), grade_(grade) {
  const size_t n = size_t(width) * height;
  CHECK(cudaMalloc(&frame_, n * sizeof(Pixel)));
  CHECK(cudaMalloc(&overlay_, n * sizeof(Pixel)));
  CHECK(cudaMalloc(&output_, n * sizeof(Pixel)));
  CHECK(cudaMalloc(&histogram_, kHistogramBins * sizeof(unsigned)));
  CHECK(cudaMalloc(&decode_, kHistogramBins * sizeof(float)));
  CHECK(cudaMalloc(&encode_, kEncodeSteps));
  CHECK(cudaMalloc(&exposures_, frames * sizeof(float)));
  CHECK(cudaMemcpy(overlay_, overlay.data(), n * sizeof(Pixel), cudaMemcpyHostToDevice));
  const std::vector<float> decode = makeDecodeTable();
  const std::vector<unsigned char> encode = makeEncodeTable();
  CHECK(cudaMemcpy(decode_, decode.data(), kHistogramBins * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(encode_, encode.data(), kEncodeSteps, cudaMemcpyHostToDevice));
}

GradingPipeline::~GradingPipeline() {
  cudaFree(exposures_);
  cudaFree(encode_);
  cudaFree(decode_);
  cudaFree(histogram_);
  cudaFree(output_);
  cudaFree(overlay_);
  cudaFree(frame_);
}

void GradingPipeline::process(int frame) {
  const int n = width_ * height_;
  const dim3 tile(32, 8);
  const dim3 tiles((width_ + tile.x - 1) / tile.x, (height_ + tile.y - 1) / tile.y);
  const int blocks = std::min(kStrideBlocks, (n + kThreads - 1) / kThreads);
  renderFrame<<<tiles, tile>>>(frame_, width_, height_, frame);
  CHECK(cudaMemsetAsync(histogram_, 0, kHistogramBins * sizeof(unsigned)));
  lumaHistogram<<<blocks, kThreads>>>(frame_, n, histogram_);
  autoExposure<<<1, 32>>>(histogram_, decode_, n, grade_.key, exposures_ + frame);
  gradeComposite<<<blocks, kThreads>>>(frame_, overlay_, output_, n, grade_, decode_, encode_, exposures_ + frame);
  CHECK(cudaGetLastError());
}

void GradingPipeline::downloadOutput(std::vector<Pixel>& out) const {
  out.resize(size_t(width_) * height_);
  CHECK(cudaMemcpy(out.data(), output_, out.size() * sizeof(Pixel), cudaMemcpyDeviceToHost));
}

void GradingPipeline::downloadHistogram(std::vector<unsigned>& histogram) const {
  histogram.resize(kHistogramBins);
  CHECK(cudaMemcpy(histogram.data(), histogram_, kHistogramBins * sizeof(unsigned), cudaMemcpyDeviceToHost));
}

void GradingPipeline::downloadExposures(std::vector<float>& exposures) const {
  exposures.resize(frames_);
  CHECK(cudaMemcpy(exposures.data(), exposures_, frames_ * sizeof(float), cudaMemcpyDeviceToHost));
}

std::vector<float> makeDecodeTable() {
  std::vector<float> table(kHistogramBins);
  for (int k = 0; k < kHistogramBins; ++k) {
    const double c = k / 255.0;
    table[k] = float(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
  }
  return table;
}

std::vector<unsigned char> makeEncodeTable() {
  std::vector<unsigned char> table(kEncodeSteps);
  for (int k = 0; k < kEncodeSteps; ++k) {
    const double l = double(k) / (kEncodeSteps - 1);
    const double c = l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1 / 2.4) - 0.055;
    table[k] = (unsigned char)std::lround(255.0 * c);
  }
  return table;
}
