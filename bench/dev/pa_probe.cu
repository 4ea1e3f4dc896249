// pa_probe.cu: where does paged_attention lose time against a plain read of the same bytes?
//
// One process, one GPU, no grader: times (median of 30, L2 evicted by a 256 MB read that
// also keeps the GPU busy while the host enqueues the timed work) at several context lengths
//   stream   a read of the K and V bytes laid out contiguously (the ceiling for this pattern)
//   gath*    a read of the same rows through the block table, nothing computed: a CTA per
//            (partition, kv head) (gkvf*: kv heads side by side in the grid), or per
//            partition with all kv heads (gall*: whole contiguous block rows)
//   ldgsts   persistent CTAs with a cp.async ring per warp: the reference's loads alone
//   tma      persistent CTAs copying whole blocks with TMA bulk copies
//   ref      the paged_attention of the file compiled in (-DPA_SRC="path")
// each with a shuffled block table (as the lab's cases) and an identity one. The time at
// several lengths separates a fixed cost (launches, ramp-up, tail, combine) from the rate.
//   nvcc -O3 -std=c++17 -arch=sm_90 -Ilabs/include -DPA_SRC='"../../reference/paged_attention.cu"' \
//        bench/dev/pa_probe.cu -o build/pa_probe && build/pa_probe [KV_HEADS]
//   build/pa_probe shape SEQS HEADS KV_HEADS DIM BLOCK CTX      (the reference on one shape)
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "cudalab_lab.h"

extern "C" void *cudalab_scratch(size_t bytes)
{
    static void *p;
    static size_t n;
    if (bytes > n) {
        cudaFree(p);
        p = nullptr;
        n = 0;
        if (cudaMalloc(&p, bytes) != cudaSuccess)
            return nullptr;
        n = bytes;
    }
    return p;
}

#include PA_SRC

#define CK(x)                                                                                                       \
    do {                                                                                                            \
        cudaError_t e_ = (x);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                    \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                            \
            exit(1);                                                                                                \
        }                                                                                                           \
    } while (0)

__global__ void fill_kernel(uint32_t *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        uint32_t x = (uint32_t)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        // two halves in [-1, 1): sign, exponent 14 (0.5..1 scaled), random mantissa
        uint32_t lo = 0x3800u | (x & 0x3ffu) | ((x >> 10) & 1u) << 15;
        uint32_t hi = 0x3800u | ((x >> 11) & 0x3ffu) | ((x >> 21) & 1u) << 15;
        p[i] = lo | hi << 16;
    }
}

__global__ void read_stream_kernel(const uint4 *a, size_t n, int *sink)
{
    uint32_t x = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++)
            v[u] = __ldcs(a + i + u * stride);
#pragma unroll
        for (int u = 0; u < 4; u++)
            x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    for (; i < n; i += stride) {
        uint4 v = __ldcs(a + i);
        x ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

// The rows paged_attention must read, read and nothing else: CTA per (partition, kv head, seq).
// KV_FAST: grid (kv head, partition, seq) instead of (partition, kv head, seq).
template <bool KV_FAST>
__global__ void gather_kernel(const paged_attention_args a, int part_tokens, int log2_bs, int *sink)
{
    const int D = a.head_dim, cpr = D / 8;
    const int seq = blockIdx.z, g = KV_FAST ? blockIdx.x : blockIdx.y, start = (KV_FAST ? blockIdx.y : blockIdx.x) * part_tokens;
    const int ctx = a.context_lens[seq];
    if (start >= ctx)
        return;
    const int end = min(start + part_tokens, ctx);
    const int *table = a.block_tables + (size_t)seq * a.max_blocks_per_seq;
    const size_t row_stride = (size_t)a.num_kv_heads * D;
    uint32_t x = 0;
    const int n = (end - start) * cpr;
    for (int base = threadIdx.x; base < n; base += 4 * blockDim.x) {
        uint4 v[8];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            int id = base + u * blockDim.x;
            v[2 * u] = v[2 * u + 1] = make_uint4(0, 0, 0, 0);
            if (id < n) {
                int tok = start + id / cpr;
                size_t row = ((size_t)table[tok >> log2_bs] << log2_bs) + (tok & ((1 << log2_bs) - 1));
                size_t off = row * row_stride + (size_t)g * D + (id % cpr) * 8;
                v[2 * u] = __ldcs(reinterpret_cast<const uint4 *>(a.k_cache + off));
                v[2 * u + 1] = __ldcs(reinterpret_cast<const uint4 *>(a.v_cache + off));
            }
        }
#pragma unroll
        for (int u = 0; u < 8; u++)
            x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

// All kv heads of a partition in one CTA: a block's rows are one contiguous range.
__global__ void gather_all_kernel(const paged_attention_args a, int part_tokens, int log2_bs, int *sink)
{
    const int row_chunks = a.num_kv_heads * a.head_dim / 8; // 16-byte chunks per token slot
    const int seq = blockIdx.z, start = blockIdx.x * part_tokens;
    const int ctx = a.context_lens[seq];
    if (start >= ctx)
        return;
    const int end = min(start + part_tokens, ctx);
    const int *table = a.block_tables + (size_t)seq * a.max_blocks_per_seq;
    uint32_t x = 0;
    const int n = (end - start) * row_chunks;
    for (int base = threadIdx.x; base < n; base += 4 * blockDim.x) {
        uint4 v[8];
#pragma unroll
        for (int u = 0; u < 4; u++) {
            int id = base + u * blockDim.x;
            v[2 * u] = v[2 * u + 1] = make_uint4(0, 0, 0, 0);
            if (id < n) {
                int tok = start + id / row_chunks;
                size_t row = ((size_t)table[tok >> log2_bs] << log2_bs) + (tok & ((1 << log2_bs) - 1));
                size_t off = row * row_chunks * 8 + (size_t)(id % row_chunks) * 8;
                v[2 * u] = __ldcs(reinterpret_cast<const uint4 *>(a.k_cache + off));
                v[2 * u + 1] = __ldcs(reinterpret_cast<const uint4 *>(a.v_cache + off));
            }
        }
#pragma unroll
        for (int u = 0; u < 8; u++)
            x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

// ---- load mechanisms for a persistent CTA that owns U/grid units of (seq, 16 tokens, all kv
// heads): the K and V rows of a unit are 2 x 32 KB (8 kv heads x 256 B x 16 slots) ----

__device__ __forceinline__ uint32_t sm32(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

// (a) per-warp cp.async rings, 3 stages of 8 KB: warp w copies kv head w's 16 rows.
__global__ void __launch_bounds__(256) ldgsts_units_kernel(const paged_attention_args a, int *sink)
{
    extern __shared__ __align__(128) unsigned char sm[];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, D = 128;
    const long long tiles = a.max_blocks_per_seq, U = (long long)a.num_seqs * tiles; // block 16: tile = block
    const long long u0 = blockIdx.x * U / gridDim.x, u1 = (blockIdx.x + 1) * U / gridDim.x;
    unsigned char *ring = sm + warp * 3 * 8192;
    const size_t row_stride = (size_t)a.num_kv_heads * D;
    auto load = [&](long long u, int st) {
        int seq = (int)(u / tiles), t = (int)(u % tiles);
        size_t row0 = (size_t)a.block_tables[(size_t)seq * a.max_blocks_per_seq + t] * 16 + lane / 16;
        const __half *kr = a.k_cache + row0 * row_stride + warp * D + (lane % 16) * 8;
        const __half *vr = a.v_cache + row0 * row_stride + warp * D + (lane % 16) * 8;
        uint32_t dst = sm32(ring) + st * 8192 + lane * 16;
#pragma unroll
        for (int i = 0; i < 8; i++) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst + i * 512), "l"(kr + (size_t)i * 2 * row_stride));
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst + 4096 + i * 512), "l"(vr + (size_t)i * 2 * row_stride));
        }
    };
    uint32_t x = 0;
    for (int k = 0; k < 2; k++) {
        if (u0 + k < u1)
            load(u0 + k, k);
        asm volatile("cp.async.commit_group;\n");
    }
    int st = 0;
    for (long long u = u0; u < u1; u++) {
        if (u + 2 < u1)
            load(u + 2, (st + 2) % 3);
        asm volatile("cp.async.commit_group;\n");
        asm volatile("cp.async.wait_group 2;\n");
        __syncwarp();
        x ^= *reinterpret_cast<uint32_t *>(ring + st * 8192 + lane * 4);
        __syncwarp();
        st = st == 2 ? 0 : st + 1;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

// (b) TMA bulk copies: one thread copies a unit's K and V (2 x 32 KB contiguous) into a
// 3-stage ring; mbarriers signal arrival; all warps release a stage before it is refilled.
__global__ void __launch_bounds__(256) tma_units_kernel(const paged_attention_args a, int *sink)
{
    extern __shared__ __align__(128) unsigned char sm[];
    __shared__ __align__(8) unsigned long long full[3];
    const int D = 128;
    const long long tiles = a.max_blocks_per_seq, U = (long long)a.num_seqs * tiles;
    const long long u0 = blockIdx.x * U / gridDim.x, u1 = (blockIdx.x + 1) * U / gridDim.x;
    const uint32_t unit_bytes = 16u * a.num_kv_heads * D * 2; // one K block
    if (threadIdx.x == 0)
        for (int i = 0; i < 3; i++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(sm32(&full[i])));
    asm volatile("fence.proxy.async.shared::cta;\n");
    __syncthreads();
    auto load = [&](long long u, int st) {
        int seq = (int)(u / tiles), t = (int)(u % tiles);
        size_t blk = (size_t)a.block_tables[(size_t)seq * a.max_blocks_per_seq + t];
        const __half *k = a.k_cache + blk * 16 * a.num_kv_heads * D, *v = a.v_cache + blk * 16 * a.num_kv_heads * D;
        uint32_t bar = sm32(&full[st]), dst = sm32(sm) + st * 2 * unit_bytes;
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(2 * unit_bytes));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
                     "l"(k), "r"(unit_bytes), "r"(bar));
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst + unit_bytes),
                     "l"(v), "r"(unit_bytes), "r"(bar));
    };
    if (threadIdx.x == 0)
        for (int k = 0; k < 2; k++)
            if (u0 + k < u1)
                load(u0 + k, k);
    uint32_t x = 0;
    int st = 0, phase[3] = {0, 0, 0};
    for (long long u = u0; u < u1; u++) {
        if (threadIdx.x == 0 && u + 2 < u1)
            load(u + 2, (st + 2) % 3);
        uint32_t bar = sm32(&full[st]), done = 0;
        while (!done)
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }\n"
                         : "=r"(done)
                         : "r"(bar), "r"(phase[st]));
        phase[st] ^= 1;
        x ^= *reinterpret_cast<uint32_t *>(sm + st * 2 * unit_bytes + threadIdx.x * 4);
        __syncthreads(); // everyone is done with this stage before it is refilled
        st = st == 2 ? 0 : st + 1;
    }
    if (x == 0x12345678u)
        *sink = 1;
}

static void *flush_buf;
static int *sink;

template <class F> static float time_ms(F fn)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<float> t;
    for (int r = 0; r < 33; r++) {
        read_stream_kernel<<<1024, 256>>>((const uint4 *)flush_buf, (256u << 20) / 16, sink); // evict L2, stay busy
        CK(cudaEventRecord(e0));
        fn();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 3)
            t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return t[t.size() / 2];
}

// One batch of inputs on the GPU: S sequences of T tokens (sequence 0 at T and the others
// spread over 1..T when vary), random q/K/V in [-1, 1), a pool 1/16 larger than used.
struct pa_batch {
    paged_attention_args a;
    double bytes; // what must move, as the lab counts it
    int pool;

    pa_batch(int S, int H, int KVH, int D, int BS, int T, bool vary)
    {
        const int nb = (T + BS - 1) / BS;
        pool = S * nb + S * nb / 16;
        const size_t cache_elems = (size_t)pool * BS * KVH * D;
        __half *q, *k, *v, *out;
        int *tables, *lens;
        CK(cudaMalloc(&q, (size_t)S * H * D * 2));
        CK(cudaMalloc(&out, (size_t)S * H * D * 2));
        CK(cudaMalloc(&k, cache_elems * 2));
        CK(cudaMalloc(&v, cache_elems * 2));
        CK(cudaMalloc(&tables, (size_t)S * nb * 4));
        CK(cudaMalloc(&lens, S * 4));
        fill_kernel<<<1024, 256>>>((uint32_t *)q, (size_t)S * H * D / 2, 1);
        fill_kernel<<<4096, 256>>>((uint32_t *)k, cache_elems / 2, 2);
        fill_kernel<<<4096, 256>>>((uint32_t *)v, cache_elems / 2, 3);
        std::vector<int> hl(S, T);
        for (int i = 1; vary && i < S; i++)
            hl[i] = 1 + (int)((i * 2654435761u) % (unsigned)T);
        CK(cudaMemcpy(lens, hl.data(), S * 4, cudaMemcpyHostToDevice));
        a = paged_attention_args{q, k, v, tables, lens, out, S, H, KVH, D, BS, nb, pool, 1.f / sqrtf((float)D)};
        bytes = 2.0 * S * KVH * T * D * 2 + 2.0 * S * H * D * 2 + S * 4 + (double)S * nb * 4;
        set_table(true);
    }
    // block tables: slices of one shuffled permutation of the pool (as the lab), or in order
    void set_table(bool shuffled)
    {
        std::vector<int> perm(pool);
        for (int i = 0; i < pool; i++)
            perm[i] = i;
        if (shuffled)
            std::shuffle(perm.begin(), perm.end(), std::mt19937(42));
        CK(cudaMemcpy((void *)a.block_tables, perm.data(), (size_t)a.num_seqs * a.max_blocks_per_seq * 4,
                      cudaMemcpyHostToDevice));
    }
    ~pa_batch()
    {
        cudaFree((void *)a.q);
        cudaFree(a.out);
        cudaFree((void *)a.k_cache);
        cudaFree((void *)a.v_cache);
        cudaFree((void *)a.block_tables);
        cudaFree((void *)a.context_lens);
    }
};

// pa_probe shape SEQS HEADS KV_HEADS DIM BLOCK CTX: the reference alone on one shape
// (shuffled block table), for the shapes the PyTorch peer times with --all-shapes.
static int one_shape(int S, int H, int KVH, int D, int BS, int T)
{
    pa_batch b(S, H, KVH, D, BS, T, getenv("PA_PROBE_VARY") != nullptr);
    const paged_attention_args &a = b.a;
    const double bytes = b.bytes;
    const float ms = time_ms([&] { paged_attention(&a, 0); });
    if (const char *dump = getenv("PA_PROBE_DUMP")) { // the output, for comparing two builds
        std::vector<__half> h((size_t)S * H * D);
        CK(cudaMemcpy(h.data(), a.out, h.size() * 2, cudaMemcpyDeviceToHost));
        FILE *f = fopen(dump, "wb");
        if (f) {
            fwrite(h.data(), 2, h.size(), f);
            fclose(f);
        }
    }
    printf("%d seqs x %d, %d / %d heads, dim %d, block %d: ref %.4f ms, %.0f GB/s\n", S, T, H, KVH, D, BS, ms,
           bytes / ms / 1e6);
    return 0;
}

int main(int argc, char **argv)
{
    CK(cudaMalloc(&flush_buf, 256u << 20));
    CK(cudaMalloc(&sink, 4));
    if (argc == 8 && !strcmp(argv[1], "shape"))
        return one_shape(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atoi(argv[7]));
    const int S = 64, H = 32, KVH = argc > 1 ? atoi(argv[1]) : 8, D = 128, BS = 16, log2_bs = 4;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("# %s, %d SMs; seqs %d, heads %d / %d, dim %d, block %d\n", prop.name, prop.multiProcessorCount, S, H, KVH, D,
           BS);
    printf("%-6s %-8s %-7s %9s %9s\n", "ctx", "table", "what", "ms", "GB/s");
    for (int T : {2048, 4096, 8192}) {
        pa_batch b(S, H, KVH, D, BS, T, false);
        const paged_attention_args &a = b.a;
        const int nb = a.max_blocks_per_seq;
        const double bytes = b.bytes;
        for (int shuffled = 1; shuffled >= 0; shuffled--) {
            b.set_table(shuffled);
            const char *tn = shuffled ? "shuffle" : "ident";
            auto row = [&](const char *what, float ms) { printf("%-6d %-8s %-7s %9.4f %9.0f\n", T, tn, what, ms, bytes / ms / 1e6); };
            if (shuffled) {
                // the unique bytes, contiguous (the first S*nb blocks of each cache)
                size_t n16 = (size_t)S * nb * BS * KVH * D * 2 / 16;
                row("stream", time_ms([&] {
                        read_stream_kernel<<<prop.multiProcessorCount * 8, 512>>>((const uint4 *)a.k_cache, n16, sink);
                        read_stream_kernel<<<prop.multiProcessorCount * 8, 512>>>((const uint4 *)a.v_cache, n16, sink);
                    }));
            }
            for (int part : {1024, 4096}) {
                char nm[32];
                snprintf(nm, sizeof nm, "gath%d", part);
                row(nm, time_ms([&] { gather_kernel<false><<<dim3((T + part - 1) / part, KVH, S), 256>>>(a, part, log2_bs, sink); }));
                snprintf(nm, sizeof nm, "gkvf%d", part);
                row(nm, time_ms([&] { gather_kernel<true><<<dim3(KVH, (T + part - 1) / part, S), 256>>>(a, part, log2_bs, sink); }));
            }
            for (int part : {128, 512}) {
                char nm[32];
                snprintf(nm, sizeof nm, "gall%d", part);
                row(nm, time_ms([&] { gather_all_kernel<<<dim3((T + part - 1) / part, 1, S), 512>>>(a, part, log2_bs, sink); }));
            }
            if (KVH == 8) {
                cudaFuncSetAttribute(ldgsts_units_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 8 * 3 * 8192);
                row("ldgsts", time_ms([&] { ldgsts_units_kernel<<<prop.multiProcessorCount, 256, 8 * 3 * 8192>>>(a, sink); }));
                cudaFuncSetAttribute(tma_units_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 3 * 65536);
                row("tma", time_ms([&] { tma_units_kernel<<<prop.multiProcessorCount, 256, 3 * 65536>>>(a, sink); }));
            }
            row("ref", time_ms([&] { paged_attention(&a, 0); }));
        }
    }
    return 0;
}
