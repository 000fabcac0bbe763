// Colour grading of a rendered video: auto exposure, tone curve and grade, then an RGBA overlay
// composited on top; the last frame is checked against the same steps on the CPU.
// usage: color_grade [width = 3840] [height = 2160] [frames = 1000]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"
#include "pipeline.h"

namespace {

// A title banner across the lower fifth and a round logo at the top right, transparent elsewhere.
std::vector<Pixel> makeOverlay(int width, int height) {
  std::vector<Pixel> overlay(size_t(width) * height, Pixel{0, 0, 0, 0});
  const float cx = width - height * 0.12f, cy = height * 0.12f, radius = height * 0.07f;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      Pixel& p = overlay[size_t(y) * width + x];
      if (y > height * 0.78f && y < height * 0.9f) {
        const bool letter = (x / 24) % 3 != 0 && (y / 12) % 2 == 0 && x > width / 10 && x < width / 2;
        p = letter ? Pixel{250, 250, 240, 235} : Pixel{10, 30, 80, 150};
      }
      const float d = std::sqrt((x - cx) * (x - cx) + (y - cy) * (y - cy));
      if (d < radius + 1.f) {
        const float edge = std::min(1.f, radius + 1.f - d);  // anti-aliased rim
        p = Pixel{200, 40, 40, (unsigned char)std::lround(220.f * edge)};
      }
    }
  return overlay;
}

unsigned fnv1a(const std::vector<Pixel>& image) {
  unsigned h = 2166136261u;
  for (const Pixel& p : image)
    for (unsigned char c : {p.r, p.g, p.b, p.a}) h = (h ^ c) * 16777619u;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  const int width = argc > 1 ? std::atoi(argv[1]) : 3840;
  const int height = argc > 2 ? std::atoi(argv[2]) : 2160;
  const int frames = argc > 3 ? std::atoi(argv[3]) : 1000;
  if (width < 64 || height < 64 || frames < 1 || double(width) * height > 1 << 28) {
    std::fprintf(stderr, "usage: %s [width >= 64] [height >= 64] [frames >= 1] (at most 2^28 pixels)\n", argv[0]);
    return 2;
  }
  const int n = width * height;
  Grade grade;
  grade.key = 0.18f;
  grade.contrast = 0.35f;
  grade.saturation = 1.15f;
  grade.lift = make_float3(0.02f, 0.01f, 0.03f);
  grade.gain = make_float3(1.05f, 1.0f, 0.92f);
  const std::vector<Pixel> overlay = makeOverlay(width, height);

  GradingPipeline pipeline(width, height, frames, overlay, grade);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  for (int frame = 0; frame < frames; ++frame) pipeline.process(frame);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<Pixel> output;
  std::vector<unsigned> histogram;
  std::vector<float> exposures;
  pipeline.downloadOutput(output);
  pipeline.downloadHistogram(histogram);
  pipeline.downloadExposures(exposures);

  // The last frame on the CPU: the same scene, histogram and exposure, and every 7th pixel graded.
  const int last = frames - 1;
  std::vector<unsigned> refHistogram(kHistogramBins, 0);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) ++refHistogram[luma(scenePixel(x, y, width, height, last))];
  const std::vector<float> decode = makeDecodeTable();
  const std::vector<unsigned char> encode = makeEncodeTable();
  const float refExposure = exposureFromHistogram(refHistogram.data(), decode.data(), n, grade.key);
  int badPixels = 0;
  for (int i = 0; i < n; i += 7) {
    const Pixel p = scenePixel(i % width, i / width, width, height, last);
    const float3 c = grade.apply(decode[p.r], decode[p.g], decode[p.b], refExposure);
    const Pixel graded{encode[encodeSlot(c.x)], encode[encodeSlot(c.y)], encode[encodeSlot(c.z)], 255};
    const Pixel expect = blendOver(overlay[i], graded);
    const Pixel& got = output[i];
    const int diff = std::max({std::abs(got.r - expect.r), std::abs(got.g - expect.g), std::abs(got.b - expect.b),
                               std::abs(got.a - expect.a)});
    if (diff > 1) ++badPixels;
  }
  const bool histogramOk = histogram == refHistogram;
  const float exposureErr = std::fabs(exposures[last] - refExposure) / refExposure;

  double lumaSum = 0;
  for (const Pixel& p : output) lumaSum += luma(p);
  const auto [lo, hi] = std::minmax_element(exposures.begin(), exposures.end());
  std::printf("%d x %d pixels, %d frames\n", width, height, frames);
  std::printf("kernel time %.1f ms\n", ms);
  std::printf("exposure: first %.4f, last %.4f, range %.4f to %.4f\n", exposures[0], exposures[last], *lo, *hi);
  std::printf("last frame: mean luma %.4f, digest %08x\n", lumaSum / n, fnv1a(output));
  std::printf("against the CPU: histogram %s, exposure %.1e, %d sampled pixels off by more than 1\n",
              histogramOk ? "equal" : "differs", exposureErr, badPixels);
  const bool passed = histogramOk && exposureErr < 1e-4f && badPixels == 0;
  std::printf("%s (histogram exact, exposure within a relative 1e-4, every 7th pixel within 1 per channel)\n",
              passed ? "CHECK PASSED" : "CHECK FAILED");
  cudaEventDestroy(stop);
  cudaEventDestroy(start);
  return passed ? 0 : 1;
}
