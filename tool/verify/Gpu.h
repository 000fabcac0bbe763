// Whether this machine can run CUDA programs, asked of the driver library without linking it.
#pragma once

#include <string>

namespace relayout {

struct GpuAvailability {
  bool available = false;
  std::string why;   // when unavailable: a short reason for the user
  int devices = 0;   // the GPUs this process sees (CUDA_VISIBLE_DEVICES applies)
};

// RELAYOUT_NO_GPU=1 in the environment forces "unavailable" (to try the no-GPU path on a GPU machine).
GpuAvailability detectGpu();

}  // namespace relayout
