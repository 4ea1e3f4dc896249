/* divergence_efficiency.c: SIMT efficiency of an if/else whose condition depends on
 * threadIdx.x: threshold, modulo and warp-aligned conditions, with and without else.
 *
 * A warp whose lanes disagree runs both paths one after the other with the lanes of
 * the other path masked off. It is not split into two warps (a common wrong answer),
 * and since Volta the two paths may interleave, but the masked lanes still idle. */
#include <string.h>

#include "genutil.h"

int cl_divergence_efficiency(const unsigned char *takes_if, int nthreads, int cost_if,
                             int cost_else, cl_divergence *out)
{
    memset(out, 0, sizeof *out);
    if (nthreads < 1 || nthreads % 32 || cost_if < 0 || cost_else < 0)
        return -1;
    for (int w = 0; w < nthreads / 32; w++) {
        int n_if = 0;
        for (int l = 0; l < 32; l++)
            n_if += takes_if[w * 32 + l] != 0;
        int n_else = 32 - n_if;
        if (n_if)
            out->issued += cost_if;
        if (n_else)
            out->issued += cost_else;
        out->useful += (long)n_if * cost_if + (long)n_else * cost_else;
        if (n_if && n_else && (cost_if || cost_else))
            out->divergent_warps++;
    }
    out->percent = out->issued ? 100.0 * out->useful / (32.0 * out->issued) : 100.0;
    return 0;
}

enum { COND_LESS, COND_MOD, COND_WARP_ALIGNED, COND_HALF_WARP };

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    int threads = 32, kind = COND_LESS, c = 16, cost_if, cost_else;
    switch (d) {
    case 1:
        kind = COND_MOD;
        c = 2;
        cost_if = cost_else = cl_rng_range(&r, 2, 10);
        break;
    case 2:
        c = cl_rng_range(&r, 1, 31);
        cost_if = cl_rng_range(&r, 2, 20);
        cost_else = cl_rng_range(&r, 2, 20);
        break;
    case 3: {
        static const int blocks[] = {128, 256};
        threads = cl_gen_pick(&r, blocks, CL_NELEMS(blocks));
        c = cl_rng_range(&r, 1, threads - 1);
        cost_if = cl_rng_range(&r, 2, 20);
        cost_else = cl_rng_range(&r, 2, 20);
        break;
    }
    case 4: {
        static const int mods[] = {2, 4, 8, 32};
        kind = COND_MOD;
        threads = 128;
        c = cl_gen_pick(&r, mods, CL_NELEMS(mods));
        cost_if = cl_rng_range(&r, 4, 24);
        cost_else = 0;
        break;
    }
    default:
        threads = 256;
        kind = cl_rng_below(&r, 2) ? COND_WARP_ALIGNED : COND_HALF_WARP;
        cost_if = cl_rng_range(&r, 4, 24);
        cost_else = cl_rng_range(&r, 4, 24);
        break;
    }
    unsigned char takes[1024] = {0};
    for (int t = 0; t < threads; t++) {
        switch (kind) {
        case COND_LESS: takes[t] = t < c; break;
        case COND_MOD: takes[t] = t % c == 0; break;
        case COND_WARP_ALIGNED: takes[t] = (t / 32) % 2 == 0; break;
        default: takes[t] = (t / 16) % 2 == 0; break;
        }
    }
    cl_divergence dv;
    if (cl_divergence_efficiency(takes, threads, cost_if, cost_else, &dv))
        return cl_err_set(err, "bad parameters");

    const char *cond;
    switch (kind) {
    case COND_LESS: cond = cl_arena_printf(a, "threadIdx.x < %d", c); break;
    case COND_MOD: cond = cl_arena_printf(a, "threadIdx.x %% %d == 0", c); break;
    case COND_WARP_ALIGNED: cond = "(threadIdx.x / 32) % 2 == 0"; break;
    default: cond = "(threadIdx.x / 16) % 2 == 0"; break;
    }
    const char *code = cost_else
        ? cl_arena_printf(a, "if (%s) { /* %d instructions */ } else { /* %d instructions */ }", cond,
                          cost_if, cost_else)
        : cl_arena_printf(a, "if (%s) { /* %d instructions */ }   // no else", cond, cost_if);
    const char *code_zh = cost_else
        ? cl_arena_printf(a, "if (%s) { /* %d 条指令 */ } else { /* %d 条指令 */ }", cond, cost_if, cost_else)
        : cl_arena_printf(a, "if (%s) { /* %d 条指令 */ }   // 没有 else", cond, cost_if);
    q->prompt.en = cl_arena_printf(a,
        "A block of %d threads (%d warp%s) runs:\n\n    %s\n\nWhat is the SIMT efficiency of this "
        "branch, in percent: lane-instructions doing useful work / (32 x warp-instructions issued)?",
        threads, threads / 32, threads == 32 ? "" : "s", code);
    q->prompt.zh = cl_arena_printf(a,
        "一个 %d 线程的线程块（%d 个 warp，即线程束）执行：\n\n    %s\n\n这个分支的 SIMT 效率是百分之多少："
        "有效的 lane 指令数 / (32 x 发射的线程束指令数)？",
        threads, threads / 32, code_zh);
    q->explanation.en = cl_arena_printf(a,
        "%d of %d warp%s diverge%s. A warp whose lanes all agree issues only its own path; a "
        "divergent warp issues every path that some lane takes, one after the other, with the other "
        "lanes masked off - it is not split into two warps. Issued: %ld warp-instructions = %ld lane slots; useful: %ld. Efficiency = "
        "%ld / %ld = %.1f%%.%s",
        dv.divergent_warps, threads / 32, threads == 32 ? "" : "s", dv.divergent_warps == 1 ? "s" : "",
        dv.issued, dv.issued * 32, dv.useful, dv.useful, dv.issued * 32, dv.percent,
        kind == COND_WARP_ALIGNED ? " The condition is uniform within each warp, so nothing diverges: "
                                    "branching on warp-aligned ranges is free." : "");
    q->explanation.zh = cl_arena_printf(a,
        "%d 个线程束中有 %d 个发生发散（线程束分化）。lane 条件一致的线程束只执行自己的那条路径；发散的线程束"
        "会先后执行每条有 lane 要走的路径，其余 lane 被屏蔽——它不会被拆成两个线程束。发射：%ld 条线程束指令 = "
        "%ld 个 lane 槽位；有效：%ld。效率 = %ld / %ld = %.1f%%。%s",
        threads / 32, dv.divergent_warps, dv.issued, dv.issued * 32, dv.useful, dv.useful,
        dv.issued * 32, dv.percent,
        kind == COND_WARP_ALIGNED ? "条件在每个线程束内一致，所以没有发散：按线程束对齐的范围分支是零代价的。" : "");
    cl_gen_numeric(q, dv.percent, 0.5, 0, "%");
    cl_gen_params(q, 5, (double[]){threads, kind, c, cost_if, cost_else});
    return 0;
}

/* Lint's recomputation: step through each warp's issued instructions, counting the
 * lanes active in each. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 5)
        return -1;
    int threads = (int)q->params[0], kind = (int)q->params[1], c = (int)q->params[2];
    int cost[2] = {(int)q->params[3], (int)q->params[4]};
    long slots = 0, active = 0;
    for (int w = 0; w < threads / 32; w++)
        for (int path = 0; path < 2; path++) {
            int lanes = 0;
            for (int l = 0; l < 32; l++) {
                int t = w * 32 + l;
                int takes = kind == COND_LESS ? t < c : kind == COND_MOD ? t % c == 0
                          : kind == COND_WARP_ALIGNED ? (t / 32) % 2 == 0 : (t / 16) % 2 == 0;
                lanes += path == 0 ? takes : !takes;
            }
            for (int i = 0; lanes && i < cost[path]; i++) {
                slots += 32;
                active += lanes;
            }
        }
    *answer = slots ? 100.0 * active / slots : 100.0;
    return 0;
}

const cl_family cl_family_divergence_efficiency = {
    "divergence_efficiency",
    "SIMT efficiency of an if/else on threadIdx.x (threshold, modulo, warp-aligned)",
    generate,
    recompute,
};
