// 03_gqa_vec16.cu: paged_attention ladder, step 3: one block per (sequence, kv head,
// partition) serves every query head of the group, with 16-byte loads.
//
// What changed: with GQA the query heads h of one kv head g share its K and V rows, so one
// block now handles all of them (up to 8 per block; more are split in chunks of 8): each
// K and V row is read once, not once per query head. A row of head_dim halves is read by a
// team of head_dim / 8 lanes, each with one 16-byte load (8 halves): 16 lanes per row at
// head_dim 128, 8 at 64, so a warp reads 2 or 4 tokens at once, and each team keeps two
// tokens' K and V loads in flight before it computes. A team reduces its dot products
// with shuffles inside the team, keeps a running (max, sum, output) per query head in
// registers, and at the end the teams of the block merge theirs through shared memory
// (the same online-softmax rule as the partition combine). The number of heads per block
// is a template parameter (1, 2, 4 or 8), so q and the accumulators stay in registers.
// The partition partials and the combine kernel are step 2's.
// Why it is faster: a quarter of the K and V load instructions (16 bytes instead of 4 or
// 8) and, for GQA, a quarter of the rows - the kernel approaches the copy bandwidth.
// The reference (reference/paged_attention.cu) goes further: Tensor Cores (mma.sync) for
// Q K^T and P V, a cp.async ring in shared memory, and an exactly balanced persistent grid
// (stream-K style) instead of fixed partitions and a second kernel.
// In a profiler: LDG.E.128 in the source view; DRAM read bytes match K + V once; check
// "Launch Statistics" for register spills (none) and the blocks per SM.
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

#define WARPS 4   // warps per block
#define PART 512  // tokens per partition
#define LOG2E 1.4426950408889634f

// The partials of (sequence, head, partition) i: m[i], l[i], acc[i * D .. + D).
struct partials {
    float *m, *l, *acc;
    int max_parts;
};

__device__ __forceinline__ void unpack8(uint4 raw, float *f)
{
    const __half2 *h = reinterpret_cast<const __half2 *>(&raw);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 v = __half22float2(h[i]);
        f[2 * i] = v.x;
        f[2 * i + 1] = v.y;
    }
}

// Block: (sequence s, kv head g, chunk of GM query heads, partition). Team = D / 8 lanes per
// token, lane `sub` of a team owns dimensions 8 sub .. 8 sub + 7.
template <int D, int GM>
__global__ void __launch_bounds__(WARPS * 32) pa_gqa_partition(paged_attention_args a, partials P, int chunks)
{
    constexpr int LANES = D / 8, TEAMS = WARPS * 32 / LANES;
    __shared__ float sm_m[TEAMS][GM], sm_l[TEAMS][GM];
    __shared__ float sm_acc[TEAMS][GM][D];

    int64_t b = blockIdx.x;
    const int part = (int)(b % P.max_parts);
    b /= P.max_parts;
    const int chunk = (int)(b % chunks);
    b /= chunks;
    const int g = (int)(b % a.num_kv_heads), s = (int)(b / a.num_kv_heads);
    const int ctx = a.context_lens[s];
    const int t0 = part * PART, t1 = min(ctx, t0 + PART);
    if (t0 >= ctx)
        return; // this sequence has fewer partitions (the whole block leaves)
    const int group = a.num_heads / a.num_kv_heads;
    const int h0 = g * group + chunk * GM;      // first query head of this block
    const int nh = min(GM, group - chunk * GM); // query heads in this block
    const int team = threadIdx.x / LANES, sub = threadIdx.x % LANES;
    const int *table = a.block_tables + (size_t)s * a.max_blocks_per_seq;

    float q[GM][8], acc[GM][8], m[GM], l[GM];
#pragma unroll
    for (int j = 0; j < GM; j++) {
        m[j] = -INFINITY;
        l[j] = 0.0f;
#pragma unroll
        for (int i = 0; i < 8; i++) {
            q[j][i] = j < nh ? __half2float(a.q[((size_t)s * a.num_heads + h0 + j) * D + sub * 8 + i]) * (a.scale * LOG2E)
                             : 0.0f;
            acc[j][i] = 0.0f;
        }
    }
    auto row_of = [&](int t) {
        const int block = table[t / a.block_size], slot = t % a.block_size;
        return (((size_t)block * a.block_size + slot) * a.num_kv_heads + g) * D + sub * 8;
    };
    // folds one token (k, v: this lane's 8 dims) into the running state; every lane calls it
    auto fold = [&](const float *k, const float *v, bool valid) {
#pragma unroll
        for (int j = 0; j < GM; j++) {
            float dot = 0.0f;
#pragma unroll
            for (int i = 0; i < 8; i++)
                dot += q[j][i] * k[i];
#pragma unroll
            for (int o = LANES / 2; o > 0; o >>= 1)
                dot += __shfl_xor_sync(0xffffffffu, dot, o);
            if (valid && j < nh) {
                const float m_new = fmaxf(m[j], dot);
                const float corr = exp2f(m[j] - m_new), p = exp2f(dot - m_new);
                l[j] = l[j] * corr + p;
#pragma unroll
                for (int i = 0; i < 8; i++)
                    acc[j][i] = acc[j][i] * corr + p * v[i];
                m[j] = m_new;
            }
        }
    };
    // the loop bound is the same for every lane of a warp, so the shuffles never diverge
    for (int base = t0; base < t1; base += 2 * TEAMS) {
        const int ta = base + team, tb = base + TEAMS + team;
        const bool va = ta < t1, vb = tb < t1;
        uint4 ka = {}, xa = {}, kb = {}, xb = {};
        if (va) {
            const size_t r = row_of(ta);
            ka = __ldg(reinterpret_cast<const uint4 *>(a.k_cache + r));
            xa = __ldg(reinterpret_cast<const uint4 *>(a.v_cache + r));
        }
        if (vb) {
            const size_t r = row_of(tb);
            kb = __ldg(reinterpret_cast<const uint4 *>(a.k_cache + r));
            xb = __ldg(reinterpret_cast<const uint4 *>(a.v_cache + r));
        }
        float k[8], v[8];
        unpack8(ka, k);
        unpack8(xa, v);
        fold(k, v, va);
        unpack8(kb, k);
        unpack8(xb, v);
        fold(k, v, vb);
    }
    // merge the teams: each leaves (m, l, acc) in shared memory
#pragma unroll
    for (int j = 0; j < GM; j++) {
        if (sub == 0) {
            sm_m[team][j] = m[j];
            sm_l[team][j] = l[j];
        }
#pragma unroll
        for (int i = 0; i < 8; i++)
            sm_acc[team][j][sub * 8 + i] = acc[j][i];
    }
    __syncthreads();
    for (int idx = threadIdx.x; idx < nh * D; idx += WARPS * 32) {
        const int j = idx / D, d = idx % D;
        float M = -INFINITY;
        for (int w = 0; w < TEAMS; w++)
            M = fmaxf(M, sm_m[w][j]);
        float L = 0.0f, o = 0.0f;
        for (int w = 0; w < TEAMS; w++) {
            const float wt = exp2f(sm_m[w][j] - M); // 0 for a team that saw no token
            L += sm_l[w][j] * wt;
            o += sm_acc[w][j][d] * wt;
        }
        const int64_t item = ((int64_t)s * a.num_heads + h0 + j) * P.max_parts + part;
        P.acc[item * D + d] = o;
        if (d == 0) {
            P.m[item] = M;
            P.l[item] = L;
        }
    }
}

// One warp per (sequence, head): merge its partitions' (m, l, acc) and write out.
template <int D>
__global__ void __launch_bounds__(WARPS * 32) pa_combine(paged_attention_args a, partials P)
{
    constexpr int PER_LANE = D / 32;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t sh = (int64_t)blockIdx.x * WARPS + warp;
    if (sh >= (int64_t)a.num_seqs * a.num_heads)
        return;
    const int s = (int)(sh / a.num_heads);
    const int parts = (a.context_lens[s] + PART - 1) / PART;
    const int64_t first = sh * P.max_parts;
    float M = -INFINITY;
    for (int p = 0; p < parts; p++)
        M = fmaxf(M, P.m[first + p]);
    float L = 0.0f, out[PER_LANE] = {};
    for (int p = 0; p < parts; p++) {
        const float w = exp2f(P.m[first + p] - M);
        L += P.l[first + p] * w;
#pragma unroll
        for (int i = 0; i < PER_LANE; i++)
            out[i] += P.acc[(first + p) * D + lane * PER_LANE + i] * w;
    }
    const float inv = 1.0f / L;
    __half *op = a.out + sh * D + lane * PER_LANE;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++)
        op[i] = __float2half_rn(out[i] * inv);
}

template <int D, int GM>
static void launch_gqa(const paged_attention_args &a, const partials &P, cudaStream_t stream)
{
    const int group = a.num_heads / a.num_kv_heads, chunks = (group + GM - 1) / GM;
    const int64_t blocks = (int64_t)a.num_seqs * a.num_kv_heads * chunks * P.max_parts;
    pa_gqa_partition<D, GM><<<(unsigned)blocks, WARPS * 32, 0, stream>>>(a, P, chunks);
}

template <int D>
static void launch(const paged_attention_args &a, cudaStream_t stream)
{
    partials P;
    P.max_parts = (int)(((int64_t)a.max_blocks_per_seq * a.block_size + PART - 1) / PART);
    if (P.max_parts < 1)
        P.max_parts = 1;
    const int64_t items = (int64_t)a.num_seqs * a.num_heads * P.max_parts;
    float *scratch = (float *)cudalab_scratch((size_t)items * (D + 2) * sizeof(float));
    if (!scratch) {
        fprintf(stderr, "paged_attention: no scratch memory for the partials\n");
        return;
    }
    P.acc = scratch;
    P.m = scratch + items * D;
    P.l = P.m + items;
    const int group = a.num_heads / a.num_kv_heads;
    if (group == 1)
        launch_gqa<D, 1>(a, P, stream);
    else if (group == 2)
        launch_gqa<D, 2>(a, P, stream);
    else if (group <= 4)
        launch_gqa<D, 4>(a, P, stream);
    else
        launch_gqa<D, 8>(a, P, stream); // groups above 8 run in chunks of 8
    const int64_t heads = (int64_t)a.num_seqs * a.num_heads;
    pa_combine<D><<<(unsigned)((heads + WARPS - 1) / WARPS), WARPS * 32, 0, stream>>>(a, P);
}

extern "C" void paged_attention(const paged_attention_args *args, cudaStream_t stream)
{
    const paged_attention_args a = *args;
    if ((int64_t)a.num_seqs * a.num_heads <= 0)
        return;
    if (a.head_dim == 128)
        launch<128>(a, stream);
    else if (a.head_dim == 64)
        launch<64>(a, stream);
    else
        fprintf(stderr, "paged_attention: head_dim %d is not 64 or 128\n", a.head_dim);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "paged_attention: launch failed: %s\n", cudaGetErrorString(err));
}
