// The per-frame pipeline on the GPU: render the camera frame, histogram its luma, pick the exposure,
// grade it and composite the overlay (a title banner and a logo) over it.
#pragma once
#include <vector>

#include "grade.h"

class GradingPipeline {
 public:
  GradingPipeline(int width, int height, int frames, const std::vector<Pixel>& overlay, const Grade& grade);
  ~GradingPipeline();
  GradingPipeline(const GradingPipeline&) = delete;
  GradingPipeline& operator=(const GradingPipeline&) = delete;

  void process(int frame);

  void downloadOutput(std::vector<Pixel>& out) const;
  void downloadHistogram(std::vector<unsigned>& histogram) const;
  void downloadExposures(std::vector<float>& exposures) const;

 private:
  int width_, height_, frames_;
  Grade grade_;
  Pixel* frame_ = nullptr;
  Pixel* overlay_ = nullptr;
  Pixel* output_ = nullptr;
  unsigned* histogram_ = nullptr;
  float* decode_ = nullptr;
  unsigned char* encode_ = nullptr;
  float* exposures_ = nullptr;
};
