/* families.h: the computations behind the generated question families.
 *
 * Each function is the answer a family's generator computes (questions/gen/<name>.c),
 * exposed so the tests can check it against hand-worked examples. Parameters and
 * formulas are documented in docs/question-format.md, "Generated families". */
#ifndef CUDALAB_Q_FAMILIES_H
#define CUDALAB_Q_FAMILIES_H

#include <stdint.h>

/* ---- bank_conflict_degree --------------------------------------------------------
 * 32 banks of 4 bytes. Thread t of a warp reads element t*stride (elem_bytes each) of
 * a shared array. A request is served 128 bytes at a time: 32 threads per phase for
 * elements of 4 bytes or less, 16 for 8 bytes, 8 for 16. Threads reading the same
 * 4-byte word share it (broadcast). degree = the most distinct words one bank must
 * deliver in one phase (1 = conflict-free); wavefronts = the sum over phases. */
typedef struct cl_bank_conflict {
    int phases;
    int threads_per_phase;
    int degree;
    int wavefronts;
    int worst_bank; /* a bank with `degree` words, in the worst phase */
} cl_bank_conflict;
int cl_bank_conflict_degree(int elem_bytes, int stride_elems, cl_bank_conflict *out);

/* ---- coalesced_transactions --------------------------------------------------------
 * Thread t of a warp loads elem_bytes from byte address offset + t*stride_bytes.
 * sectors = distinct 32-byte sectors touched, lines = distinct 128-byte lines,
 * efficiency = bytes requested / bytes moved (sectors * 32). */
typedef struct cl_coalesce {
    int sectors;
    int lines;
    int useful_bytes;
    double efficiency;
} cl_coalesce;
int cl_coalesced_access(int elem_bytes, long stride_bytes, long offset_bytes, cl_coalesce *out);

/* ---- occupancy ----------------------------------------------------------------------
 * The rules of the CUDA occupancy calculator (cuda_occupancy.h), with the largest
 * shared-memory carveout. */
typedef struct cl_arch {
    const char *sm;        /* "sm_80" */
    const char *gpu;       /* "A100" */
    int max_warps;         /* per SM */
    int max_blocks;        /* per SM */
    int regs;              /* 32-bit registers per SM (and per block) */
    int reg_unit;          /* registers are allocated per warp in units of this */
    int smem_sm;           /* bytes of shared memory per SM (largest carveout) */
    int smem_block;        /* bytes a block may use (opt-in maximum), reserved excluded */
    int smem_unit;         /* allocation granularity, bytes */
    int smem_reserved;     /* bytes the system reserves per block */
} cl_arch;
extern const cl_arch cl_archs[];
extern const int cl_narchs;
const cl_arch *cl_arch_find(const char *sm);

typedef struct cl_occupancy {
    int warps_per_block;
    int regs_per_warp;     /* allocated, after rounding */
    int smem_per_block;    /* allocated, after reserve and rounding */
    int by_warps, by_blocks, by_regs, by_smem; /* blocks per SM each limit allows */
    int blocks;            /* resident blocks per SM: the smallest limit */
    int active_warps;
    double percent;        /* active_warps / max_warps * 100 */
    const char *limiter;   /* "warps", "blocks", "registers" or "shared memory" */
} cl_occupancy;
/* Returns -1 when the block cannot launch at all (too many registers or too much
 * shared memory, more than 1024 threads). */
int cl_occupancy_calc(const cl_arch *a, int threads, int regs_per_thread, int smem_bytes,
                      cl_occupancy *out);

/* ---- peak_tflops -------------------------------------------------------------------
 * SMs x clock x FLOPs per clock per SM (an FMA is 2 FLOPs), in TFLOP/s. */
double cl_peak_tflops(int sms, double clock_ghz, double flops_per_clock_per_sm);

/* ---- roofline_bound ----------------------------------------------------------------
 * attainable = min(peak, intensity x bandwidth); TFLOP/s, FLOP/byte, TB/s. *memory_bound
 * is 1 when intensity is below the ridge point peak / bandwidth. */
double cl_roofline(double peak_tflops, double bw_tbs, double intensity, int *memory_bound);

/* ---- tile_smem -----------------------------------------------------------------------
 * Bytes of a rows x (cols + pad) tile, and of a GEMM block's A (bm x bk) and B (bk x bn)
 * tiles with pad elements per row, times the pipeline stages. */
long cl_tile_bytes(int rows, int cols, int pad, int elem_bytes);
long cl_gemm_tile_smem(int bm, int bn, int bk, int pad, int elem_bytes, int stages);

/* ---- divergence_efficiency ---------------------------------------------------------
 * A block of nthreads runs `if (cond) {cost_if instructions} else {cost_else}`;
 * takes_if[t] says what thread t does. A warp whose lanes disagree runs both paths
 * with the other lanes masked. Efficiency = lane-instructions doing work / (32 x
 * instructions issued), over the branch. */
typedef struct cl_divergence {
    int divergent_warps;
    long issued;  /* warp-instructions issued */
    long useful;  /* lane-instructions that did work */
    double percent;
} cl_divergence;
int cl_divergence_efficiency(const unsigned char *takes_if, int nthreads, int cost_if,
                             int cost_else, cl_divergence *out);

/* ---- grid_size -----------------------------------------------------------------------
 * Blocks to cover n elements with `block` threads each handling per_thread elements. */
long cl_grid_blocks(long n, int block, int per_thread);

/* ---- warp_shuffle_reduce -------------------------------------------------------------
 * A tree reduction with __shfl_down_sync: offsets start at width/2 and halve while
 * >= stop. Lane 0 of each width-lane segment ends with the sum of the lanes of its
 * segment whose index is a multiple of stop (all of them when stop == 1). Returns the
 * sum lane `lane` holds (lane a multiple of width) for values v[l] = a*l + b, and the
 * number of shuffle steps. */
long cl_shfl_reduce_lane(int width, int stop, int lane, long a, long b, int *steps);
/* Shuffle instructions a block of nwarps warps issues per warp to reduce to one value:
 * 5 in every warp, then ceil(log2(nwarps)) in the warp that reduces the partials. */
int cl_shfl_block_steps(int nwarps);

/* ---- nccl_allreduce_time -------------------------------------------------------------
 * Ring all-reduce on n GPUs: 2(n-1) steps, each alpha_us of latency plus one chunk of
 * bytes/n over bw_gbs (GB/s, 1 GB = 1e9 bytes). Tree (double binary): 2 ceil(log2 n) steps
 * of alpha plus bytes / bw in total. Results in microseconds. */
double cl_ring_allreduce_us(int n, double bytes, double bw_gbs, double alpha_us);
double cl_tree_allreduce_us(int n, double bytes, double bw_gbs, double alpha_us);
/* Hierarchical: reduce-scatter and all-gather inside nodes of g GPUs over bw_intra, a ring
 * all-reduce of bytes/g across m nodes over bw_inter; latency ignored. */
double cl_hier_allreduce_us(int g, int m, double bytes, double bw_intra, double bw_inter);

/* ---- tma_smem_budget -----------------------------------------------------------------
 * Bytes of one pipeline stage (an A tile bm x bk and a B tile bk x bn of elem bytes), and
 * the stages that fit in smem_block bytes after reserving `other` bytes. */
long cl_stage_bytes(int bm, int bn, int bk, int elem_bytes);
int cl_stages_fit(long stage_bytes, long smem_block, long other);

/* ---- roofline_counters ---------------------------------------------------------------
 * From profiler counters: FLOPs = 2 * FFMA + FADD + FMUL (thread-level, FP32), bytes =
 * DRAM read + write; intensity = FLOPs / bytes; achieved = FLOPs / time. */
double cl_counter_flops(double ffma, double fadd, double fmul);

#endif
