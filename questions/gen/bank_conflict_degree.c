/* bank_conflict_degree.c: "thread t reads s[t * stride]: how many ways is the bank
 * conflict?" for floats, doubles, halves and float4, and for a column of a padded tile.
 *
 * Model (stated in every prompt so the answer is well defined): 32 banks, 4 bytes wide;
 * a warp's request is served in 128-byte phases (32 threads for <= 4-byte elements, 16
 * for 8-byte, 8 for 16-byte); threads reading the same 4-byte word are served by one
 * broadcast. The degree is the most distinct words one bank delivers in one phase. */
#include <stdlib.h>
#include <string.h>

#include "genutil.h"

int cl_bank_conflict_degree(int elem_bytes, int stride_elems, cl_bank_conflict *out)
{
    if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8 && elem_bytes != 16)
        return -1;
    if (stride_elems < 0)
        return -1;
    memset(out, 0, sizeof *out);
    int per_phase = elem_bytes <= 4 ? 32 : 128 / elem_bytes;
    out->threads_per_phase = per_phase;
    out->phases = 32 / per_phase;
    for (int p = 0; p < out->phases; p++) {
        /* the distinct words each bank must deliver in this phase */
        long words[32][32 * 4];
        int count[32] = {0};
        for (int t = p * per_phase; t < (p + 1) * per_phase; t++) {
            long first = (long)t * stride_elems * elem_bytes / 4;
            long last = ((long)t * stride_elems * elem_bytes + elem_bytes - 1) / 4;
            for (long w = first; w <= last; w++) {
                int bank = (int)(w % 32), seen = 0;
                for (int i = 0; i < count[bank]; i++)
                    if (words[bank][i] == w) {
                        seen = 1;
                        break;
                    }
                if (!seen)
                    words[bank][count[bank]++] = w;
            }
        }
        int worst = 0;
        for (int b = 1; b < 32; b++)
            if (count[b] > count[worst])
                worst = b;
        out->wavefronts += count[worst];
        if (count[worst] > out->degree) {
            out->degree = count[worst];
            out->worst_bank = worst;
        }
    }
    return 0;
}

static const char *type_name(int elem_bytes)
{
    switch (elem_bytes) {
    case 2: return "__half";
    case 8: return "double";
    case 16: return "float4";
    default: return "float";
    }
}

/* The access one variant asks about: element size, stride in elements between
 * consecutive threads, and pad >= 0 when the access is a column read of a padded tile. */
typedef struct {
    int elem, stride, pad;
} bank_access;

static bank_access draw_access(cl_rng *r, int variant)
{
    bank_access x = {4, 1, -1};
    switch (variant) {
    case 1: {
        static const int s[] = {1, 2, 4, 8, 16, 32};
        x.stride = cl_gen_pick(r, s, CL_NELEMS(s));
        break;
    }
    case 2:
        x.stride = cl_rng_range(r, 1, 40);
        break;
    case 3: {
        static const int p[] = {0, 1, 2, 4, 8, 16};
        x.pad = cl_gen_pick(r, p, CL_NELEMS(p));
        x.stride = 32 + x.pad;
        break;
    }
    case 4: {
        static const int e[] = {8, 8, 4};
        x.elem = cl_gen_pick(r, e, CL_NELEMS(e));
        x.stride = cl_rng_range(r, 1, 8);
        break;
    }
    default: {
        static const int e[] = {2, 8, 16};
        x.elem = cl_gen_pick(r, e, CL_NELEMS(e));
        if (cl_rng_below(r, 2)) {
            static const int p[] = {0, 1, 2, 4};
            x.pad = cl_gen_pick(r, p, CL_NELEMS(p));
            x.stride = 32 + x.pad;
        } else {
            x.stride = cl_rng_range(r, 1, x.elem == 2 ? 64 : 8);
        }
        break;
    }
    }
    return x;
}

static void write_prompt(cl_question *q, const bank_access *x, cl_arena *a)
{
    const char *ty = type_name(x->elem);
    const char *code_en, *code_zh;
    if (x->pad >= 0) {
        code_en = cl_arena_printf(a, "__shared__ %s tile[32][%d];  // %s\n"
                                     "    %s v = tile[threadIdx.x][col];  // a warp reads one column",
                                  ty, 32 + x->pad,
                                  x->pad ? cl_arena_printf(a, "32 columns + %d of padding", x->pad) : "no padding",
                                  ty);
        code_zh = cl_arena_printf(a, "__shared__ %s tile[32][%d];  // %s\n"
                                     "    %s v = tile[threadIdx.x][col];  // 一个线程束读取一整列",
                                  ty, 32 + x->pad, x->pad ? cl_arena_printf(a, "32 列 + %d 列填充", x->pad) : "无填充",
                                  ty);
    } else {
        code_en = cl_arena_printf(a, "__shared__ %s s[4096];\n    %s v = s[threadIdx.x * %d];", ty, ty, x->stride);
        code_zh = code_en;
    }
    const char *model_en = "Assume 32 banks of 4 bytes; a request is served 128 bytes per phase "
                           "(32 threads for elements of 4 bytes or less, 16 threads for 8-byte, 8 for "
                           "16-byte); threads reading the same 4-byte word get it by broadcast.";
    const char *model_zh = "假设共享内存有 32 个 bank，每个 4 字节；一次请求按 128 字节一个阶段处理"
                           "（元素不超过 4 字节时每阶段 32 个线程，8 字节时 16 个，16 字节时 8 个）；"
                           "读同一个 4 字节字的线程通过广播获得数据。";
    q->prompt.en = cl_arena_printf(a,
        "One warp (threadIdx.x = 0..31) runs:\n\n    %s\n\n%s\n"
        "What is n in the resulting n-way bank conflict? (1 = conflict-free)",
        code_en, model_en);
    q->prompt.zh = cl_arena_printf(a,
        "一个 warp（线程束，threadIdx.x = 0..31）执行：\n\n    %s\n\n%s\n"
        "这次访问是几路（n-way）bank 冲突（存储体冲突）？请填 n（1 表示无冲突）。",
        code_zh, model_zh);
}

/* 4-byte elements served in one phase: the gcd argument, word by word. */
static void explain_one_phase(cl_question *q, const bank_access *x, const cl_bank_conflict *bc,
                              const char *fix_en, const char *fix_zh, cl_arena *a)
{
    const char *verdict_en = bc->degree == 1
        ? cl_arena_printf(a, "every bank serves one word: conflict-free, a single wavefront")
        : cl_arena_printf(a, "%s %d-way conflict: %d wavefronts instead of 1",
                          bc->degree == 8 || bc->degree == 11 || bc->degree == 18 ? "an" : "a", bc->degree,
                          bc->wavefronts);
    const char *verdict_zh = bc->degree == 1
        ? cl_arena_printf(a, "每个 bank 只提供一个字：无冲突，只需一个 wavefront")
        : cl_arena_printf(a, "%d 路冲突：需要 %d 个 wavefront，而不是 1 个", bc->degree, bc->wavefronts);
    int stride = x->stride;
    q->explanation.en = cl_arena_printf(a,
        "Thread t reads word t*%d, which lives in bank (t*%d) mod 32. Two threads t and t' "
        "collide when (t-t')*%d is a multiple of 32, so each bank serves gcd(%d, 32) = %d "
        "different word%s: %s. %s",
        stride, stride, stride, stride, bc->degree, bc->degree == 1 ? "" : "s", verdict_en, fix_en);
    q->explanation.zh = cl_arena_printf(a,
        "线程 t 读第 t*%d 个字，位于 bank (t*%d) mod 32。当 (t-t')*%d 是 32 的倍数时两个线程冲突，"
        "因此每个 bank 要提供 gcd(%d, 32) = %d 个不同的字：%s。%s",
        stride, stride, stride, stride, bc->degree, verdict_zh, fix_zh);
}

/* Any element size: phases of 128 bytes, the busiest bank in a phase. */
static void explain_phases(cl_question *q, const bank_access *x, const cl_bank_conflict *bc,
                           const char *fix_en, const char *fix_zh, cl_arena *a)
{
    int bytes_apart = x->stride * x->elem; /* bytes between consecutive threads */
    q->explanation.en = cl_arena_printf(a,
        "Consecutive threads are %d bytes apart. With %d-byte elements the warp is served in %d "
        "phase%s of %d threads (128 bytes each). Within a phase, bank %d must deliver %d distinct "
        "4-byte word%s (threads on the same word share it by broadcast), so the access is "
        "%d-way: %d wavefront%s in total against a minimum of %d. %s",
        bytes_apart, x->elem, bc->phases, bc->phases == 1 ? "" : "s", bc->threads_per_phase,
        bc->worst_bank, bc->degree, bc->degree == 1 ? "" : "s", bc->degree, bc->wavefronts,
        bc->wavefronts == 1 ? "" : "s", bc->phases, fix_en);
    q->explanation.zh = cl_arena_printf(a,
        "相邻线程的地址相差 %d 字节。元素为 %d 字节时，一个 warp 分 %d 个阶段处理，每阶段 %d 个线程（128 字节）。"
        "在一个阶段内，bank %d 需要提供 %d 个不同的 4 字节字（读同一个字的线程通过广播共享），"
        "所以是 %d 路冲突：总共 %d 个 wavefront，最少需要 %d 个。%s",
        bytes_apart, x->elem, bc->phases, bc->threads_per_phase, bc->worst_bank, bc->degree,
        bc->degree, bc->wavefronts, bc->phases, fix_zh);
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    bank_access x = draw_access(&r, q->difficulty);
    cl_bank_conflict bc;
    if (cl_bank_conflict_degree(x.elem, x.stride, &bc))
        return cl_err_set(err, "bad parameters elem=%d stride=%d", x.elem, x.stride);

    write_prompt(q, &x, a);
    const char *fix_en = bc.degree > 1
        ? "Padding each row by one 4-byte word (e.g. [32][33] for floats) or swizzling the index "
          "spreads the accesses over all banks."
        : "No fix is needed: the accesses already spread over the banks.";
    const char *fix_zh = bc.degree > 1
        ? "给每行补一个 4 字节字（例如 float 用 [32][33]）或对下标做 swizzle，可把访问分散到所有 bank。"
        : "无需修改：访问已分散在各个 bank 上。";
    if (x.elem == 4 && bc.phases == 1)
        explain_one_phase(q, &x, &bc, fix_en, fix_zh, a);
    else
        explain_phases(q, &x, &bc, fix_en, fix_zh, a);
    cl_gen_numeric(q, bc.degree, 0, 0, "");
    cl_gen_params(q, 2, (double[]){x.elem, x.stride});
    return 0;
}

/* Lint's recomputation: every (bank, word) pair a phase touches, sorted; the degree is
 * the longest run of one bank among the distinct pairs. */
static int cmp_pair(const void *x, const void *y)
{
    const long *a = x, *b = y;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 2)
        return -1;
    int elem = (int)q->params[0], stride = (int)q->params[1];
    int per_phase = elem <= 4 ? 32 : 128 / elem, degree = 0;
    for (int p0 = 0; p0 < 32; p0 += per_phase) {
        long pairs[32 * 4][2];
        int n = 0;
        for (int t = p0; t < p0 + per_phase; t++)
            for (long byte = (long)t * stride * elem; byte < (long)t * stride * elem + elem; byte += 4) {
                pairs[n][0] = (byte / 4) % 32;
                pairs[n][1] = byte / 4;
                n++;
            }
        qsort(pairs, (size_t)n, sizeof pairs[0], cmp_pair);
        int run = 0;
        for (int i = 0; i < n; i++) {
            if (i && pairs[i][0] == pairs[i - 1][0] && pairs[i][1] == pairs[i - 1][1])
                continue; /* the same word: a broadcast */
            run = i && pairs[i][0] == pairs[i - 1][0] ? run + 1 : 1;
            if (run > degree)
                degree = run;
        }
    }
    *answer = degree;
    return 0;
}

const cl_family cl_family_bank_conflict_degree = {
    "bank_conflict_degree",
    "n-way shared-memory bank conflict for a stride and element size",
    generate,
    recompute,
};
