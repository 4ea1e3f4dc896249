/* nccl_allreduce_time.c: how long an all-reduce takes on a given topology, in the
 * alpha-beta model the prompt states: a ring's bandwidth and latency terms, a two-level
 * (hierarchical) all-reduce over NVLink and a network, and ring against tree.
 *
 * Ring: 2(n-1) steps, each alpha plus one chunk of S/n over the link bandwidth B.
 * Tree (double binary): 2 ceil(log2 n) steps of alpha plus S / B.
 * Hierarchical: (g-1)/g S / B_intra twice (reduce-scatter, all-gather) plus a ring of S/g
 * over m nodes at B_inter. 1 GB = 1e9 bytes; times in microseconds. */
#include <math.h>

#include "genutil.h"

double cl_ring_allreduce_us(int n, double bytes, double bw_gbs, double alpha_us)
{
    return 2.0 * (n - 1) * (alpha_us + bytes / n / (bw_gbs * 1e3));
}

double cl_tree_allreduce_us(int n, double bytes, double bw_gbs, double alpha_us)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return 2.0 * k * alpha_us + bytes / (bw_gbs * 1e3);
}

double cl_hier_allreduce_us(int g, int m, double bytes, double bw_intra, double bw_inter)
{
    double intra = 2.0 * (g - 1) / g * bytes / (bw_intra * 1e3);
    double inter = cl_ring_allreduce_us(m, bytes / g, bw_inter, 0);
    return intra + inter;
}

static const char *mb(cl_arena *a, double bytes)
{
    return bytes >= 1e9 ? cl_arena_printf(a, "%.0f GB", bytes / 1e9)
         : bytes >= 1e6 ? cl_arena_printf(a, "%.0f MB", bytes / 1e6) : cl_arena_printf(a, "%.0f KB", bytes / 1e3);
}

/* What every variant draws first, in this order (the seed fixes it): GPUs, link
 * bandwidth, per-step latency and message size. */
typedef struct {
    int n;
    double bw, alpha, bytes;
} ar_draw;

static const char *const model_en = "Model: a ring all-reduce takes 2(n-1) steps; each step costs a latency alpha plus "
                                    "sending one chunk of S/n bytes at the per-GPU link bandwidth B (1 GB = 10^9 bytes).";
static const char *const model_zh = "模型：环形 all-reduce 共 2(n-1) 步；每步耗时为延迟 alpha 加上以每卡链路带宽 B 发送一块 S/n 字节"
                                    "（1 GB = 10^9 字节）。";

/* Variants 1 and 2: a flat ring, without (1) or with (2) the per-step latency. */
static void ask_ring(cl_question *q, int d, ar_draw x, cl_arena *a)
{
    int n = x.n;
    double bw = x.bw, alpha = x.alpha, bytes = x.bytes, us;
    if (d == 1)
        alpha = 0;
    us = cl_ring_allreduce_us(n, bytes, bw, alpha);
    q->prompt.en = cl_arena_printf(a, "%d GPUs all-reduce S = %s with a ring; B = %.0f GB/s%s. %s How long does "
                                      "it take, in microseconds?", n, mb(a, bytes), bw,
                                   d == 1 ? " and the latency is negligible" : cl_arena_printf(a, ", alpha = %.0f us", alpha),
                                   model_en);
    q->prompt.zh = cl_arena_printf(a, "%d 块 GPU 用环形算法对 S = %s 做 all-reduce；B = %.0f GB/s%s。%s 需要多少微秒？",
                                   n, mb(a, bytes), bw,
                                   d == 1 ? "，延迟可忽略" : cl_arena_printf(a, "，alpha = %.0f 微秒", alpha), model_zh);
    q->explanation.en = cl_arena_printf(a,
        "2(n-1) = %d steps; each sends S/n = %.4g bytes in %.4g us%s. Total %.4g us. The bandwidth term "
        "2(n-1)/n x S / B hardly depends on n; the latency term grows linearly with it.",
        2 * (n - 1), bytes / n, bytes / n / (bw * 1e3), d == 1 ? "" : cl_arena_printf(a, " plus %.0f us of latency", alpha), us);
    q->explanation.zh = cl_arena_printf(a,
        "2(n-1) = %d 步；每步发送 S/n = %.4g 字节，用时 %.4g 微秒%s。共 %.4g 微秒。带宽项 2(n-1)/n x S / B 几乎与 n 无关；"
        "延迟项则随 n 线性增长。",
        2 * (n - 1), bytes / n, bytes / n / (bw * 1e3), d == 1 ? "" : cl_arena_printf(a, "，另加 %.0f 微秒延迟", alpha), us);
    cl_gen_numeric(q, us, 0, 0.02, "us");
    cl_gen_params(q, 6, (double[]){0, n, bytes, bw, alpha, 0});
}

/* Variant 3: reduce-scatter in the node, ring across nodes on a shard, all-gather. */
static void ask_hierarchical(cl_question *q, cl_rng *r, ar_draw x, cl_arena *a)
{
    double bytes = x.bytes, us;
    int m = cl_gen_pick(r, (const int[]){2, 4, 8, 16}, 4);
    static const double nets[] = {25, 50};
    double net = nets[cl_rng_below(r, 2)], nvl = 450;
    us = cl_hier_allreduce_us(8, m, bytes, nvl, net);
    q->prompt.en = cl_arena_printf(a,
        "%d nodes of 8 GPUs all-reduce S = %s hierarchically: a reduce-scatter inside each node over NVLink "
        "(%.0f GB/s per GPU), a ring all-reduce of each GPU's S/8 shard across the nodes over the network "
        "(%.0f GB/s per GPU), then an all-gather inside each node. Intra-node phases move (g-1)/g x S each; "
        "ignore latency. How long does it take, in microseconds?", m, mb(a, bytes), nvl, net);
    q->prompt.zh = cl_arena_printf(a,
        "%d 个 8 卡节点对 S = %s 做分层 all-reduce：节点内经 NVLink（每卡 %.0f GB/s）做 reduce-scatter，各 GPU 的 S/8 分片"
        "经网络（每卡 %.0f GB/s）在节点间做环形 all-reduce，最后节点内做 all-gather。节点内每个阶段各搬运 (g-1)/g x S；"
        "忽略延迟。需要多少微秒？", m, mb(a, bytes), nvl, net);
    double intra = 2.0 * 7 / 8 * bytes / (nvl * 1e3), inter = us - intra;
    q->explanation.en = cl_arena_printf(a,
        "Intra-node: 2 x 7/8 x S / %.0f GB/s = %.4g us. Inter-node: a ring over %d nodes on S/8 = %.4g bytes: "
        "2(%d-1)/%d x S/8 / %.0f GB/s = %.4g us. Total %.4g us: the network phase dominates even though it "
        "carries only an eighth of the data.", nvl, intra, m, bytes / 8, m, m, net, inter, us);
    q->explanation.zh = cl_arena_printf(a,
        "节点内：2 x 7/8 x S / %.0f GB/s = %.4g 微秒。节点间：在 %d 个节点上对 S/8 = %.4g 字节做环形 all-reduce："
        "2(%d-1)/%d x S/8 / %.0f GB/s = %.4g 微秒。共 %.4g 微秒：网络阶段只承载八分之一的数据，却仍占主导。",
        nvl, intra, m, bytes / 8, m, m, net, inter, us);
    cl_gen_numeric(q, us, 0, 0.02, "us");
    cl_gen_params(q, 6, (double[]){1, 8, m, bytes, nvl, net});
}

/* Variant 4: NVLS, the switch reduces, so each GPU sends S and receives S once. */
static void ask_nvls(cl_question *q, ar_draw x, cl_arena *a)
{
    int n = x.n;
    double bw = x.bw, bytes = x.bytes, us;
    us = bytes / (bw * 1e3);
    double ring = cl_ring_allreduce_us(n, bytes, bw, 0);
    q->prompt.en = cl_arena_printf(a,
        "%d GPUs on an NVSwitch all-reduce S = %s. With NVLS the switch adds the data, so each GPU sends S "
        "once and receives the result once, at B = %.0f GB/s in each direction. Ignoring latency, how long "
        "does it take, in microseconds?", n, mb(a, bytes), bw);
    q->prompt.zh = cl_arena_printf(a,
        "%d 块 GPU 经 NVSwitch 对 S = %s 做 all-reduce。使用 NVLS 时由交换机做加法，每块 GPU 只发送一次 S、接收一次结果，"
        "每个方向带宽 B = %.0f GB/s。忽略延迟，需要多少微秒？", n, mb(a, bytes), bw);
    q->explanation.en = cl_arena_printf(a,
        "S / B = %.4g us (sending and receiving overlap). A ring would take 2(n-1)/n x S / B = %.4g us, %.2f "
        "times longer.", us, ring, ring / us);
    q->explanation.zh = cl_arena_printf(a,
        "S / B = %.4g 微秒（发送与接收重叠）。环形算法需要 2(n-1)/n x S / B = %.4g 微秒，是它的 %.2f 倍。", us, ring, ring / us);
    cl_gen_numeric(q, us, 0, 0.02, "us");
    cl_gen_params(q, 6, (double[]){2, n, bytes, bw, 0, 0});
}

/* Variant 5: ring or tree for a message size and GPU count of its own. */
static void ask_ring_or_tree(cl_question *q, cl_rng *r, ar_draw x, cl_arena *a)
{
    static const double small[] = {8e3, 64e3, 1e6, 16e6, 256e6};
    double bw = x.bw, alpha = x.alpha;
    double bytes = small[cl_rng_below(r, CL_NELEMS(small))];
    int n = cl_gen_pick(r, (const int[]){16, 32, 64, 128}, 4);
    double ring = cl_ring_allreduce_us(n, bytes, bw, alpha), tree = cl_tree_allreduce_us(n, bytes, bw, alpha);
    q->type = CL_Q_SINGLE;
    q->nchoices = 2;
    q->choices[0] = (cl_qtext){"the ring", "环形算法"};
    q->choices[1] = (cl_qtext){"the tree", "树算法"};
    q->answer = ring <= tree ? 0 : 1;
    q->prompt.en = cl_arena_printf(a,
        "%d GPUs all-reduce S = %s; B = %.0f GB/s per GPU, alpha = %.0f us per step. %s A (double binary) tree "
        "takes 2 ceil(log2 n) steps of alpha plus S / B in total. Which algorithm is faster?", n, mb(a, bytes), bw,
        alpha, model_en);
    q->prompt.zh = cl_arena_printf(a,
        "%d 块 GPU 对 S = %s 做 all-reduce；每卡 B = %.0f GB/s，每步 alpha = %.0f 微秒。%s（双二叉）树算法共 2 ceil(log2 n) 步延迟，"
        "另加总计 S / B 的传输时间。哪种算法更快？", n, mb(a, bytes), bw, alpha, model_zh);
    q->explanation.en = cl_arena_printf(a,
        "Ring: 2(%d-1) x %.0f + 2(%d-1)/%d x S / B = %.4g us. Tree: %.4g us. %s", n, alpha, n, n, ring, tree,
        ring <= tree ? "The message is large enough that the ring's bandwidth advantage wins."
                     : "The message is small: latency dominates and the tree's logarithmic step count wins.");
    q->explanation.zh = cl_arena_printf(a,
        "环形：2(%d-1) x %.0f + 2(%d-1)/%d x S / B = %.4g 微秒。树：%.4g 微秒。%s", n, alpha, n, n, ring, tree,
        ring <= tree ? "消息足够大，环形算法的带宽优势胜出。" : "消息很小：延迟占主导，树算法对数级的步数胜出。");
    cl_gen_params(q, 6, (double[]){3, n, bytes, bw, alpha, 0});
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    static const int gpus[] = {4, 8, 16, 32};
    static const double sizes[] = {256e6, 1e9, 4e9};
    static const double bws[] = {50, 100, 200, 400};
    ar_draw x;
    x.n = cl_gen_pick(&r, gpus, CL_NELEMS(gpus));
    x.bw = bws[cl_rng_below(&r, CL_NELEMS(bws))];
    x.alpha = cl_rng_range(&r, 2, 10);
    x.bytes = sizes[cl_rng_below(&r, CL_NELEMS(sizes))];
    switch (q->difficulty) {
    case 1:
    case 2: ask_ring(q, q->difficulty, x, a); break;
    case 3: ask_hierarchical(q, &r, x, a); break;
    case 4: ask_nvls(q, x, a); break;
    default: ask_ring_or_tree(q, &r, x, a); break;
    }
    return 0;
}

static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 6)
        return -1;
    const double *p = q->params;
    double t = 0;
    if (p[0] == 0 || p[0] == 3) {
        int n = (int)p[1];
        double ring = 0, tree = 0;
        for (int step = 0; step < 2 * (n - 1); step++)
            ring += p[4] + p[2] / n / p[3] / 1e3;
        for (int span = 1; span < n; span *= 2)
            tree += 2 * p[4];
        tree += p[2] / p[3] / 1e3;
        *answer = p[0] == 0 ? ring : ring <= tree ? 0 : 1;
        return 0;
    }
    if (p[0] == 1) {
        int g = (int)p[1], m = (int)p[2];
        double shard = p[3] / g;
        for (int step = 0; step < g - 1; step++) /* reduce-scatter and all-gather inside a node */
            t += 2 * shard / p[4] / 1e3;
        for (int step = 0; step < 2 * (m - 1); step++)
            t += shard / m / p[5] / 1e3;
        *answer = t;
        return 0;
    }
    *answer = p[2] / p[3] / 1e3;
    return 0;
}

const cl_family cl_family_nccl_allreduce_time = {
    "nccl_allreduce_time",
    "all-reduce time on a topology: ring, hierarchical, NVLS, ring against tree",
    generate,
    recompute,
};
