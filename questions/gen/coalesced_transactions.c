/* coalesced_transactions.c: "how many 32-byte sectors does this warp's load touch?" for
 * unit stride, strided, misaligned, wide (8/16-byte) and array-of-structs accesses.
 *
 * The memory system moves global data in 32-byte sectors (four to a 128-byte line); a
 * warp's load costs the number of distinct sectors its 32 addresses fall into. */
#include <stdlib.h>
#include <string.h>

#include "genutil.h"

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static int distinct(long *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_long);
    int d = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1])
            d++;
    return d;
}

int cl_coalesced_access(int elem_bytes, long stride_bytes, long offset_bytes, cl_coalesce *out)
{
    if (elem_bytes < 1 || elem_bytes > 16 || stride_bytes < 0 || offset_bytes < 0)
        return -1;
    memset(out, 0, sizeof *out);
    long sectors[32 * 2], lines[32 * 2];
    int n = 0;
    for (int t = 0; t < 32; t++) {
        long first = offset_bytes + t * stride_bytes;
        long last = first + elem_bytes - 1;
        /* an element of <= 16 bytes spans at most two sectors */
        sectors[n] = first / 32;
        lines[n] = first / 128;
        n++;
        if (last / 32 != first / 32) {
            sectors[n] = last / 32;
            lines[n] = last / 128;
            n++;
        }
    }
    out->sectors = distinct(sectors, n);
    out->lines = distinct(lines, n);
    out->useful_bytes = 32 * elem_bytes;
    out->efficiency = (double)out->useful_bytes / (out->sectors * 32.0);
    if (out->efficiency > 1) /* several threads reading the same bytes */
        out->efficiency = 1;
    return 0;
}

static const char *ctype(int elem)
{
    switch (elem) {
    case 8: return "double";
    case 16: return "float4";
    default: return "float";
    }
}

/* The code of the prompt with its comments in Chinese. */
static const char *code_zh(cl_arena *a, const char *code)
{
    static const char *const from[] = {"// in is 256-byte aligned", " bytes, array 256-byte aligned"};
    static const char *const to[] = {"// in 按 256 字节对齐", " 字节，数组按 256 字节对齐"};
    const char *out = code;
    for (int i = 0; i < 2; i++) {
        const char *hit = strstr(out, from[i]);
        if (hit)
            out = cl_arena_printf(a, "%.*s%s%s", (int)(hit - out), out, to[i], hit + strlen(from[i]));
    }
    return out;
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    int elem = 4;
    long stride = 4, offset = 0;
    const char *code;
    switch (q->difficulty) {
    case 1: {
        static const int s[] = {1, 2};
        int k = cl_gen_pick(&r, s, CL_NELEMS(s));
        stride = 4L * k;
        code = cl_arena_printf(a, "float v = in[%sthreadIdx.x];   // in is 256-byte aligned",
                               k == 1 ? "" : "2 * ");
        break;
    }
    case 2: {
        static const int s[] = {2, 3, 4, 8, 16, 32};
        int k = cl_gen_pick(&r, s, CL_NELEMS(s));
        stride = 4L * k;
        code = cl_arena_printf(a, "float v = in[threadIdx.x * %d];   // in is 256-byte aligned", k);
        break;
    }
    case 3: {
        int k = cl_rng_range(&r, 1, 7);
        offset = 4L * k;
        code = cl_arena_printf(a, "float v = in[threadIdx.x + %d];   // in is 256-byte aligned", k);
        break;
    }
    case 4: {
        static const int e[] = {8, 16};
        elem = cl_gen_pick(&r, e, CL_NELEMS(e));
        int k = cl_rng_range(&r, 1, 3);
        stride = (long)elem * k;
        int off = cl_rng_range(&r, 0, 1);
        offset = (long)elem * off;
        code = cl_arena_printf(a, "%s v = in[threadIdx.x%s%s];   // in is 256-byte aligned",
                               ctype(elem), k == 1 ? "" : cl_arena_printf(a, " * %d", k),
                               off ? " + 1" : "");
        break;
    }
    default: {
        static const int sizes[] = {8, 12, 16, 20, 24, 32, 48, 64};
        int size = cl_gen_pick(&r, sizes, CL_NELEMS(sizes));
        int nfloat = size / 4;
        int field = cl_rng_range(&r, 0, nfloat - 1);
        stride = size;
        offset = 4L * field;
        code = cl_arena_printf(a,
            "struct P { float f[%d]; };   // %d bytes, array 256-byte aligned\n"
            "    float v = particles[threadIdx.x].f[%d];",
            nfloat, size, field);
        break;
    }
    }
    cl_coalesce c;
    if (cl_coalesced_access(elem, stride, offset, &c))
        return cl_err_set(err, "bad parameters elem=%d stride=%ld offset=%ld", elem, stride, offset);

    q->prompt.en = cl_arena_printf(a,
        "One full warp (threadIdx.x = 0..31) executes:\n\n    %s\n\n"
        "Global memory is moved in 32-byte sectors. How many sectors does this one load "
        "instruction touch?", code);
    q->prompt.zh = cl_arena_printf(a,
        "一个完整的 warp（线程束，threadIdx.x = 0..31）执行：\n\n    %s\n\n"
        "全局内存以 32 字节的 sector 为单位传输。这一条加载指令会访问多少个 sector？", code_zh(a, code));
    q->explanation.en = cl_arena_printf(a,
        "Thread t reads %d bytes at byte %ld + t*%ld. The 32 addresses fall into %d distinct "
        "32-byte sectors (%d distinct 128-byte lines). The warp asks for %d bytes and %d bytes "
        "move, an efficiency of %.3g%%. %s",
        elem, offset, stride, c.sectors, c.lines, c.useful_bytes, c.sectors * 32, c.efficiency * 100,
        c.efficiency >= 0.999 ? "This is a fully coalesced access: consecutive threads read "
                                "consecutive, aligned bytes."
        : offset % 32 && stride == elem ? "The offset breaks alignment, so the warp straddles one "
                                          "extra sector; the fix is aligned starting points."
        : "Strided or array-of-structs access wastes most of every sector; a structure-of-arrays "
          "layout (or staging through shared memory) makes it coalesced.");
    q->explanation.zh = cl_arena_printf(a,
        "线程 t 读取从字节 %ld + t*%ld 开始的 %d 个字节。32 个地址落在 %d 个不同的 32 字节 sector 中"
        "（%d 个不同的 128 字节缓存行）。warp 需要 %d 字节，实际传输 %d 字节，效率 %.3g%%。%s",
        offset, stride, elem, c.sectors, c.lines, c.useful_bytes, c.sectors * 32, c.efficiency * 100,
        c.efficiency >= 0.999 ? "这是完全合并的访问：相邻线程读取相邻且对齐的字节。"
        : offset % 32 && stride == elem ? "偏移破坏了对齐，warp 多跨了一个 sector；解决办法是让起始地址对齐。"
        : "跨步或结构体数组（AoS）访问浪费了每个 sector 的大部分；改成数组结构体（SoA）布局"
          "（或经共享内存中转）即可合并。");
    cl_gen_numeric(q, c.sectors, 0, 0, "sectors");
    cl_gen_params(q, 3, (double[]){elem, (double)stride, (double)offset});
    return 0;
}

/* Lint's recomputation: mark the sector of every byte the warp reads. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 3)
        return -1;
    long elem = (long)q->params[0], stride = (long)q->params[1], offset = (long)q->params[2];
    long last = offset + 31 * stride + elem;
    unsigned char *hit = calloc((size_t)(last / 32 + 1), 1);
    if (!hit)
        return -1;
    int sectors = 0;
    for (int t = 0; t < 32; t++)
        for (long b = offset + t * stride; b < offset + t * stride + elem; b++)
            if (!hit[b / 32]++)
                sectors++;
    free(hit);
    *answer = sectors;
    return 0;
}

const cl_family cl_family_coalesced_transactions = {
    "coalesced_transactions",
    "32-byte sectors one warp's load touches, for a stride, offset and element size",
    generate,
    recompute,
};
