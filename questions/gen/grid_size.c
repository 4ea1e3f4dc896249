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

static void set_answer(cl_question *q, long answer, const char *unit, const double *params)
{
    cl_gen_numeric(q, (double)answer, 0, 0, unit);
    cl_gen_params(q, 5, params);
}

/* Variants 1 and 2: the blocks of a 1D grid over n elements (variant 2: several a thread). */
static void blocks_1d(cl_question *q, cl_rng *r, int d, cl_arena *a)
{
    static const int blocks[] = {128, 256, 512, 1024};
    int block = cl_gen_pick(r, blocks, CL_NELEMS(blocks));
    long n = (long)cl_rng_range(r, 1000, 9999) * cl_rng_range(r, 10, 999) + cl_rng_range(r, 1, 99);
    int per = 1;
    if (d == 2) {
        static const int pers[] = {2, 4, 8};
        per = cl_gen_pick(r, pers, CL_NELEMS(pers));
    }
    long answer = cl_grid_blocks(n, block, per);
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
    set_answer(q, answer, "blocks", (double[5]){0, (double)n, block, per, 0});
}

/* An image processed one pixel a thread with a 2D block and the smallest grid over it. */
typedef struct image_launch {
    int w, h, bx, by;
    long gx, gy;
    const char *en, *zh; /* the launch, described */
} image_launch;

static image_launch draw_image(cl_rng *r, cl_arena *a)
{
    static const int bx[] = {16, 32, 32, 8};
    static const int by[] = {16, 8, 32, 8};
    image_launch l;
    int k = (int)cl_rng_below(r, 4);
    l.w = cl_rng_range(r, 300, 4000);
    l.h = cl_rng_range(r, 200, 3000);
    l.bx = bx[k];
    l.by = by[k];
    l.gx = cl_grid_blocks(l.w, l.bx, 1);
    l.gy = cl_grid_blocks(l.h, l.by, 1);
    l.en = cl_arena_printf(a, "An image of %d x %d pixels (width x height) is processed "
                              "one pixel per thread with dim3 block(%d, %d) and the "
                              "smallest grid that covers it.", l.w, l.h, l.bx, l.by);
    l.zh = cl_arena_printf(a, "一张 %d x %d（宽 x 高）的图像，每个线程处理一个像素，"
                              "使用 dim3 block(%d, %d) 和能覆盖图像的最小 grid。", l.w, l.h, l.bx, l.by);
    return l;
}

/* Variant 3: the blocks of the 2D grid. */
static void blocks_2d(cl_question *q, const image_launch *l, cl_arena *a)
{
    long answer = l->gx * l->gy;
    q->prompt.en = cl_arena_printf(a, "%s How many blocks does the grid have in total?", l->en);
    q->prompt.zh = cl_arena_printf(a, "%s grid 一共有多少个线程块？", l->zh);
    q->explanation.en = cl_arena_printf(a, "grid = (ceil(%d/%d), ceil(%d/%d)) = (%ld, %ld): %ld blocks.",
                                        l->w, l->bx, l->h, l->by, l->gx, l->gy, answer);
    q->explanation.zh = cl_arena_printf(a, "grid = (ceil(%d/%d), ceil(%d/%d)) = (%ld, %ld)：共 %ld 个线程块。",
                                        l->w, l->bx, l->h, l->by, l->gx, l->gy, answer);
    set_answer(q, answer, "blocks", (double[5]){1, l->w, l->h, l->bx, l->by});
}

/* Variant 4: the launched threads that fall outside the image. */
static void idle_threads(cl_question *q, const image_launch *l, cl_arena *a)
{
    long total = l->gx * l->gy * l->bx * l->by;
    long pixels = (long)l->w * l->h;
    long answer = total - pixels;
    q->prompt.en = cl_arena_printf(a, "%s How many of the launched threads fall outside the image "
                                      "(and must return at the bounds check)?", l->en);
    q->prompt.zh = cl_arena_printf(a, "%s 启动的线程中有多少个落在图像之外（必须在边界检查处返回）？", l->zh);
    q->explanation.en = cl_arena_printf(a, "grid = (%ld, %ld), so %ld x %d by %ld x %d = %ld threads are "
                                           "launched for %ld pixels: %ld idle.",
                                        l->gx, l->gy, l->gx, l->bx, l->gy, l->by, total, pixels, answer);
    q->explanation.zh = cl_arena_printf(a, "grid = (%ld, %ld)，共启动 %ld x %d 乘 %ld x %d = %ld 个线程，"
                                           "像素只有 %ld 个：%ld 个线程空闲。",
                                        l->gx, l->gy, l->gx, l->bx, l->gy, l->by, total, pixels, answer);
    set_answer(q, answer, "threads", (double[5]){2, l->w, l->h, l->bx, l->by});
}

/* Variant 5: the iterations of thread 0 in a grid-stride loop over a grid capped per SM. */
static void grid_stride_iterations(cl_question *q, cl_rng *r, cl_arena *a)
{
    int sms = cl_rng_range(r, 20, 132);
    static const int per_sm[] = {2, 4, 8};
    int k = cl_gen_pick(r, per_sm, CL_NELEMS(per_sm));
    int block = 256;
    long n = (long)cl_rng_range(r, 1, 64) * 1000000 + cl_rng_range(r, 0, 999999);
    long need = cl_grid_blocks(n, block, 1);
    long grid = need < (long)sms * k ? need : (long)sms * k;
    long stride = grid * block;
    long answer = (n + stride - 1) / stride;
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
    set_answer(q, answer, "iterations", (double[5]){3, (double)n, sms, k, 0});
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    if (d <= 2) {
        blocks_1d(q, &r, d, a);
    } else if (d <= 4) {
        image_launch l = draw_image(&r, a);
        if (d == 3)
            blocks_2d(q, &l, a);
        else
            idle_threads(q, &l, a);
    } else {
        grid_stride_iterations(q, &r, a);
    }
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
