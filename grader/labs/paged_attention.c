/* paged_attention.c: the checker of the paged_attention lab.
 *
 * One decode step of attention over a vLLM-style paged KV cache (see paged_attention_args
 * in cudalab_lab.h). The case gives the shape: seqs, heads, kv_heads, head_dim,
 * block_size, and the context lengths: `ctx` (all equal), or `ctx_min`..`ctx_max`
 * (uniform per sequence; the first sequence gets ctx_max and the second ctx_min), or
 * `ctx_dist: edges` (lengths next to block boundaries: k*block_size - 1, k*block_size,
 * k*block_size + 1). Lengths come from the case seed, so the bytes a call must move are
 * known at setup; values and block tables change with every run's seed.
 *
 * The cache pool holds seqs * max_blocks_per_seq physical blocks plus 1/16 spare, and
 * every block table is a slice of one random permutation of the pool: a kernel that
 * ignores the table (reads the cache as if each sequence were contiguous) reads other
 * sequences' tokens or unused blocks (the spare blocks matter with one sequence: reading
 * a permutation of exactly its own tokens would give the same attention). Entries past a
 * sequence's last block are -1. q, K and V are fp16 from gen.h generators (cl_fill
 * on the device), so the CPU recomputes any element it needs without copying the 1 GiB
 * cache back; `q_std` scales q so that scores reach +-100 (exp overflows fp32 unless the
 * maximum is subtracted first).
 *
 * Reference: fp64 over the same fp16 inputs. Tolerance per output element:
 *   |got - ref| <= u16 * |ref| + tol * sum_t p_t |v_t,d| + 2^-24
 * u16 * |ref| is rounding the output to fp16; sum_t p_t |v_t,d| is the size of the terms
 * the fp32 softmax and weighted sum add up, and tol (lab.yaml: `out`) bounds their
 * relative error; 2^-24 is the fp16 subnormal spacing, for outputs near zero.
 * verify(full) checks every (sequence, kv head) group of small cases and a sample of about
 * 2^26 recomputed K/V elements on large ones (every sequence at least once); the quick
 * check after timed runs samples 2^22. The references of the groups a check covers are
 * computed first, on up to 16 cores (parallel.h): the groups longest context first, in
 * waves of one group per thread, each wave's K and V rows in slices and then its heads one
 * by one, handed out to whichever thread is free; then they are compared in the order
 * above, so the report is the same whatever the number of threads. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudalab_lab.h"
#include "grader/checker.h"
#include "parallel.h"

#define PA_FULL_BUDGET (1ull << 26) /* K/V elements recomputed by a full check */
#define PA_QUICK_BUDGET (1ull << 22)

typedef struct pa_state {
    paged_attention_args args; /* device pointers and shape, passed to the solution */
    long long seqs, heads, kv_heads, dim, bs, maxb, nblocks;
    double q_std, tol;
    int *ctx;         /* host copy of context_lens */
    int *tables;      /* host copy of block_tables */
    int *pool_perm;   /* scratch for the permutation of the pool */
    uint16_t *out_h;  /* downloaded output */
    double *ref, *mag; /* per output element: the fp64 reference and sum_t p_t |v_t,d| */
    int nthreads;      /* threads that compute references (parallel.h) */
    float *kbuf, *vbuf; /* per thread: one group's K and V rows (fp16 values, exact in fp32);
                         * K interleaved by KEY_LANES keys (group_rows) */
    double *score;      /* per thread: one head's scores */
    unsigned char *seen; /* per group: listed already (this verify) */
    struct pa_item *todo; /* the distinct groups of a verify, longest context first */
    cl_gen gq, gk, gv;
    uint64_t seed;
    void *d_q, *d_k, *d_v, *d_out;
    int *d_tables, *d_ctx;
    cl_mm_acc *mm; /* this verify's report (cl_report_elements) */
} pa_state;

/* A group whose reference a verify computes. */
typedef struct pa_item {
    long long ctx, seq, g;
} pa_item;

/* Keys whose scores one pass computes together: K is stored as blocks of KEY_LANES keys,
 * dimension-major inside a block, so the lanes are contiguous and each key's dot product
 * still sums its dimensions in order (the same bits as one key at a time). */
#define KEY_LANES 4
static size_t set_elems(const pa_state *s) /* floats of one buffer set of K (or V) */
{
    size_t maxctx = (size_t)(s->maxb * s->bs);
    return (maxctx + KEY_LANES - 1) / KEY_LANES * KEY_LANES * (size_t)s->dim;
}

static int read_shape(cl_run *run, const cl_case *c, pa_state *s)
{
    long long ctx_max;
    if (cl_param_i64(run, c, "heads", &s->heads) || cl_param_i64(run, c, "kv_heads", &s->kv_heads) ||
        cl_param_i64(run, c, "head_dim", &s->dim) || cl_param_i64(run, c, "block_size", &s->bs) ||
        cl_param_f64_or(run, c, "q_std", 1.0, &s->q_std))
        return -1;
    if (cl_param_has(c, "ctx")) {
        if (cl_param_i64(run, c, "ctx", &ctx_max))
            return -1;
    } else if (cl_param_i64(run, c, "ctx_max", &ctx_max)) {
        return -1;
    }
    if (s->heads < 1 || s->kv_heads < 1 || s->heads % s->kv_heads)
        return cl_errorf(run, "paged_attention: heads (%lld) must be a positive multiple of kv_heads (%lld)",
                         s->heads, s->kv_heads);
    if (s->dim != 64 && s->dim != 128)
        return cl_errorf(run, "paged_attention: head_dim must be 64 or 128, not %lld", s->dim);
    if (s->bs < 1 || s->bs > 256 || (s->bs & (s->bs - 1)))
        return cl_errorf(run, "paged_attention: block_size %lld must be a power of two up to 256", s->bs);
    if (ctx_max < 1 || ctx_max > (1 << 20))
        return cl_errorf(run, "paged_attention: context length %lld is out of range", ctx_max);
    s->maxb = (ctx_max + s->bs - 1) / s->bs;
    /* one sequence's share of device memory: its slice of both caches, q, out, table */
    double per_seq = 2.0 * (17.0 / 16.0) * (double)s->maxb * (double)s->bs * (double)s->kv_heads * (double)s->dim * 2.0 +
                     2.0 * (double)s->heads * (double)s->dim * 2.0 + (double)s->maxb * 4.0 + 4.0;
    if (cl_param_size(run, c, "seqs", per_seq, 0.0, &s->seqs))
        return -1;
    s->nblocks = s->seqs * s->maxb + (s->seqs * s->maxb + 15) / 16; /* 1/16 spare: see the header */
    if ((double)s->nblocks * (double)s->bs * (double)s->kv_heads * (double)s->dim > 9.0e18 ||
        s->nblocks > 0x7FFFFFFF)
        return cl_errorf(run, "paged_attention: the cache pool is too large");

    /* context lengths from the case seed */
    const char *dist = cl_param_str_or(c, "ctx_dist", cl_param_has(c, "ctx") ? "fixed" : "uniform");
    long long ctx_min = 1;
    if (cl_param_i64_or(run, c, "ctx_min", 1, &ctx_min))
        return -1;
    if (ctx_min < 1 || ctx_min > ctx_max)
        return cl_errorf(run, "paged_attention: ctx_min %lld must be in 1..ctx_max", ctx_min);
    s->ctx = cl_host_alloc(run, (size_t)s->seqs * sizeof(int));
    if (!s->ctx)
        return cl_errorf(run, "paged_attention: out of host memory");
    uint64_t cs = cl_case_seed(c) ^ 0x243F6A8885A308D3ull;
    for (long long i = 0; i < s->seqs; i++) {
        long long len;
        if (!strcmp(dist, "fixed")) {
            len = ctx_max;
        } else if (!strcmp(dist, "uniform")) {
            len = i == 0 ? ctx_max
                  : i == 1 ? ctx_min
                           : ctx_min + (long long)cl_sample_index(cs, (uint64_t)i, (uint64_t)(ctx_max - ctx_min + 1));
        } else if (!strcmp(dist, "edges")) {
            long long nb = (ctx_max - 1) / s->bs; /* k in 1..nb keeps k*bs + 1 <= ctx_max */
            long long k = 1 + (long long)cl_sample_index(cs, (uint64_t)i, (uint64_t)(nb > 0 ? nb : 1));
            len = k * s->bs + (long long)(i % 3) - 1;
            if (len < 1)
                len = 1;
            if (len > ctx_max)
                len = ctx_max;
        } else {
            return cl_errorf(run, "paged_attention: unknown ctx_dist '%s' (fixed, uniform, edges)", dist);
        }
        s->ctx[i] = (int)len;
    }
    return 0;
}

static int pa_setup(cl_run *run, const cl_case *c, void *state)
{
    pa_state *s = state;
    if (read_shape(run, c, s))
        return -1;
    s->tol = cl_tolerance(run, "out", 2e-3);
    size_t S = (size_t)s->seqs, H = (size_t)s->heads, KVH = (size_t)s->kv_heads, D = (size_t)s->dim;
    size_t cache_elems = (size_t)s->nblocks * (size_t)s->bs * KVH * D;
    size_t table_elems = S * (size_t)s->maxb;
    s->tables = cl_host_alloc(run, table_elems * sizeof(int));
    s->pool_perm = cl_host_alloc(run, (size_t)s->nblocks * sizeof(int));
    s->out_h = cl_host_alloc(run, S * H * D * sizeof(uint16_t));
    size_t maxctx = (size_t)(s->maxb * s->bs);
    /* threads for the references: at most 16 (each holds a group's K and V, up to 32 MiB) */
    s->nthreads = cl_par_threads((double)maxctx * (double)(S * H * D), 16);
    size_t nt = (size_t)s->nthreads;
    s->ref = cl_host_alloc(run, S * H * D * sizeof(double));
    s->mag = cl_host_alloc(run, S * H * D * sizeof(double));
    s->kbuf = cl_host_alloc(run, nt * set_elems(s) * sizeof(float));
    s->vbuf = cl_host_alloc(run, nt * set_elems(s) * sizeof(float));
    s->score = cl_host_alloc(run, nt * maxctx * sizeof(double));
    s->seen = cl_host_alloc(run, S * KVH);
    s->todo = cl_host_alloc(run, S * KVH * sizeof(pa_item));
    if (!s->tables || !s->pool_perm || !s->out_h || !s->ref || !s->mag || !s->kbuf || !s->vbuf || !s->score ||
        !s->seen || !s->todo)
        return cl_errorf(run, "paged_attention: out of host memory");

    s->d_q = cl_alloc_in(run, S * H * D * 2, "q");
    s->d_k = cl_alloc_in(run, cache_elems * 2, "k_cache");
    s->d_v = cl_alloc_in(run, cache_elems * 2, "v_cache");
    s->d_tables = cl_alloc_in(run, table_elems * sizeof(int), "block_tables");
    s->d_ctx = cl_alloc_in(run, S * sizeof(int), "context_lens");
    s->d_out = cl_alloc_out(run, S * H * D * 2, "out");
    if (!s->d_q || !s->d_k || !s->d_v || !s->d_tables || !s->d_ctx || !s->d_out)
        return -1;

    paged_attention_args *a = &s->args;
    a->q = s->d_q;
    a->k_cache = s->d_k;
    a->v_cache = s->d_v;
    a->block_tables = s->d_tables;
    a->context_lens = s->d_ctx;
    a->out = s->d_out;
    a->num_seqs = (int)s->seqs;
    a->num_heads = (int)s->heads;
    a->num_kv_heads = (int)s->kv_heads;
    a->head_dim = (int)s->dim;
    a->block_size = (int)s->bs;
    a->max_blocks_per_seq = (int)s->maxb;
    a->num_blocks = (int)s->nblocks;
    a->scale = (float)(1.0 / sqrt((double)s->dim));

    /* work: the K/V rows of every context token (each read once, shared by the heads of
     * a group), the block-table entries in use, q, context_lens, and out */
    double tokens = 0, used_blocks = 0;
    long long lo = s->ctx[0], hi = s->ctx[0];
    for (size_t i = 0; i < S; i++) {
        tokens += s->ctx[i];
        used_blocks += (double)((s->ctx[i] + s->bs - 1) / s->bs);
        lo = s->ctx[i] < lo ? s->ctx[i] : lo;
        hi = s->ctx[i] > hi ? s->ctx[i] : hi;
    }
    double kv_bytes = tokens * (double)KVH * (double)D * 2.0 * 2.0;
    cl_set_work(run, kv_bytes + 2.0 * (double)(S * H * D * 2) + used_blocks * 4.0 + (double)S * 4.0,
                4.0 * tokens * (double)H * (double)D);
    cl_set_shape(run, "%zu seqs x ctx %lld..%lld, %zu heads / %zu kv heads, dim %zu, block %lld: %.1f MiB of KV",
                 S, lo, hi, H, KVH, D, s->bs, kv_bytes / 1048576.0);
    return 0;
}

static int pa_generate(cl_run *run, void *state, uint64_t seed)
{
    pa_state *s = state;
    size_t S = (size_t)s->seqs, D = (size_t)s->dim;
    size_t cache_elems = (size_t)s->nblocks * (size_t)s->bs * (size_t)s->kv_heads * D;
    s->seed = seed;
    s->gq = (cl_gen){CL_GEN_NORMALISH, seed ^ 0x13198A2E03707344ull, 0.0, s->q_std};
    s->gk = (cl_gen){CL_GEN_NORMALISH, seed ^ 0xA4093822299F31D0ull, 0.0, 1.0};
    s->gv = (cl_gen){CL_GEN_NORMALISH, seed ^ 0x082EFA98EC4E6C89ull, 0.0, 1.0};
    if (cl_fill(run, s->d_q, S * (size_t)s->heads * D, CL_F16, &s->gq) ||
        cl_fill(run, s->d_k, cache_elems, CL_F16, &s->gk) || cl_fill(run, s->d_v, cache_elems, CL_F16, &s->gv))
        return -1;
    /* block tables: slices of one random permutation of the pool, -1 past the end */
    long long nb = s->nblocks;
    for (long long i = 0; i < nb; i++)
        s->pool_perm[i] = (int)i;
    for (long long i = nb - 1; i > 0; i--) {
        long long j = (long long)cl_sample_index(seed ^ 0x452821E638D01377ull, (uint64_t)i, (uint64_t)(i + 1));
        int t = s->pool_perm[i];
        s->pool_perm[i] = s->pool_perm[j];
        s->pool_perm[j] = t;
    }
    for (size_t q = 0; q < S; q++) {
        long long used = (s->ctx[q] + s->bs - 1) / s->bs;
        for (long long b = 0; b < s->maxb; b++)
            s->tables[q * (size_t)s->maxb + (size_t)b] = b < used ? s->pool_perm[q * (size_t)s->maxb + (size_t)b] : -1;
    }
    if (cl_upload(run, s->d_tables, s->tables, S * (size_t)s->maxb * sizeof(int)) ||
        cl_upload(run, s->d_ctx, s->ctx, S * sizeof(int)))
        return -1;
    return 0;
}

static int pa_args(cl_run *run, void *state, cl_args *a)
{
    pa_state *s = state;
    const paged_attention_args *p = &s->args;
    cl_arg_blob(a, p, sizeof *p);
    cl_arg_blob_ptr(run, a, offsetof(paged_attention_args, q), p->q);
    cl_arg_blob_ptr(run, a, offsetof(paged_attention_args, k_cache), p->k_cache);
    cl_arg_blob_ptr(run, a, offsetof(paged_attention_args, v_cache), p->v_cache);
    cl_arg_blob_ptr(run, a, offsetof(paged_attention_args, block_tables), p->block_tables);
    cl_arg_blob_ptr(run, a, offsetof(paged_attention_args, context_lens), p->context_lens);
    cl_arg_blob_ptr(run, a, offsetof(paged_attention_args, out), p->out);
    return 0;
}

static double f16(uint16_t h) { return (double)cl_f16_to_f32(h); }

/* Rows [k_lo, k_hi) of group (seq, g)'s K and V, from the generators, into buffer set t. */
static void group_rows(pa_state *s, int t, long long seq, long long g, long long k_lo, long long k_hi)
{
    long long D = s->dim, BS = s->bs, KVH = s->kv_heads;
    float *kbuf = s->kbuf + (size_t)t * set_elems(s), *vbuf = s->vbuf + (size_t)t * set_elems(s);
    const int *table = s->tables + seq * s->maxb;
    for (long long k = k_lo; k < k_hi; k++) {
        uint64_t row = (((uint64_t)table[k / BS] * (uint64_t)BS + (uint64_t)(k % BS)) * (uint64_t)KVH + (uint64_t)g) *
                       (uint64_t)D;
        float *kb = kbuf + (k / KEY_LANES) * D * KEY_LANES + k % KEY_LANES, krow[128];
        cl_gen_f16_span(&s->gk, row, 1, D, krow);
        cl_gen_f16_span(&s->gv, row, 1, D, vbuf + k * D);
        for (long long d = 0; d < D; d++)
            kb[d * KEY_LANES] = krow[d];
    }
    long long ctx = s->ctx[seq];
    if (k_hi == ctx) /* the last block's lanes past the context: zeros, computed and unused */
        for (long long k = ctx; k % KEY_LANES; k++)
            for (long long d = 0; d < D; d++)
                kbuf[(k / KEY_LANES) * D * KEY_LANES + d * KEY_LANES + k % KEY_LANES] = 0.0f;
}

/* The fp64 reference of head h of group (seq, g) (0 .. heads per group), into s->ref and
 * s->mag: K and V rows from buffer set t, scores in thread u's buffer. The
 * score and p . V loops have independent lanes (KEY_LANES keys; the dimensions of V):
 * vectorised, AVX2 where the CPU has it (CL_VECTOR_CLONES). */
CL_VECTOR_CLONES static void group_head(pa_state *s, int t, int u, long long seq, long long g, long long hg)
{
    long long D = s->dim, KVH = s->kv_heads, H = s->heads, G = H / KVH;
    long long ctx = s->ctx[seq];
    size_t maxctx = (size_t)(s->maxb * s->bs);
    const float *kbuf = s->kbuf + (size_t)t * set_elems(s), *vbuf = s->vbuf + (size_t)t * set_elems(s);
    double *score = s->score + (size_t)u * maxctx;
    double scale = (double)s->args.scale;
    long long h = g * G + hg;
    uint64_t qoff = (uint64_t)(seq * H + h) * (uint64_t)D;
    double q[128];
    for (long long d = 0; d < D; d++)
        q[d] = f16(cl_gen_f16(&s->gq, qoff + (uint64_t)d));
    double mx = -INFINITY, sum = 0;
    for (long long k0 = 0; k0 < ctx; k0 += KEY_LANES) {
        const float *kb = kbuf + (k0 / KEY_LANES) * D * KEY_LANES;
        double dot[KEY_LANES] = {0};
        for (long long d = 0; d < D; d++)
            for (int l = 0; l < KEY_LANES; l++)
                dot[l] += q[d] * (double)kb[d * KEY_LANES + l];
        for (int l = 0; l < KEY_LANES && k0 + l < ctx; l++) { /* lanes past ctx: unused */
            score[k0 + l] = dot[l] * scale;
            mx = fmax(mx, score[k0 + l]);
        }
    }
    for (long long k = 0; k < ctx; k++)
        sum += score[k] = exp(score[k] - mx);
    /* p . V row by row (V's rows are contiguous: the inner loop vectorises) */
    double ref[128] = {0}, mag[128] = {0};
    for (long long k = 0; k < ctx; k++) {
        const double p = score[k];
        const float *v = vbuf + k * D;
        for (long long d = 0; d < D; d++) {
            ref[d] += p * (double)v[d];
            mag[d] += p * fabs((double)v[d]);
        }
    }
    for (long long d = 0; d < D; d++) {
        s->ref[qoff + (uint64_t)d] = ref[d] / sum;
        s->mag[qoff + (uint64_t)d] = mag[d] / sum;
    }
}

/* The groups (seq, g) a verify checks, in the order it reports them. */
typedef struct pa_groups {
    long long *list; /* pairs */
    long long n;
} pa_groups;

/* One wave of compute_refs: groups items[0..n) (group k in buffer set k), first all their
 * K/V rows (ROW_SLICES slices a group), then all their heads; work items are numbered
 * group-major, longest group first, and each thread takes the next one free. */
#define ROW_SLICES 16
typedef struct pa_wave {
    pa_state *s;
    const pa_item *items;
    long long n, next;
    int heads; /* 0: the rows; 1: the heads */
} pa_wave;
typedef struct pa_worker {
    pa_wave *w;
    int u; /* the thread: its score buffer */
} pa_worker;

static void *wave_work(void *v)
{
    pa_worker *me = v;
    pa_wave *w = me->w;
    long long G = w->s->heads / w->s->kv_heads, per = w->heads ? G : ROW_SLICES;
    for (;;) {
        long long x = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
        if (x >= w->n * per)
            return NULL;
        long long k = x / per, c = x % per;
        const pa_item *it = &w->items[k];
        if (w->heads)
            group_head(w->s, (int)k, me->u, it->seq, it->g, c);
        else
            group_rows(w->s, (int)k, it->seq, it->g, c * it->ctx / ROW_SLICES, (c + 1) * it->ctx / ROW_SLICES);
    }
}

static int longest_first(const void *a, const void *b)
{
    const pa_item *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx > y->ctx ? -1 : 1;
    return x->seq != y->seq ? (x->seq < y->seq ? -1 : 1) : (x->g > y->g) - (x->g < y->g);
}

/* The references of every listed group (each once), on s->nthreads threads. */
static void compute_refs(pa_state *s, const pa_groups *gr)
{
    int nt = s->nthreads;
    long long n = 0;
    memset(s->seen, 0, (size_t)(s->seqs * s->kv_heads));
    for (long long k = 0; k < gr->n; k++) {
        long long seq = gr->list[2 * k], g = gr->list[2 * k + 1];
        unsigned char *seen = &s->seen[seq * s->kv_heads + g];
        if (!*seen) {
            *seen = 1;
            s->todo[n++] = (pa_item){s->ctx[seq], seq, g};
        }
    }
    qsort(s->todo, (size_t)n, sizeof s->todo[0], longest_first);
    pa_worker workers[CL_PAR_MAX];
    for (long long w0 = 0; w0 < n; w0 += nt) {
        pa_wave w = {s, s->todo + w0, n - w0 < nt ? n - w0 : nt, 0, 0};
        for (int t = 0; t < nt; t++)
            workers[t] = (pa_worker){&w, t};
        for (w.heads = 0; w.heads < 2; w.heads++) {
            w.next = 0;
            cl_par_run(nt, wave_work, workers, sizeof workers[0]);
        }
    }
}

/* Checks every head of group (seq, g) against its reference. 0 pass, 1 wrong. */
static int check_group(cl_run *run, pa_state *s, long long seq, long long g)
{
    long long D = s->dim, KVH = s->kv_heads, H = s->heads, G = H / KVH;
    long long ctx = s->ctx[seq];
    for (long long h = g * G; h < (g + 1) * G; h++) {
        uint64_t qoff = (uint64_t)(seq * H + h) * (uint64_t)D;
        for (long long d = 0; d < D; d++) {
            double ref = s->ref[qoff + (uint64_t)d], mag = s->mag[qoff + (uint64_t)d];
            double got = f16(s->out_h[qoff + (uint64_t)d]);
            double bound = CL_U16 * fabs(ref) + s->tol * mag + 5.9604644775390625e-08;
            const int ok = cl_close(got, ref, bound, 0.0);
            cl_mm_add(s->mm, (long long)qoff + d, ref, got, ok);
            if (!ok && !cl_run_failed(run)) {
                char where[96];
                snprintf(where, sizeof where, "out[%lld][%lld][%lld]", seq, h, d);
                return cl_mismatch(run, where, ref, got,
                                   "sequence %lld (context %lld), head %lld (kv head %lld), dim %lld: "
                                   "error %.3g > bound %.3g%s",
                                   seq, ctx, h, g, d, fabs(got - ref), bound,
                                   isnan(got) ? " (NaN: was it written? was the maximum subtracted?)" : "");
            }
        }
    }
    return cl_run_failed(run);
}

static int pa_verify(cl_run *run, void *state, int full)
{
    pa_state *s = state;
    size_t n = (size_t)(s->seqs * s->heads * s->dim);
    cl_mm_shape shape = {"out", 3, {s->seqs, s->heads, s->dim}, {"seq", "head", "dim"}};
    cl_mm_tol tol = {0, CL_U16, "2^-11 x |expected| + tol x sum(p x |v|) + 2^-24, per element"};
    s->mm = cl_report_elements(run, &shape, &tol);
    if (cl_download(run, s->out_h, s->d_out, n * sizeof(uint16_t)))
        return -1;
    uint64_t budget = full ? PA_FULL_BUDGET : PA_QUICK_BUDGET;
    uint64_t total = 0;
    for (long long i = 0; i < s->seqs; i++)
        total += (uint64_t)s->ctx[i] * (uint64_t)s->kv_heads * (uint64_t)s->dim * 2u;
    /* every group of a small case; else a sample: sequences in turn from a random start, a
     * random kv head of each, until the budget of recomputed K/V elements is spent */
    int all = total <= budget;
    long long cap = all ? s->seqs * s->kv_heads : 0;
    long long start = all ? 0 : (long long)cl_sample_index(cl_check_seed(run), 0, (uint64_t)s->seqs);
    if (!all) {
        uint64_t spent = 0;
        for (long long k = 0; spent < budget; k++, cap++)
            spent += (uint64_t)s->ctx[(start + k) % s->seqs] * (uint64_t)s->dim * 2u;
    }
    pa_groups gr = {malloc((size_t)cap * 2 * sizeof(long long)), 0};
    if (!gr.list)
        return cl_errorf(run, "paged_attention: out of host memory");
    if (all) {
        for (long long q = 0; q < s->seqs; q++)
            for (long long g = 0; g < s->kv_heads; g++) {
                gr.list[2 * gr.n] = q;
                gr.list[2 * gr.n++ + 1] = g;
            }
    } else {
        for (long long k = 0; k < cap; k++) {
            gr.list[2 * gr.n] = (start + k) % s->seqs;
            gr.list[2 * gr.n++ + 1] = (long long)cl_sample_index(cl_check_seed(run) ^ 0xC0AC29B7C97C50DDull,
                                                                 (uint64_t)k, (uint64_t)s->kv_heads);
        }
    }
    compute_refs(s, &gr);
    int wrong = 0;
    for (long long k = 0; k < gr.n; k++) {
        wrong |= check_group(run, s, gr.list[2 * k], gr.list[2 * k + 1]);
        if (wrong && !all)
            break; /* a sample stops at its first wrong group */
    }
    free(gr.list);
    return wrong;
}

const cl_checker cl_checker_paged_attention = {"paged_attention", sizeof(pa_state), pa_setup, pa_generate,
                                               pa_args, pa_verify, NULL};
