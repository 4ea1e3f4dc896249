/* cudalab_lab.h: the ABI every solution implements.
 *
 * A solution is one .cu file that defines its lab's extern "C" entry point below. The
 * grader allocates every buffer on the device, passes device pointers and a stream, and
 * times the call. Launch every kernel on `stream` (the grader waits for the whole device
 * anyway, but work on other streams is reported). Do not synchronise unless you must,
 * do not allocate with cudaMalloc per call: ask cudalab_scratch() for device scratch.
 *
 * fp16 data is IEEE binary16: `__half` in .cu files, `void` (untyped) in C.
 * This header is included by solutions (CUDA C++) and by the grader (C). */
#ifndef CUDALAB_LAB_H
#define CUDALAB_LAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#include <cuda_fp16.h>
#include <cuda_runtime.h>
typedef cudaStream_t cudalab_stream;
#define CL_HALF __half
#else
typedef void *cudalab_stream; /* a cudaStream_t */
#define CL_HALF void
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Device scratch memory owned by the grader: cached, grown on demand, 256-byte aligned,
 * contents undefined, valid until the next call of cudalab_scratch. Returns NULL when
 * the device is out of memory. Exported by the runner. */
void *cudalab_scratch(size_t bytes);

/* reduce: *out = sum of in[0..n). n >= 1. */
void reduce_sum(const float *in, float *out, int64_t n, cudalab_stream stream);

/* transpose: in is rows x cols (row-major); out is cols x rows. */
void transpose(const float *in, float *out, int rows, int cols, cudalab_stream stream);

/* softmax: row-wise, numerically stable: out[r][c] = exp(x[r][c] - max_r) / sum_r. */
void softmax(const float *in, float *out, int rows, int cols, cudalab_stream stream);

/* layernorm: per row, y = (x - mean) * rstd * gamma + beta; mean[r] and rstd[r] =
 * 1 / sqrt(var + eps) are outputs too (biased variance, as PyTorch). */
void layernorm(const float *x, const float *gamma, const float *beta, float *y, float *mean,
               float *rstd, int rows, int cols, float eps, cudalab_stream stream);

/* gemm: C = A * B; A is M x K, B is K x N, C is M x N, all row-major fp16; accumulate in
 * fp32 on Tensor Cores; K is a multiple of 8. */
void gemm_f16(const CL_HALF *A, const CL_HALF *B, CL_HALF *C, int M, int N, int K,
              cudalab_stream stream);

/* iou: out[i][j] = IoU(a[i], b[j]); boxes are (x1, y1, x2, y2); a box with x2 <= x1 or
 * y2 <= y1 has zero area; IoU is 0 when the union is 0. out is m x n. */
void box_iou(const float *a, int m, const float *b, int n, float *out, cudalab_stream stream);

/* nms: greedy non-maximum suppression. Boxes in descending score order (ties: lower
 * index first); a box is dropped when IoU with an already kept box is > iou_threshold.
 * keep[0..*num_kept) receives the kept indices in that order. keep has room for n. */
void nms(const float *boxes, const float *scores, int n, float iou_threshold, int *keep,
         int *num_kept, cudalab_stream stream);

/* topo_sort: a directed graph in CSR (edge u -> col[k] for k in row_ptr[u]..row_ptr[u+1]).
 * Writes a permutation of 0..n-1 to order in which every edge goes forward, and
 * *status = 0; or *status = 1 when the graph has a cycle (order is then ignored). */
void topo_sort(const int *row_ptr, const int *col, int n, int m, int *order, int *status,
               cudalab_stream stream);

/* paged_attention: one decode step of attention over a paged KV cache (vLLM layout).
 * For sequence s and head h (kv head g = h / (num_heads / num_kv_heads)):
 *   out[s][h] = softmax(scale * q[s][h] . K[s][g][t] for t < context_lens[s]) . V[s][g]
 * where token t of sequence s lives in physical block b = block_tables[s][t / block_size],
 * slot t % block_size: its K row starts at k_cache[((b * block_size + slot) * num_kv_heads
 * + g) * head_dim] (V likewise). Math in fp32, storage fp16.
 * `args` points to host memory (copy it and pass it to kernels by value); the pointers in
 * it are device pointers, 16-byte aligned. Table entries past a sequence's last block
 * (ceil(context_lens[s] / block_size)) are -1: never read them. block_size is a power of
 * two (16 or 32 in the lab's cases). */
typedef struct paged_attention_args {
    const CL_HALF *q;        /* [num_seqs][num_heads][head_dim] */
    const CL_HALF *k_cache;  /* [num_blocks][block_size][num_kv_heads][head_dim] */
    const CL_HALF *v_cache;  /* [num_blocks][block_size][num_kv_heads][head_dim] */
    const int *block_tables; /* [num_seqs][max_blocks_per_seq] */
    const int *context_lens; /* [num_seqs], each >= 1 */
    CL_HALF *out;            /* [num_seqs][num_heads][head_dim] */
    int num_seqs;
    int num_heads;
    int num_kv_heads;        /* divides num_heads */
    int head_dim;            /* 64 or 128 */
    int block_size;          /* tokens per block: a power of two (16, 32) */
    int max_blocks_per_seq;
    int num_blocks;          /* physical blocks in each cache (the pool) */
    float scale;             /* usually 1 / sqrt(head_dim) */
} paged_attention_args;

void paged_attention(const paged_attention_args *args, cudalab_stream stream);

#ifdef __cplusplus
}
#endif

#endif
