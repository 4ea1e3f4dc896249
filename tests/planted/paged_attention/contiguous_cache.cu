// expect: wrong
// expect-message: > bound
// What is wrong: it reads the KV cache as if each sequence's blocks were stored one after
// another (block s * max_blocks_per_seq + t / block_size) instead of looking the block up
// in block_tables. With a paged cache the blocks of a sequence are anywhere in the pool,
// so it attends to other sequences' tokens (it stays inside the pool, so no fault).
#define BLOCK_OF(a, s, t) ((s) * (a).max_blocks_per_seq + (t) / (a).block_size) /* the bug */
#define MAX_USED(m) (m)
#include <cstdio>

#include "cudalab_lab.h"

// A simple three-kernel attention (scores to global memory, softmax statistics, then
// P * V): slow but otherwise straightforward.

__device__ __forceinline__ const __half *kv_row(const paged_attention_args &a, const __half *cache, int s, int g, int t)
{
    int b = BLOCK_OF(a, s, t);
    return cache + (((size_t)b * a.block_size + t % a.block_size) * a.num_kv_heads + g) * a.head_dim;
}

// scores[s][h][t] = scale * q . k_t, one thread per (s, h, t)
__global__ void scores_kernel(const paged_attention_args a, float *scores, int max_ctx)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x, h = blockIdx.y, s = blockIdx.z;
    if (t >= a.context_lens[s])
        return;
    int g = h / (a.num_heads / a.num_kv_heads);
    const __half *q = a.q + ((size_t)s * a.num_heads + h) * a.head_dim, *k = kv_row(a, a.k_cache, s, g, t);
    float dot = 0.f;
    for (int d = 0; d < a.head_dim; d++)
        dot += __half2float(q[d]) * __half2float(k[d]);
    scores[((size_t)s * a.num_heads + h) * max_ctx + t] = dot * a.scale;
}

// stats[s][h] = (max, sum of exp), one block of 256 per (s, h)
__global__ void stats_kernel(const paged_attention_args a, const float *scores, float *stats, int max_ctx)
{
    __shared__ float red[256];
    int h = blockIdx.x, s = blockIdx.y, ctx = a.context_lens[s];
    const float *sc = scores + ((size_t)s * a.num_heads + h) * max_ctx;
    float mx = -INFINITY;
    for (int t = threadIdx.x; t < ctx; t += 256)
        mx = fmaxf(mx, sc[t]);
    red[threadIdx.x] = mx;
    __syncthreads();
    for (int w = 128; w > 0; w /= 2) {
        if (threadIdx.x < w)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + w]);
        __syncthreads();
    }
    mx = MAX_USED(red[0]);
    __syncthreads();
    float sum = 0.f;
    for (int t = threadIdx.x; t < ctx; t += 256)
        sum += expf(sc[t] - mx);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int w = 128; w > 0; w /= 2) {
        if (threadIdx.x < w)
            red[threadIdx.x] += red[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        stats[2 * ((size_t)s * a.num_heads + h)] = mx;
        stats[2 * ((size_t)s * a.num_heads + h) + 1] = red[0];
    }
}

// out[s][h][d] = sum_t p_t v_t[d], one thread per (s, h, d)
__global__ void pv_kernel(const paged_attention_args a, const float *scores, const float *stats, int max_ctx)
{
    int d = threadIdx.x, h = blockIdx.x, s = blockIdx.y, ctx = a.context_lens[s];
    int g = h / (a.num_heads / a.num_kv_heads);
    size_t sh = (size_t)s * a.num_heads + h;
    float mx = stats[2 * sh], sum = stats[2 * sh + 1], acc = 0.f;
    for (int t = 0; t < ctx; t++)
        acc += expf(scores[sh * max_ctx + t] - mx) * __half2float(kv_row(a, a.v_cache, s, g, t)[d]);
    a.out[sh * a.head_dim + d] = __float2half(acc / sum);
}

extern "C" void paged_attention(const paged_attention_args *args, cudaStream_t stream)
{
    const paged_attention_args a = *args;
    int max_ctx = a.max_blocks_per_seq * a.block_size;
    size_t rows = (size_t)a.num_seqs * a.num_heads;
    float *scores = (float *)cudalab_scratch(rows * ((size_t)max_ctx + 2) * sizeof(float));
    if (!scores) {
        fprintf(stderr, "paged_attention: no scratch\n");
        return;
    }
    float *stats = scores + rows * (size_t)max_ctx;
    scores_kernel<<<dim3((max_ctx + 127) / 128, a.num_heads, a.num_seqs), 128, 0, stream>>>(a, scores, max_ctx);
    stats_kernel<<<dim3(a.num_heads, a.num_seqs), 256, 0, stream>>>(a, scores, stats, max_ctx);
    pv_kernel<<<dim3(a.num_heads, a.num_seqs), a.head_dim, 0, stream>>>(a, scores, stats, max_ctx);
}
