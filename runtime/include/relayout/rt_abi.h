/* The C interface between an instrumented translation unit (rt.cuh) and the host runtime
 * (librelayout_rt.a). Plain C so that it stays stable whatever compiler builds either side. */
#ifndef RELAYOUT_RT_ABI_H
#define RELAYOUT_RT_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

/* 2 added the loop counters (num_loops, fetch_loops); 3 the per-kernel counters and the trace;
 * 4 trace_warps; 5 the functions with their token hashes; 6 the blocks run by plain clones. The
 * runtime still accepts units of 1 to 5. */
#define RELAYOUT_ABI_VERSION 6
#define RELAYOUT_COUNTER_COLUMNS 6

/* What the host needs to know of a site to describe its trace records (docs/formats.md, "Trace"). */
typedef struct RelayoutSiteInfo {
  unsigned struct_size; /* bytes of one element */
  unsigned offset;      /* byte offset of what the site touches within the element */
  unsigned field;       /* index of the site's field in the struct's fields */
  unsigned in_helper;   /* 1 when the site lies in a function that is not a kernel */
} RelayoutSiteInfo;

/* One trace record, as the file holds it. On the GPU `element` holds the grid id, `launch` the
 * kernel id (num_kernels: unknown), `unit` and `field` zero; the host fills them in when it
 * writes the file. */
typedef struct RelayoutTraceRecord {
  unsigned long long addr;
  unsigned long long element;
  unsigned launch;
  unsigned warp;
  unsigned site;
  unsigned char unit;
  unsigned char field;
  unsigned char lane;
  unsigned char group;
} RelayoutTraceRecord;

/* Copies the unit's trace buffer on the current device into out[capacity], whole warp accesses
 * from the start and then a zero record (unless full), and the number of records the kernels
 * asked to write (more than were kept when it overflowed) into *requested. Returns a cudaError_t
 * value. */
typedef int (*RelayoutFetchTraceFn)(RelayoutTraceRecord* out, unsigned long long* requested);

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
  /* From abi_version 3 on. Kernel ids index kernel_names; counters are also kept per (site,
   * kernel id), fetched as out[num_sites * (num_kernels + 1) * 6] (kernel row num_kernels: the
   * caller was not an instrumented kernel of this unit). */
  unsigned num_kernels;
  const char* const* kernel_names;
  RelayoutFetchFn fetch_kernel_sites;
  const RelayoutSiteInfo* site_info; /* num_sites entries */
  unsigned long long trace_capacity; /* records; 0 when built without --trace */
  unsigned trace_launches;           /* first launches of each kernel traced; 0 = all */
  RelayoutFetchTraceFn fetch_trace;
  unsigned sample_launches;              /* first launches of each kernel classified; 0 = all */
  RelayoutFetchFn fetch_kernel_blocks;   /* out[(num_kernels + 1) * 2]: blocks run, blocks classified */
  unsigned exec_period;                  /* about one warp-level execution in this many classified */
  /* From abi_version 4 on: warps traced in each traced launch of a kernel (its first classifying
   * warps in grid order); 0 when built without --trace. */
  unsigned trace_warps;
  /* From abi_version 5 on: the site map's functions[] (names and token hashes, num_functions
   * entries each) and, per site id, the index of its function, so that the profile can say which
   * counters belong to which version of which function. 0 and null for hand-made units. */
  unsigned num_functions;
  const char* const* function_names;
  const char* const* function_hashes;
  const unsigned* site_functions; /* num_sites entries */
  /* From abi_version 6 on: per kernel id (and the unknown row), the thread blocks run by launches
   * of the kernel's plain clone, counted on the host at the launch (num_kernels + 1 entries); they
   * add to the blocks run that fetch_kernel_blocks reads on each device. */
  const unsigned long long* plain_blocks;
} RelayoutUnitDesc;

/* Called from a static constructor of each instrumented translation unit; the strings must live
 * for the whole run (they are literals). Also starts the CUPTI side of the runtime. */
void relayout_rt_register_unit(const RelayoutUnitDesc* unit);

/* Where the profile goes when $RELAYOUT_PROFILE is not set (a pattern: %p, %h, %m, %%); the first
 * call wins. `relayout nvcc --relayout-generate=DIR` compiles a call into each unit. */
void relayout_rt_set_default_profile(const char* pattern);

/* Whether a host launch of `kernel` (the instrumented kernel's host function: one per template
 * instantiation) runs instrumented: the first `launches` launches of each do, the others run the
 * kernel's plain clone. Counted per process. */
int relayout_rt_launch_hooked(const void* kernel, unsigned launches);

/* The same for a launch of `blocks` thread blocks: after the first `launches`, up to
 * RELAYOUT_GROWTH_LAUNCHES later ones whose grid grew (rt_common.h, __rl_launch_grew) past the
 * largest run instrumented before also do, and the first `checkpoints` checkpoint launches
 * (__rl_checkpoint_index). */
int relayout_rt_launch_hooked_grid(const void* kernel, unsigned launches, unsigned checkpoints,
                                   unsigned long long blocks);

#ifdef __cplusplus
}
#endif

#endif
