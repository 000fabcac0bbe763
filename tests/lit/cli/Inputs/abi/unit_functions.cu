// A unit as the instrumenter prepares it for runtime ABI 5: the functions with their token hashes
// and each site's function (-DOLDER: a unit instrumented before them). The test overrides
// RELAYOUT_SITE_FUNCTIONS on the command line.
#define RELAYOUT_UNIT_SOURCE "unit_functions.cu"
#define RELAYOUT_UNIT_SHA256 "0000000000000000000000000000000000000000000000000000000000000000"
#define RELAYOUT_NUM_SITES 3
#ifndef OLDER
#define RELAYOUT_NUM_FUNCTIONS 2
#define RELAYOUT_FUNCTION_NAMES "kick", "drift"
#define RELAYOUT_FUNCTION_HASHES "0123456789abcdef", "fedcba9876543210"
#ifndef RELAYOUT_SITE_FUNCTIONS
#define RELAYOUT_SITE_FUNCTIONS 0, 0, 1
#endif
#endif
#include <relayout/rt.cuh>

struct P { float x, y; };
__global__ void kick(P* p) { (*__rl_site(0, &(p[threadIdx.x].x))) += 1.0f; }

#ifdef WITH_MAIN
int main() { return 0; }
#endif
