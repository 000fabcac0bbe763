/* The C interface between an instrumented translation unit (rt.cuh) and the host runtime
 * (librelayout_rt.a). Plain C so that it stays stable whatever compiler builds either side. */
#ifndef RELAYOUT_RT_ABI_H
#define RELAYOUT_RT_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

/* 2 added the loop counters (num_loops, fetch_loops); the runtime still accepts units of 1. */
#define RELAYOUT_ABI_VERSION 2
#define RELAYOUT_COUNTER_COLUMNS 6

/* Copies the unit's counters on the current CUDA device into out[num_sites * 6] (rows in profile
 * column order, stripes already summed). Returns a cudaError_t value (0 = success). */
typedef int (*RelayoutFetchFn)(unsigned long long* out, unsigned num_sites);

typedef struct RelayoutUnitDesc {
  unsigned abi_version; /* RELAYOUT_ABI_VERSION */
  const char* source;   /* RELAYOUT_UNIT_SOURCE: the original source path as instrumented */
  const char* sha256;   /* RELAYOUT_UNIT_SHA256: matches the site map */
  unsigned num_sites;
  unsigned block_period;
  RelayoutFetchFn fetch;
  /* From abi_version 2 on: loop body executions (lanes summed) of each loop id, into
   * out[num_loops]. Appended so that a version-1 descriptor is a prefix of this one. */
  unsigned num_loops;
  RelayoutFetchFn fetch_loops;
} RelayoutUnitDesc;

/* Called from a static constructor of each instrumented translation unit; the strings must live
 * for the whole run (they are literals). Also starts the CUPTI side of the runtime. */
void relayout_rt_register_unit(const RelayoutUnitDesc* unit);

#ifdef __cplusplus
}
#endif

#endif
