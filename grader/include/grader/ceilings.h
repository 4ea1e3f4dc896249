/* ceilings.h: what this GPU can do at best, measured once and cached.
 *
 * cudalab-probe measures three bandwidths (copy: bytes read + written; read-only;
 * write-only; each the best of a few vectorised kernels, and for copy and write also the
 * driver's cudaMemcpy / cudaMemset) and cuBLAS's fp16 Tensor Core rate; the result is
 * cached per GPU (UUID + driver version) in $XDG_CACHE_HOME/cudalab/device-<uuid>-<driver>.json.
 * Every memory-bound lab is graded as a fraction of the bandwidth its lab.yaml names
 * (`ceiling: copy | read | write`). */
#ifndef CUDALAB_CEILINGS_H
#define CUDALAB_CEILINGS_H

#include <jansson.h>

#include "err.h"

typedef struct cl_ceilings {
    char name[128];
    char uuid[64];
    int driver_version, runtime_version;
    int cc_major, cc_minor, sms, clock_mhz, mem_clock_mhz, bus_width_bits, l2_bytes, smem_per_sm;
    long long mem_total;
    double copy_gbps, copy_kernel_gbps, memcpy_gbps, fp16_tflops, dram_peak_gbps;
    double read_gbps;                     /* read-only stream, bytes read */
    double write_gbps, write_kernel_gbps, memset_gbps; /* write-only, bytes written */
    int fp16_gemm_n;
    long long measured_at;
    int from_cache;
    char cache_path[4096];
} cl_ceilings;

/* Runs cudalab-probe (next to cudalab) with args; its JSON object in *out (decref it).
 * Fails with the probe's own message when it reports an error. */
int cl_probe_json(const char *const *args, int nargs, double timeout_s, json_t **out, cl_err *err);
/* Cached ceilings of the first visible GPU, measuring them when absent or refresh.
 * progress (may be NULL) is told when a measurement starts. */
int cl_ceilings_get(int refresh, cl_ceilings *c, void (*progress)(void *ctx, const char *msg), void *ctx,
                    cl_err *err);
/* cuBLAS fp16 TFLOP/s for n row-major shapes (M, N, K) in one probe process. */
int cl_cublas_tflops(int n, const long long (*shapes)[3], double *tflops, cl_err *err);

#endif
