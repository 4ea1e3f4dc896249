/* roofline_bound.c: is a kernel memory- or compute-bound, and what throughput can it
 * reach? From a given arithmetic intensity, or one the candidate derives for an
 * element-wise kernel or a GEMM.
 *
 * attainable = min(peak, intensity x bandwidth); the ridge point is peak / bandwidth.
 * Intensities count the compulsory traffic only: each input read once, each output
 * written once (perfect caching). */
#include "genutil.h"

double cl_roofline(double peak_tflops, double bw_tbs, double intensity, int *memory_bound)
{
    double mem = intensity * bw_tbs; /* FLOP/byte x TB/s = TFLOP/s */
    if (memory_bound)
        *memory_bound = mem < peak_tflops;
    return mem < peak_tflops ? mem : peak_tflops;
}

typedef struct kernel {
    const char *en, *zh;
    double flops, bytes; /* per element */
} kernel;

/* An intensity as a person writes it: 0.125, 10.7, 2731. */
static const char *fmt_ai(cl_arena *a, double v)
{
    return v >= 100 ? cl_arena_printf(a, "%.0f", v) : v >= 10 ? cl_arena_printf(a, "%.1f", v) : cl_arena_printf(a, "%.3g", v);
}

/* What the question is about: its arithmetic intensity and, when it names a kernel, the
 * kernel and how the intensity follows from it. */
typedef struct {
    double ai;
    const char *kern_en, *kern_zh, *derive_en, *derive_zh;
} workload;

/* Variants 1 and 2: the intensity is given, 1/20 .. 10x the ridge point, never on it. */
static workload intensity_given(cl_rng *r, double ridge)
{
    static const double mult[] = {0.05, 0.1, 0.25, 0.5, 0.8, 1.25, 2, 4, 10};
    workload w = {0, NULL, NULL, "", ""};
    w.ai = ridge * mult[cl_rng_below(r, CL_NELEMS(mult))];
    w.ai = w.ai >= 10 ? (double)(long)(w.ai + 0.5) : (double)(long)(w.ai * 10 + 0.5) / 10;
    if (w.ai <= 0)
        w.ai = 0.1;
    return w;
}

/* Variant 3: an element-wise kernel whose intensity the student works out. */
static workload elementwise_kernel(cl_rng *r, cl_arena *a)
{
    static const kernel ks[] = {
        {"y[i] = x[i] + z[i] (FP32)", "y[i] = x[i] + z[i]（FP32）", 1, 12},
        {"y[i] = a * x[i] + y[i] (SAXPY, FP32)", "y[i] = a * x[i] + y[i]（SAXPY，FP32）", 2, 12},
        {"y[i] = a * x[i] (FP32)", "y[i] = a * x[i]（FP32）", 1, 8},
        {"y[i] = a * x[i] + b (FP16 in and out)", "y[i] = a * x[i] + b（输入输出均为 FP16）", 2, 4},
        {"a dot product s += x[i] * y[i] (FP32)", "点积 s += x[i] * y[i]（FP32）", 2, 8},
    };
    const kernel *k = &ks[cl_rng_below(r, CL_NELEMS(ks))];
    workload w;
    w.ai = k->flops / k->bytes;
    w.kern_en = k->en;
    w.kern_zh = k->zh;
    w.derive_en = cl_arena_printf(a, "Per element it does %.0f FLOP%s and moves %.0f bytes, so the "
                                     "intensity is %.0f/%.0f = %.3f FLOP/byte. ",
                                  k->flops, k->flops == 1 ? "" : "s", k->bytes, k->flops, k->bytes, w.ai);
    w.derive_zh = cl_arena_printf(a, "每个元素做 %.0f 次浮点运算、搬运 %.0f 字节，算术强度为 %.0f/%.0f = %.3f FLOP/字节。",
                                  k->flops, k->bytes, k->flops, k->bytes, w.ai);
    return w;
}

/* Variants 4 (square) and 5 (any shape): an FP16 GEMM that reads A and B and writes C once. */
static workload gemm_kernel(cl_rng *r, int d, cl_arena *a)
{
    int m, n, kk, eb = 2;
    if (d == 4) {
        static const int sizes[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192};
        m = n = kk = cl_gen_pick(r, sizes, CL_NELEMS(sizes));
    } else {
        static const int sizes[] = {16, 64, 256, 1024, 4096};
        m = cl_gen_pick(r, sizes, CL_NELEMS(sizes));
        n = cl_gen_pick(r, sizes, CL_NELEMS(sizes));
        kk = cl_gen_pick(r, sizes, CL_NELEMS(sizes));
    }
    double flops = 2.0 * m * n * kk;
    double bytes = (double)eb * ((double)m * kk + (double)kk * n + (double)m * n);
    workload w;
    w.ai = flops / bytes;
    w.kern_en = cl_arena_printf(a, "an FP16 GEMM C = A x B with M = %d, N = %d, K = %d (A, B read "
                                   "once, C written once)", m, n, kk);
    w.kern_zh = cl_arena_printf(a, "FP16 GEMM C = A x B（M = %d，N = %d，K = %d；A、B 各读一次，C 写一次）",
                                m, n, kk);
    w.derive_en = cl_arena_printf(a, "FLOPs = 2MNK = %.4g; bytes = 2(MK + KN + MN) = %.4g; intensity "
                                     "= %.1f FLOP/byte. ", flops, bytes, w.ai);
    w.derive_zh = cl_arena_printf(a, "FLOP = 2MNK = %.4g；字节 = 2(MK + KN + MN) = %.4g；算术强度 = %.1f FLOP/字节。",
                                  flops, bytes, w.ai);
    return w;
}

/* Variant 1 asks memory- or compute-bound; the others ask the attainable TFLOP/s. */
static void write_question(cl_question *q, int d, double peak, double bw, const workload *w, cl_arena *a)
{
    double ridge = peak / bw, ai = w->ai;
    int mb;
    double att = cl_roofline(peak, bw, ai, &mb);
    const char *machine_en = cl_arena_printf(a, "a GPU with a peak of %.0f TFLOP/s and %.2f TB/s of "
                                                "memory bandwidth", peak, bw);
    const char *machine_zh = cl_arena_printf(a, "一块峰值算力 %.0f TFLOP/s、显存带宽 %.2f TB/s 的 GPU", peak, bw);
    const char *ais = fmt_ai(a, ai);
    const char *verdict_en = cl_arena_printf(a,
        "The ridge point is %.0f / %.2f = %.1f FLOP/byte. %s is %s it, so the kernel is %s-bound: "
        "attainable = min(%.0f, %s x %.2f) = %.3g TFLOP/s.",
        peak, bw, ridge, ais, mb ? "below" : "above", mb ? "memory" : "compute", peak, ais, bw, att);
    const char *verdict_zh = cl_arena_printf(a,
        "拐点（ridge point）为 %.0f / %.2f = %.1f FLOP/字节。%s %s拐点，所以该核函数是%s受限："
        "可达性能 = min(%.0f, %s x %.2f) = %.3g TFLOP/s。",
        peak, bw, ridge, ais, mb ? "低于" : "高于", mb ? "访存" : "计算", peak, ais, bw, att);

    if (d <= 1) {
        q->type = CL_Q_SINGLE;
        q->nchoices = 2;
        q->choices[0] = (cl_qtext){"memory-bound", "访存受限（memory-bound）"};
        q->choices[1] = (cl_qtext){"compute-bound", "计算受限（compute-bound）"};
        q->answer = mb ? 0 : 1;
        cl_gen_params(q, 4, (double[]){peak, bw, ai, 1});
        q->prompt.en = cl_arena_printf(a, "A kernel with an arithmetic intensity of %s FLOP/byte runs "
                                          "on %s. On the roofline, is it memory-bound or compute-bound?",
                                       fmt_ai(a, ai), machine_en);
        q->prompt.zh = cl_arena_printf(a, "某 kernel（核函数）的算术强度为 %s FLOP/字节，运行在%s 上。按 roofline 模型，"
                                          "它是访存受限还是计算受限？", fmt_ai(a, ai), machine_zh);
    } else {
        if (w->kern_en) {
            q->prompt.en = cl_arena_printf(a, "Consider %s on %s. By the roofline model, what throughput "
                                              "can it reach at best, in TFLOP/s?", w->kern_en, machine_en);
            /* a space before a Latin word only (house style: none between Chinese characters) */
            const char *sp = (unsigned char)w->kern_zh[0] < 0x80 ? " " : "";
            q->prompt.zh = cl_arena_printf(a, "在%s 上运行%s%s。按 roofline 模型，它最多能达到多少 TFLOP/s？",
                                           machine_zh, sp, w->kern_zh);
        } else {
            q->prompt.en = cl_arena_printf(a, "A kernel with an arithmetic intensity of %s FLOP/byte "
                                              "runs on %s. By the roofline model, what throughput can it "
                                              "reach at best, in TFLOP/s?", ais, machine_en);
            q->prompt.zh = cl_arena_printf(a, "某 kernel（核函数）的算术强度为 %s FLOP/字节，运行在%s 上。按 roofline "
                                              "模型，它最多能达到多少 TFLOP/s？", ais, machine_zh);
        }
        cl_gen_numeric(q, att, 0, 0.02, "TFLOP/s");
        cl_gen_params(q, 4, (double[]){peak, bw, ai, 0});
    }
    q->explanation.en = cl_arena_printf(a, "%s%s", w->derive_en, verdict_en);
    q->explanation.zh = cl_arena_printf(a, "%s%s", w->derive_zh, verdict_zh);
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    /* a machine: peak 20..989 TFLOP/s, bandwidth 0.9..3.35 TB/s */
    static const int peaks[] = {20, 60, 120, 312, 500, 989};
    static const double bws[] = {0.9, 1.5, 2.0, 3.35};
    double peak = cl_gen_pick(&r, peaks, CL_NELEMS(peaks));
    double bw = bws[cl_rng_below(&r, CL_NELEMS(bws))];
    workload w = d <= 2 ? intensity_given(&r, peak / bw) : d == 3 ? elementwise_kernel(&r, a) : gemm_kernel(&r, d, a);
    write_question(q, d, peak, bw, &w, a);
    return 0;
}

static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 4)
        return -1;
    double peak = q->params[0], bw = q->params[1], ai = q->params[2];
    double bytes_per_s = bw * 1e12, flop_per_s = ai * bytes_per_s;
    if (q->params[3] == 1)
        *answer = flop_per_s < peak * 1e12 ? 0 : 1;
    else
        *answer = (flop_per_s < peak * 1e12 ? flop_per_s : peak * 1e12) / 1e12;
    return 0;
}

const cl_family cl_family_roofline_bound = {
    "roofline_bound",
    "memory- or compute-bound, and attainable TFLOP/s, from arithmetic intensity (given or derived)",
    generate,
    recompute,
};
