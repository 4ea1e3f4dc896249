/* grid_size.c: launch geometry: blocks for n elements (one or several per thread),
 * 2D grids for an image, idle threads of a rounded-up grid, and iterations of a
 * grid-stride loop with a capped grid.
 *
 * blocks = ceil(n / (block x per_thread)); the last block is partly idle, which is why
 * every kernel needs its `if (i < n)` guard. */
#include "genutil.h"

long cl_grid_blocks(long n, int block, int per_thread)
{
    long per_block = (long)block * per_thread;
    if (n <= 0 || per_block <= 0)
        return 0;
    return (n + per_block - 1) / per_block;
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    long answer;
    const char *unit;
    double params[5] = {0};
    if (d <= 2) {
        static const int blocks[] = {128, 256, 512, 1024};
        int block = cl_gen_pick(&r, blocks, CL_NELEMS(blocks));
        long n = (long)cl_rng_range(&r, 1000, 9999) * cl_rng_range(&r, 10, 999) + cl_rng_range(&r, 1, 99);
        int per = 1;
        if (d == 2) {
            static const int pers[] = {2, 4, 8};
            per = cl_gen_pick(&r, pers, CL_NELEMS(pers));
        }
        answer = cl_grid_blocks(n, block, per);
        params[0] = 0, params[1] = (double)n, params[2] = block, params[3] = per;
        unit = "blocks";
        q->prompt.en = cl_arena_printf(a, "A kernel processes n = %ld elements with %d threads per block%s. "
                                          "How many blocks must the 1D grid have (the fewest that cover n)?",
                                       n, block, per > 1 ? cl_arena_printf(a, "; each thread handles %d elements", per) : "");
        q->prompt.zh = cl_arena_printf(a, "某 kernel 用每块 %d 个线程处理 n = %ld 个元素%s。一维 grid 至少需要多少个线程块才能覆盖 n？",
                                       block, n, per > 1 ? cl_arena_printf(a, "，每个线程处理 %d 个元素", per) : "");
        q->explanation.en = cl_arena_printf(a, "ceil(%ld / (%d x %d)) = %ld blocks, written (n + B - 1) / B in "
                                               "integer arithmetic. The last block is only partly used, so "
                                               "the kernel must guard with if (i < n).",
                                            n, block, per, answer);
        q->explanation.zh = cl_arena_printf(a, "ceil(%ld / (%d x %d)) = %ld 个线程块，整数写法为 (n + B - 1) / B。"
                                               "最后一个线程块只用了一部分，所以 kernel 必须用 if (i < n) 做边界判断。",
                                            n, block, per, answer);
    } else if (d <= 4) {
        static const int bx[] = {16, 32, 32, 8};
        static const int by[] = {16, 8, 32, 8};
        int k = (int)cl_rng_below(&r, 4);
        int w = cl_rng_range(&r, 300, 4000), h = cl_rng_range(&r, 200, 3000);
        long gx = cl_grid_blocks(w, bx[k], 1), gy = cl_grid_blocks(h, by[k], 1);
        params[0] = d == 3 ? 1 : 2, params[1] = w, params[2] = h, params[3] = bx[k], params[4] = by[k];
        const char *launch_en = cl_arena_printf(a, "An image of %d x %d pixels (width x height) is processed "
                                                   "one pixel per thread with dim3 block(%d, %d) and the "
                                                   "smallest grid that covers it.", w, h, bx[k], by[k]);
        const char *launch_zh = cl_arena_printf(a, "一张 %d x %d（宽 x 高）的图像，每个线程处理一个像素，"
                                                   "使用 dim3 block(%d, %d) 和能覆盖图像的最小 grid。", w, h, bx[k], by[k]);
        if (d == 3) {
            answer = gx * gy;
            unit = "blocks";
            q->prompt.en = cl_arena_printf(a, "%s How many blocks does the grid have in total?", launch_en);
            q->prompt.zh = cl_arena_printf(a, "%s grid 一共有多少个线程块？", launch_zh);
            q->explanation.en = cl_arena_printf(a, "grid = (ceil(%d/%d), ceil(%d/%d)) = (%ld, %ld): %ld blocks.",
                                                w, bx[k], h, by[k], gx, gy, answer);
            q->explanation.zh = cl_arena_printf(a, "grid = (ceil(%d/%d), ceil(%d/%d)) = (%ld, %ld)：共 %ld 个线程块。",
                                                w, bx[k], h, by[k], gx, gy, answer);
        } else {
            long total = gx * gy * bx[k] * by[k];
            answer = total - (long)w * h;
            unit = "threads";
            q->prompt.en = cl_arena_printf(a, "%s How many of the launched threads fall outside the image "
                                              "(and must return at the bounds check)?", launch_en);
            q->prompt.zh = cl_arena_printf(a, "%s 启动的线程中有多少个落在图像之外（必须在边界检查处返回）？", launch_zh);
            q->explanation.en = cl_arena_printf(a, "grid = (%ld, %ld), so %ld x %d by %ld x %d = %ld threads are "
                                                   "launched for %ld pixels: %ld idle.",
                                                gx, gy, gx, bx[k], gy, by[k], total, (long)w * h, answer);
            q->explanation.zh = cl_arena_printf(a, "grid = (%ld, %ld)，共启动 %ld x %d 乘 %ld x %d = %ld 个线程，"
                                                   "像素只有 %ld 个：%ld 个线程空闲。",
                                                gx, gy, gx, bx[k], gy, by[k], total, (long)w * h, answer);
        }
    } else {
        int sms = cl_rng_range(&r, 20, 132);
        static const int per_sm[] = {2, 4, 8};
        int k = cl_gen_pick(&r, per_sm, CL_NELEMS(per_sm));
        int block = 256;
        long n = (long)cl_rng_range(&r, 1, 64) * 1000000 + cl_rng_range(&r, 0, 999999);
        long need = cl_grid_blocks(n, block, 1);
        long grid = need < (long)sms * k ? need : (long)sms * k;
        long stride = grid * block;
        params[0] = 3, params[1] = (double)n, params[2] = sms, params[3] = k;
        answer = (n + stride - 1) / stride;
        unit = "iterations";
        q->prompt.en = cl_arena_printf(a,
            "A grid-stride loop `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * "
            "blockDim.x)` processes n = %ld elements with 256 threads per block. The grid is capped at "
            "%d blocks per SM on a GPU with %d SMs. How many iterations does thread 0 of block 0 run?",
            n, k, sms);
        q->prompt.zh = cl_arena_printf(a,
            "grid-stride 循环 `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * "
            "blockDim.x)` 以每块 256 个线程处理 n = %ld 个元素。GPU 有 %d 个 SM，grid 被限制为每个 SM %d 个线程块。"
            "block 0 的 thread 0 要执行多少次循环？",
            n, sms, k);
        q->explanation.en = cl_arena_printf(a,
            "grid = min(ceil(%ld/256) = %ld, %d x %d = %d) = %ld blocks; the stride is %ld x 256 = %ld; "
            "thread 0 visits 0, %ld, 2 x %ld, ... below %ld: ceil(%ld / %ld) = %ld iterations. A capped "
            "grid-stride loop keeps every SM busy with few, long-lived blocks.",
            n, need, sms, k, sms * k, grid, grid, stride, stride, stride, n, n, stride, answer);
        q->explanation.zh = cl_arena_printf(a,
            "grid = min(ceil(%ld/256) = %ld, %d x %d = %d) = %ld 个线程块；步长为 %ld x 256 = %ld；"
            "thread 0 访问 0、%ld、2 x %ld……直到小于 %ld：ceil(%ld / %ld) = %ld 次。限制 grid 大小的 "
            "grid-stride 循环用少量常驻线程块让每个 SM 都保持忙碌。",
            n, need, sms, k, sms * k, grid, grid, stride, stride, stride, n, n, stride, answer);
    }
    cl_gen_numeric(q, (double)answer, 0, 0, unit);
    cl_gen_params(q, 5, params);
    return 0;
}

/* Lint's recomputation by counting: add blocks until n is covered; walk the 2D grid;
 * step thread 0 through its grid-stride loop. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 5)
        return -1;
    const double *p = q->params;
    long count = 0;
    if (p[0] == 0) {
        for (long covered = 0; covered < (long)p[1]; covered += (long)p[2] * (long)p[3])
            count++;
    } else if (p[0] <= 2) {
        long w = (long)p[1], h = (long)p[2], bx = (long)p[3], by = (long)p[4], blocks = 0, idle = 0;
        for (long y0 = 0; y0 < h; y0 += by)
            for (long x0 = 0; x0 < w; x0 += bx) {
                blocks++;
                long in_x = w - x0 < bx ? w - x0 : bx, in_y = h - y0 < by ? h - y0 : by;
                idle += bx * by - in_x * in_y;
            }
        count = p[0] == 1 ? blocks : idle;
    } else {
        long n = (long)p[1], blocks = 0;
        for (long covered = 0; covered < n && blocks < (long)p[2] * (long)p[3]; covered += 256)
            blocks++;
        for (long i = 0; i < n; i += blocks * 256)
            count++;
    }
    *answer = (double)count;
    return 0;
}

const cl_family cl_family_grid_size = {
    "grid_size",
    "grid size for a problem: 1D blocks, 2D blocks, idle threads, grid-stride iterations",
    generate,
    recompute,
};
