// `relayout profile --hw` (RELAYOUT_HW=1): the CUPTI SASS Metrics side. CuptiRuntime.cpp calls
// these from its one CUPTI subscription; each does nothing unless RELAYOUT_HW is set. Any CUPTI
// failure prints one `relayout: --hw: ...` warning and the run goes on without hardware metrics.
// RELAYOUT_HW_DEBUG=1 also prints the metric ids registered with CUPTI and the first 5 raw SASS
// records (cubin CRC, function, pc offset, every metric id and value) on stderr.
#pragma once

#include <cupti.h>

#include <string>

namespace relayout::rt::hw {

// Before anything initializes the CUDA driver: asks it to load modules eagerly (kernels whose
// module loads at their own launch are not patched).
void prepareProcess();

// Once the subscriber exists: also watch module loads, whose cubins map instructions to lines.
void start(CUpti_SubscriberHandle subscriber);

// Resource-domain callbacks of that subscriber (module loads).
void onResource(CUpti_CallbackId cbid, const void* data);

// At kernel launches (API entry), with the kernel's mangled name: the first time a context is seen,
// configures its device for the SASS metrics and enables lazy patching on it. CUPTI (13.0, H100)
// then patches only the kernel being launched, so with RELAYOUT_HW_KERNEL set the enable waits for
// the first launch of that kernel.
void noteContext(CUcontext ctx, const char* kernel);

// After the kernels finished: reads every enabled context's per-instruction metrics, maps them
// to source lines, disables patching, and returns the profile's `hw` object as JSON text; ""
// when RELAYOUT_HW is not set or something failed (then a warning was printed).
std::string collect(const std::string& device);

}  // namespace relayout::rt::hw
