/* tma_smem_budget.c: shared-memory budgets of TMA-fed Hopper pipelines: the bytes one TMA
 * box brings (what mbarrier.expect_tx must announce), the bytes of a stage, how many
 * stages fit next to an epilogue buffer, how many CTAs fit on an SM, and the L2 reads a
 * multicast across a cluster saves.
 *
 * H100: 227 KB (232448 bytes) of shared memory per block at most, 228 KB per SM, 1 KB of it
 * reserved per resident block. */
#include "genutil.h"

long cl_stage_bytes(int bm, int bn, int bk, int elem_bytes)
{
    return ((long)bm * bk + (long)bk * bn) * elem_bytes;
}

int cl_stages_fit(long stage_bytes, long smem_block, long other)
{
    if (stage_bytes <= 0 || other > smem_block)
        return 0;
    return (int)((smem_block - other) / stage_bytes);
}

static const char *elem_name(int e) { return e == 1 ? "FP8" : e == 2 ? "BF16" : "FP32"; }

/* The pipeline every variant asks about: the tiles of one stage and its bytes. */
typedef struct pipeline {
    int bm, bn, bk, elem;
    long stage;
    const char *tiles_en, *tiles_zh;
} pipeline;

static pipeline draw_pipeline(cl_rng *r, cl_arena *a)
{
    static const int ms[] = {64, 128, 256};
    static const int ns[] = {64, 128, 192, 256};
    static const int ks[] = {32, 64, 128};
    pipeline p;
    p.bm = cl_gen_pick(r, ms, CL_NELEMS(ms));
    p.bn = cl_gen_pick(r, ns, CL_NELEMS(ns));
    p.bk = cl_gen_pick(r, ks, CL_NELEMS(ks));
    p.elem = cl_rng_below(r, 3) ? 2 : 1;
    p.stage = cl_stage_bytes(p.bm, p.bn, p.bk, p.elem);
    p.tiles_en = cl_arena_printf(a, "an A tile of %d x %d and a B tile of %d x %d, both %s", p.bm, p.bk, p.bk, p.bn,
                                 elem_name(p.elem));
    p.tiles_zh = cl_arena_printf(a, "A 的 %d x %d tile 和 B 的 %d x %d tile，均为 %s", p.bm, p.bk, p.bk, p.bn,
                                 elem_name(p.elem));
    return p;
}

/* The answer and the parameters lint recomputes it from (variant, tiles, then extra). */
static void set_answer(cl_question *q, double answer, const char *unit, int variant, const pipeline *p, double epi,
                       double stages, double cluster)
{
    cl_gen_numeric(q, answer, 0, 0, unit);
    cl_gen_params(q, 8, (double[]){variant, p->bm, p->bn, p->bk, p->elem, epi, stages, cluster});
}

/* Variant 1: the bytes one TMA box brings, which expect_tx must announce. */
static void box_bytes(cl_question *q, const pipeline *p, cl_arena *a)
{
    int bm = p->bm, bk = p->bk, elem = p->elem;
    double answer = (double)bm * bk * elem;
    q->prompt.en = cl_arena_printf(a, "A TMA load brings a %d x %d box of %s into shared memory and completes on an "
                                      "mbarrier. How many bytes must the producer announce with "
                                      "mbarrier.arrive.expect_tx?", bm, bk, elem_name(elem));
    q->prompt.zh = cl_arena_printf(a, "一次 TMA 加载把一个 %d x %d 的 %s box 搬进共享内存，并在一个 mbarrier 上完成。生产者在 "
                                      "mbarrier.arrive.expect_tx 中应声明多少字节？", bm, bk, elem_name(elem));
    q->explanation.en = cl_arena_printf(a, "%d x %d x %d bytes = %.0f. The barrier phase completes when that many "
                                           "transaction bytes have arrived, so the count must match exactly.",
                                        bm, bk, elem, answer);
    q->explanation.zh = cl_arena_printf(a, "%d x %d x %d 字节 = %.0f。到达的事务字节数达到这个值时屏障的当前阶段才完成，"
                                           "所以必须完全一致。", bm, bk, elem, answer);
    set_answer(q, answer, "bytes", 1, p, 0, 0, 0);
}

/* Variant 2: the bytes of one stage. */
static void stage_bytes(cl_question *q, const pipeline *p, cl_arena *a)
{
    int bm = p->bm, bn = p->bn, bk = p->bk, elem = p->elem;
    long stage = p->stage;
    q->prompt.en = cl_arena_printf(a, "Each pipeline stage of a Hopper GEMM holds %s. How many bytes of shared memory "
                                      "is one stage?", p->tiles_en);
    q->prompt.zh = cl_arena_printf(a, "某 Hopper GEMM 的每个流水级包含 %s。一个流水级占多少字节共享内存？", p->tiles_zh);
    q->explanation.en = cl_arena_printf(a, "(%d x %d + %d x %d) x %d = %ld bytes (%.1f KB).", bm, bk, bk, bn, elem,
                                        stage, stage / 1024.0);
    q->explanation.zh = cl_arena_printf(a, "(%d x %d + %d x %d) x %d = %ld 字节（%.1f KB）。", bm, bk, bk, bn, elem,
                                        stage, stage / 1024.0);
    set_answer(q, (double)stage, "bytes", 2, p, 0, 0, 0);
}

/* Variant 3: how many stages fit in a CTA's shared memory next to an epilogue tile. */
static void stages_fit(cl_question *q, const pipeline *p, cl_arena *a)
{
    const long smem_block = 232448;
    int bm = p->bm, bn = p->bn;
    long stage = p->stage;
    long epi = (long)bm * bn * 2; /* a BF16 output tile for a TMA store */
    if (epi + stage > smem_block)
        epi = 0;
    double answer = cl_stages_fit(stage, smem_block, epi);
    q->prompt.en = cl_arena_printf(a, "A Hopper GEMM CTA may use 232448 bytes (227 KB) of shared memory. Each stage "
                                      "holds %s, and %s. Ignoring barriers, how many stages fit?", p->tiles_en,
                                   epi ? cl_arena_printf(a, "the epilogue needs a %d x %d BF16 output tile (%ld bytes)",
                                                         bm, bn, epi)
                                       : "the epilogue writes straight from registers");
    q->prompt.zh = cl_arena_printf(a, "某 Hopper GEMM 的 CTA 最多可用 232448 字节（227 KB）共享内存。每个流水级包含 %s，%s。"
                                      "忽略屏障，最多能放多少级？", p->tiles_zh,
                                   epi ? cl_arena_printf(a, "收尾阶段还需要一个 %d x %d 的 BF16 输出 tile（%ld 字节）", bm, bn, epi)
                                       : "收尾阶段直接从寄存器写出");
    q->explanation.en = cl_arena_printf(a, "A stage is %ld bytes; (232448 - %ld) / %ld = %.0f stages. Fewer than 2 "
                                           "stages cannot overlap loads with MMAs, so a smaller tile would be needed.",
                                        stage, epi, stage, answer);
    q->explanation.zh = cl_arena_printf(a, "一个流水级 %ld 字节；(232448 - %ld) / %ld = %.0f 级。不足 2 级就无法让加载与 MMA "
                                           "重叠，需要换更小的 tile。", stage, epi, stage, answer);
    set_answer(q, answer, "stages", 3, p, (double)epi, 0, 0);
}

/* Variant 4: how many CTAs of a few stages fit on an SM by shared memory. */
static void ctas_per_sm(cl_question *q, cl_rng *r, const pipeline *p, cl_arena *a)
{
    const long smem_sm = 233472;
    long stage = p->stage;
    int stages = cl_rng_range(r, 2, 4);
    long per_block = stages * stage;
    while (per_block + 1024 > smem_sm && stages > 1)
        per_block = --stages * stage;
    double answer = (double)(smem_sm / (per_block + 1024));
    q->prompt.en = cl_arena_printf(a, "A CTA uses %d stages of %s, and nothing else in shared memory. An H100 SM has "
                                      "233472 bytes (228 KB) of shared memory and reserves 1 KB per resident CTA. How "
                                      "many CTAs fit on one SM by shared memory?", stages, p->tiles_en);
    q->prompt.zh = cl_arena_printf(a, "某 CTA 使用 %d 级流水，每级包含 %s，共享内存中没有别的东西。H100 的一个 SM 有 233472 字节"
                                      "（228 KB）共享内存，每个常驻 CTA 另保留 1 KB。按共享内存算，一个 SM 能放几个 CTA？",
                                   stages, p->tiles_zh);
    q->explanation.en = cl_arena_printf(a, "%d x %ld = %ld bytes + 1024 reserved = %ld per CTA; 233472 / %ld = %.0f.",
                                        stages, stage, per_block, per_block + 1024, per_block + 1024, answer);
    q->explanation.zh = cl_arena_printf(a, "%d x %ld = %ld 字节，加保留的 1024 = 每个 CTA %ld 字节；233472 / %ld = %.0f。",
                                        stages, stage, per_block, per_block + 1024, per_block + 1024, answer);
    set_answer(q, answer, "blocks", 4, p, 0, stages, 0);
}

/* Variant 5: the L2 reads a TMA multicast of the B tile across a cluster saves. */
static void multicast_savings(cl_question *q, cl_rng *r, const pipeline *p, cl_arena *a)
{
    int bn = p->bn, bk = p->bk, elem = p->elem;
    int cluster = cl_gen_pick(r, (const int[]){2, 4}, 2);
    double answer = (double)(cluster - 1) * bk * bn * elem;
    q->prompt.en = cl_arena_printf(a, "A cluster of %d CTAs along M shares the same B tile (%d x %d %s) every K step. "
                                      "Without multicast each CTA loads it from L2; with TMA multicast one load fills "
                                      "all %d. How many bytes of L2 reads does multicast save per cluster and K step?",
                                   cluster, bk, bn, elem_name(elem), cluster);
    q->prompt.zh = cl_arena_printf(a, "沿 M 方向的一个 %d-CTA cluster 每个 K 步共享同一块 B tile（%d x %d，%s）。不用多播时每个 CTA "
                                      "各自从 L2 读取；用 TMA 多播时一次加载同时填满 %d 个 CTA。每个 cluster 每个 K 步省下多少字节 L2 读取？",
                                   cluster, bk, bn, elem_name(elem), cluster);
    q->explanation.en = cl_arena_printf(a, "The tile is %d x %d x %d = %ld bytes, read %d times without multicast and "
                                           "once with it: (%d - 1) x %ld = %.0f bytes saved.", bk, bn, elem,
                                        (long)bk * bn * elem, cluster, cluster, (long)bk * bn * elem, answer);
    q->explanation.zh = cl_arena_printf(a, "tile 为 %d x %d x %d = %ld 字节，不用多播读 %d 次，用多播读 1 次：省下 (%d - 1) x %ld = "
                                           "%.0f 字节。", bk, bn, elem, (long)bk * bn * elem, cluster, cluster,
                                        (long)bk * bn * elem, answer);
    set_answer(q, answer, "bytes", 5, p, 0, 0, cluster);
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    pipeline p = draw_pipeline(&r, a);
    switch (q->difficulty) {
    case 1: box_bytes(q, &p, a); break;
    case 2: stage_bytes(q, &p, a); break;
    case 3: stages_fit(q, &p, a); break;
    case 4: ctas_per_sm(q, &r, &p, a); break;
    default: multicast_savings(q, &r, &p, a); break;
    }
    return 0;
}

/* Lint's recomputation: count bytes row by row and add stages or CTAs one at a time. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 8)
        return -1;
    const double *p = q->params;
    int bm = (int)p[1], bn = (int)p[2], bk = (int)p[3], elem = (int)p[4];
    double stage = 0;
    for (int row = 0; row < bm; row++)
        stage += (double)bk * elem;
    for (int row = 0; row < bk; row++)
        stage += (double)bn * elem;
    switch ((int)p[0]) {
    case 1: *answer = stage - (double)bk * bn * elem; return 0;
    case 2: *answer = stage; return 0;
    case 3: {
        double used = p[5];
        int n = 0;
        while (used + stage <= 232448)
            used += stage, n++;
        *answer = n;
        return 0;
    }
    case 4: {
        double per = p[6] * stage + 1024, used = 0;
        int n = 0;
        while (used + per <= 233472)
            used += per, n++;
        *answer = n;
        return 0;
    }
    case 5: {
        double without = 0;
        for (int c = 0; c < (int)p[7]; c++)
            without += (double)bk * bn * elem;
        *answer = without - (double)bk * bn * elem;
        return 0;
    }
    default: return -1;
    }
}

const cl_family cl_family_tma_smem_budget = {
    "tma_smem_budget",
    "shared-memory budgets of TMA pipelines: box bytes, stage bytes, stages, CTAs per SM, multicast savings",
    generate,
    recompute,
};
