/* tile_smem.c: how much shared memory a tile needs: a square tile, a padded one, and
 * a GEMM block's A and B tiles with multi-stage (cp.async / TMA) pipelining.
 *
 * bytes = stages x (BM x (BK + pad) + BK x (BN + pad)) x element size; a single tile is
 * rows x (cols + pad) x element size. */
#include "genutil.h"

long cl_tile_bytes(int rows, int cols, int pad, int elem_bytes)
{
    return (long)rows * (cols + pad) * elem_bytes;
}

long cl_gemm_tile_smem(int bm, int bn, int bk, int pad, int elem_bytes, int stages)
{
    return (long)stages * (cl_tile_bytes(bm, bk, pad, elem_bytes) + cl_tile_bytes(bk, bn, pad, elem_bytes));
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    long bytes;
    double params[7] = {0};
    if (d <= 2) {
        static const int sizes[] = {8, 16, 32, 64};
        int t = cl_gen_pick(&r, sizes, CL_NELEMS(sizes));
        int pad = d == 2 ? 1 : 0;
        int elem = d == 2 && cl_rng_below(&r, 2) ? 8 : 4;
        const char *ty = elem == 8 ? "double" : "float";
        bytes = cl_tile_bytes(t, t, pad, elem);
        params[0] = 0, params[1] = t, params[2] = pad, params[3] = elem;
        q->prompt.en = cl_arena_printf(a, "How many bytes of shared memory does this declaration take?\n\n"
                                          "    __shared__ %s tile[%d][%d%s];", ty, t, t, pad ? " + 1" : "");
        q->prompt.zh = cl_arena_printf(a, "下面的声明占用多少字节共享内存？\n\n    __shared__ %s tile[%d][%d%s];",
                                       ty, t, t, pad ? " + 1" : "");
        q->explanation.en = cl_arena_printf(a, "%d rows x %d columns x %d bytes = %ld bytes.%s", t, t + pad,
                                            elem, bytes,
                                            pad ? " The extra column is padding: it shifts the start of "
                                                  "each row to another bank, so that the threads of a warp "
                                                  "reading one column no longer hit the same bank." : "");
        q->explanation.zh = cl_arena_printf(a, "%d 行 x %d 列 x %d 字节 = %ld 字节。%s", t, t + pad, elem, bytes,
                                            pad ? "多出的一列是填充：让每行的起始位置错开到别的 bank，一个 warp 按列读取时就不会挤在同一个 bank 上。" : "");
    } else {
        static const int bms[] = {64, 128, 256};
        static const int bks[] = {16, 32, 64};
        int bm = cl_gen_pick(&r, bms, CL_NELEMS(bms));
        int bn = cl_gen_pick(&r, bms, CL_NELEMS(bms));
        int bk = cl_gen_pick(&r, bks, CL_NELEMS(bks));
        int stages = d >= 4 ? cl_rng_range(&r, 2, 4) : 1;
        int pad = d == 5 ? 8 : 0;
        bytes = cl_gemm_tile_smem(bm, bn, bk, pad, 2, stages);
        params[0] = 1, params[1] = bm, params[2] = bn, params[3] = bk, params[4] = pad, params[5] = stages;
        const char *pad_en = pad ? "; every row of both tiles is padded by 8 halves (16 bytes) to keep "
                                   "ldmatrix free of bank conflicts" : "";
        const char *pad_zh = pad ? "；两个 tile 的每一行都填充 8 个 half（16 字节），使 ldmatrix 无 bank 冲突" : "";
        const char *stg_en = stages > 1 ? cl_arena_printf(a, "; the main loop is pipelined over %d stages "
                                                             "(a copy of both tiles per stage)", stages) : "";
        const char *stg_zh = stages > 1 ? cl_arena_printf(a, "；主循环做 %d 级流水（每级各有一份两个 tile）", stages) : "";
        q->prompt.en = cl_arena_printf(a,
            "A GEMM thread block computes a %d x %d tile of C. Each step of its K loop stages a "
            "%d x %d tile of A and a %d x %d tile of B (FP16) in shared memory%s%s. How many bytes of "
            "shared memory does the block need?", bm, bn, bm, bk, bk, bn, pad_en, stg_en);
        q->prompt.zh = cl_arena_printf(a,
            "某 GEMM 线程块计算 C 的一个 %d x %d 的 tile。K 循环的每一步把 A 的 %d x %d tile 和 B 的 %d x %d tile"
            "（FP16）放入共享内存%s%s。这个线程块需要多少字节共享内存？", bm, bn, bm, bk, bk, bn, pad_zh, stg_zh);
        q->explanation.en = cl_arena_printf(a,
            "A: %d x (%d + %d) x 2 bytes = %ld; B: %d x (%d + %d) x 2 bytes = %ld; per stage %ld bytes; "
            "x %d stage%s = %ld bytes (%.1f KB). More stages hide more load latency but cost shared "
            "memory and therefore occupancy.",
            bm, bk, pad, cl_tile_bytes(bm, bk, pad, 2), bk, bn, pad, cl_tile_bytes(bk, bn, pad, 2),
            cl_gemm_tile_smem(bm, bn, bk, pad, 2, 1), stages, stages == 1 ? "" : "s", bytes, bytes / 1024.0);
        q->explanation.zh = cl_arena_printf(a,
            "A：%d x (%d + %d) x 2 字节 = %ld；B：%d x (%d + %d) x 2 字节 = %ld；每级 %ld 字节；"
            "x %d 级 = %ld 字节（%.1f KB）。级数越多越能隐藏加载延迟，但占用更多共享内存，从而降低占用率。",
            bm, bk, pad, cl_tile_bytes(bm, bk, pad, 2), bk, bn, pad, cl_tile_bytes(bk, bn, pad, 2),
            cl_gemm_tile_smem(bm, bn, bk, pad, 2, 1), stages, bytes, bytes / 1024.0);
    }
    cl_gen_numeric(q, (double)bytes, 0, 0, "bytes");
    cl_gen_params(q, 7, params);
    return 0;
}

/* Lint's recomputation: add up the bytes of every row of every buffer. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 7)
        return -1;
    const double *p = q->params;
    double total = 0;
    if (p[0] == 0) {
        for (int row = 0; row < (int)p[1]; row++)
            total += (p[1] + p[2]) * p[3];
    } else {
        for (int stage = 0; stage < (int)p[5]; stage++) {
            for (int row = 0; row < (int)p[1]; row++) /* A: BM rows of BK + pad halves */
                total += (p[3] + p[4]) * 2;
            for (int row = 0; row < (int)p[3]; row++) /* B: BK rows of BN + pad halves */
                total += (p[2] + p[4]) * 2;
        }
    }
    *answer = total;
    return 0;
}

const cl_family cl_family_tile_smem = {
    "tile_smem",
    "bytes of shared memory a (padded, multi-stage) tile needs",
    generate,
    recompute,
};
