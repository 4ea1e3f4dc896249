/* warp_shuffle_reduce.c: warp-shuffle reductions: how many steps, what a lane holds
 * after a loop that stops too early, segmented reductions with a width, and the shuffle
 * count of a whole block's two-level reduction.
 *
 * The loop is `for (int o = width / 2; o >= stop; o /= 2) v += __shfl_down_sync(mask, v,
 * o, width);`. __shfl_down_sync reads lane l + o of the same width-lane segment, and a
 * lane whose source falls outside the segment keeps its own value. */
#include "genutil.h"

long cl_shfl_reduce_lane(int width, int stop, int lane, long a, long b, int *steps)
{
    long sum = 0;
    int base = lane / width * width;
    for (int l = base; l < base + width; l++)
        if ((l - base) % stop == 0)
            sum += a * l + b;
    int n = 0;
    for (int o = width / 2; o >= stop; o /= 2)
        n++;
    if (steps)
        *steps = n;
    return sum;
}

int cl_shfl_block_steps(int nwarps)
{
    int k = 0;
    while ((1 << k) < nwarps)
        k++;
    return 5 + k;
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    static const int widths[] = {4, 8, 16, 32};
    int width = 32, stop = 1, lane = 0, steps;
    long ka = cl_rng_range(&r, 1, 5), kb = cl_rng_range(&r, 0, 9);
    double answer;
    const char *loop = NULL;
    if (d == 1) {
        width = cl_gen_pick(&r, widths, CL_NELEMS(widths));
        cl_shfl_reduce_lane(width, 1, 0, 1, 0, &steps);
        answer = steps;
        q->prompt.en = cl_arena_printf(a,
            "A tree reduction over %d lanes uses `v += __shfl_down_sync(mask, v, offset)` with offsets "
            "%d, %d, ... 1. How many shuffle steps does it take?", width, width / 2, width / 4 ? width / 4 : 1);
        q->prompt.zh = cl_arena_printf(a,
            "对 %d 个 lane 做树形归约，使用 `v += __shfl_down_sync(mask, v, offset)`，offset 依次为 %d、%d……1。"
            "共需多少步 shuffle？", width, width / 2, width / 4 ? width / 4 : 1);
        q->explanation.en = cl_arena_printf(a,
            "Each step halves the number of lanes with a partial sum: log2(%d) = %d steps. A shared-memory "
            "tree would need the same number of levels plus a barrier each; shuffles exchange registers "
            "directly inside the warp (线程束).", width, steps);
        q->explanation.zh = cl_arena_printf(a,
            "每一步让持有部分和的 lane 数减半：log2(%d) = %d 步。用共享内存做树形归约层数相同，但每层都要一次屏障；"
            "shuffle 直接在 warp（线程束）内交换寄存器。", width, steps);
        cl_gen_numeric(q, answer, 0, 0, "steps");
        cl_gen_params(q, 6, (double[]){1, width, 1, 0, 1, 0});
        return 0;
    }
    if (d == 4) {
        static const int blocks[] = {64, 128, 256, 512, 1024};
        int threads = cl_gen_pick(&r, blocks, CL_NELEMS(blocks)), nwarps = threads / 32;
        answer = (double)nwarps * 5 + (cl_shfl_block_steps(nwarps) - 5);
        q->prompt.en = cl_arena_printf(a,
            "A block of %d threads sums one value per thread: each warp reduces with 5 __shfl_down_sync "
            "steps, lane 0 of each warp writes its partial to shared memory, then warp 0 reduces the %d "
            "partials with shuffles (offsets from the smallest power of two >= %d, halved down to 1). How "
            "many warp-level shuffle instructions does the block issue in total?", threads, nwarps, nwarps);
        q->prompt.zh = cl_arena_printf(a,
            "一个 %d 线程的线程块对每线程一个值求和：每个 warp（线程束）用 5 步 __shfl_down_sync 归约，各 warp 的 0 号 lane "
            "把部分和写入共享内存，再由 0 号 warp 用 shuffle 归约这 %d 个部分和（offset 从不小于 %d 的最小 2 的幂的一半开始，"
            "减半直到 1）。整个线程块共发出多少条线程束级 shuffle 指令？", threads, nwarps, nwarps);
        int k = cl_shfl_block_steps(nwarps) - 5;
        q->explanation.en = cl_arena_printf(a,
            "First level: %d warps x 5 = %d. Second level: ceil(log2(%d)) = %d in warp 0. Total %.0f. The "
            "second level is short, but it sits behind a __syncthreads(), which is why block reductions cost "
            "more than warp reductions.", nwarps, nwarps * 5, nwarps, k, answer);
        q->explanation.zh = cl_arena_printf(a,
            "第一层：%d 个线程束 x 5 = %d 条。第二层：0 号线程束中 ceil(log2(%d)) = %d 条。共 %.0f 条。第二层很短，但它排在一次 "
            "__syncthreads() 之后，所以线程块级归约比线程束级归约更贵。", nwarps, nwarps * 5, nwarps, k, answer);
        cl_gen_numeric(q, answer, 0, 0, "instructions");
        cl_gen_params(q, 6, (double[]){4, threads, 0, 0, 0, 0});
        return 0;
    }
    if (d == 2) { /* full warp, values a*l + b, lane 0 */
        width = 32;
    } else if (d == 3) { /* the loop stops too early */
        static const int stops[] = {2, 4, 8};
        stop = cl_gen_pick(&r, stops, CL_NELEMS(stops));
    } else { /* a width argument: segments */
        width = cl_gen_pick(&r, widths, 3);
        lane = width * cl_rng_range(&r, 0, 32 / width - 1);
    }
    answer = (double)cl_shfl_reduce_lane(width, stop, lane, ka, kb, &steps);
    loop = cl_arena_printf(a, "float v = %ld * lane + %ld;   // lane = threadIdx.x %% 32\n"
                              "    for (int o = %d; o >= %d; o /= 2)\n"
                              "        v += __shfl_down_sync(0xffffffff, v, o%s);",
                           ka, kb, width / 2, stop, width < 32 ? cl_arena_printf(a, ", %d", width) : "");
    q->prompt.en = cl_arena_printf(a, "A full warp runs:\n\n    %s\n\nWhat value does lane %d hold afterwards?",
                                   loop, lane);
    q->prompt.zh = cl_arena_printf(a, "一个完整的 warp（线程束）执行：\n\n    %s\n\n执行后 %d 号 lane 的值是多少？",
                                   loop, lane);
    const char *why_en = stop > 1
        ? cl_arena_printf(a, "The loop stops at offset %d instead of 1, so the last %d step%s never run: lane 0 "
                             "ends with the sum of the lanes that are multiples of %d only.", stop,
                          stop == 2 ? 1 : stop == 4 ? 2 : 3, stop == 2 ? "" : "s", stop)
        : width < 32 ? cl_arena_printf(a, "With width %d the warp is %d independent segments; a lane whose source "
                                          "lies outside its segment keeps its value, so lane %d ends with the sum "
                                          "of lanes %d..%d.", width, 32 / width, lane, lane, lane + width - 1)
        : "After the 5 steps lane 0 holds the sum of all 32 lanes (the other lanes hold partial sums).";
    const char *why_zh = stop > 1
        ? cl_arena_printf(a, "循环在 offset 为 %d 时就停了，而不是 1，最后 %d 步没有执行：0 号 lane 只得到编号为 %d 的倍数的那些 lane 之和。",
                          stop, stop == 2 ? 1 : stop == 4 ? 2 : 3, stop)
        : width < 32 ? cl_arena_printf(a, "width 为 %d 时，线程束被分成 %d 个独立的段；源 lane 超出本段时保留自己的值，所以 %d 号 lane "
                                          "最终是 %d..%d 号 lane 之和。", width, 32 / width, lane, lane, lane + width - 1)
        : "5 步之后 0 号 lane 持有全部 32 个 lane 之和（其他 lane 持有部分和）。";
    q->explanation.en = cl_arena_printf(a, "%s Lane l starts with %ld*l + %ld; the sum is %.0f.", why_en, ka, kb, answer);
    q->explanation.zh = cl_arena_printf(a, "%s 第 l 号 lane 的初值为 %ld*l + %ld；求和得 %.0f。", why_zh, ka, kb, answer);
    cl_gen_numeric(q, answer, 0, 0, "");
    cl_gen_params(q, 6, (double[]){2, width, stop, lane, (double)ka, (double)kb});
    return 0;
}

/* Lint's recomputation: run the shuffles on 32 simulated lanes. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 6)
        return -1;
    const double *p = q->params;
    if (p[0] == 1) {
        int steps = 0;
        for (int live = (int)p[1]; live > 1; live /= 2)
            steps++;
        *answer = steps;
        return 0;
    }
    if (p[0] == 4) {
        int nwarps = (int)p[1] / 32, steps = 0;
        for (int live = nwarps; live > 1; live = (live + 1) / 2)
            steps++;
        *answer = nwarps * 5 + steps;
        return 0;
    }
    int width = (int)p[1], stop = (int)p[2], lane = (int)p[3];
    long v[32], nv[32];
    for (int l = 0; l < 32; l++)
        v[l] = (long)p[4] * l + (long)p[5];
    for (int o = width / 2; o >= stop; o /= 2) {
        for (int l = 0; l < 32; l++) {
            int src = l + o;
            nv[l] = v[l] + (src / width == l / width ? v[src] : v[l]);
        }
        for (int l = 0; l < 32; l++)
            v[l] = nv[l];
    }
    *answer = (double)v[lane];
    return 0;
}

const cl_family cl_family_warp_shuffle_reduce = {
    "warp_shuffle_reduce",
    "warp-shuffle reductions: steps, early-stopping loops, width segments, block totals",
    generate,
    recompute,
};
