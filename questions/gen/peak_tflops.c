/* peak_tflops.c: peak TFLOP/s from SM count, clock and per-SM throughput, for FP32
 * CUDA cores, FP16 and TF32 Tensor Cores, and 2:4 structured sparsity.
 *
 * peak = SMs x clock x FLOPs per clock per SM, where one fused multiply-add is 2 FLOPs.
 * Difficulty: 1 FP32 cores, 2 the same per sub-partition, 3 FP16 Tensor Cores, 4 TF32 (half
 * the FP16 rate), 5 FP16 with 2:4 sparsity (twice the dense rate).
 * Check: A100 (108 SMs, 1.41 GHz, 4 Tensor Cores x 256 FP16 FMA/clock) = 312 TFLOP/s;
 * H100 SXM (132 SMs, 1.83 GHz, 4 x 512) = 989 TFLOP/s, as NVIDIA's data sheets say. */
#include "genutil.h"

double cl_peak_tflops(int sms, double clock_ghz, double flops_per_clock_per_sm)
{
    return sms * clock_ghz * 1e9 * flops_per_clock_per_sm / 1e12;
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    int sms = cl_rng_range(&r, 10, 72) * 2;            /* 20..144, even */
    double ghz = cl_rng_range(&r, 24, 42) * 0.05;      /* 1.20..2.10 GHz */
    double flops;
    const char *what_en, *what_zh, *how_en, *how_zh;
    if (d == 1) {
        static const int cores[] = {64, 128};
        int c = cl_gen_pick(&r, cores, CL_NELEMS(cores));
        flops = c * 2.0;
        what_en = cl_arena_printf(a, "%d FP32 cores per SM, each completing one fused multiply-add "
                                     "(FMA) per clock", c);
        what_zh = cl_arena_printf(a, "每个 SM 有 %d 个 FP32 核心，每个核心每时钟完成一次乘加（FMA）", c);
        how_en = cl_arena_printf(a, "%d cores x 2 FLOPs per FMA = %.0f FLOPs per clock per SM", c, flops);
        how_zh = cl_arena_printf(a, "%d 个核心 x 每次 FMA 2 FLOP = 每 SM 每时钟 %.0f FLOP", c, flops);
    } else if (d == 2) {
        /* the SM described by its sub-partitions, as the architecture white papers draw it */
        static const int lanes[] = {16, 32};
        int l = cl_gen_pick(&r, lanes, CL_NELEMS(lanes));
        flops = 4 * l * 2.0;
        what_en = cl_arena_printf(a, "4 processing blocks (sub-partitions) per SM, each with %d FP32 lanes "
                                     "that complete one FMA per clock", l);
        what_zh = cl_arena_printf(a, "每个 SM 有 4 个处理块（子分区），每个有 %d 条 FP32 通道，每条每时钟完成一次 FMA", l);
        how_en = cl_arena_printf(a, "4 x %d lanes x 2 FLOPs per FMA = %.0f FLOPs per clock per SM", l, flops);
        how_zh = cl_arena_printf(a, "4 x %d 条通道 x 每次 FMA 2 FLOP = 每 SM 每时钟 %.0f FLOP", l, flops);
    } else {
        static const int fma[] = {128, 256, 512, 1024};
        int f = cl_gen_pick(&r, fma, CL_NELEMS(fma));
        int sparse = d == 5, tf32 = d == 4;
        flops = 4 * f * 2.0 * (sparse ? 2 : 1) / (tf32 ? 2 : 1);
        what_en = cl_arena_printf(a, "4 Tensor Cores per SM, each doing %d dense FP16 FMAs per clock%s",
                                  f, sparse ? "; the kernel uses 2:4 structured sparsity, which the "
                                              "hardware runs at twice the dense rate"
                                  : tf32 ? "; the kernel runs in TF32, at half the FP16 rate" : "");
        what_zh = cl_arena_printf(a, "每个 SM 有 4 个 Tensor Core，每个每时钟完成 %d 次稠密 FP16 FMA%s",
                                  f, sparse ? "；kernel 使用 2:4 结构化稀疏，硬件以稠密速率的两倍执行"
                                  : tf32 ? "；kernel 以 TF32 运行，速率是 FP16 的一半" : "");
        how_en = cl_arena_printf(a, "4 x %d FMAs x 2 FLOPs%s = %.0f FLOPs per clock per SM", f,
                                 sparse ? " x 2 (sparsity)" : tf32 ? " / 2 (TF32)" : "", flops);
        how_zh = cl_arena_printf(a, "4 x %d 次 FMA x 2 FLOP%s = 每 SM 每时钟 %.0f FLOP", f,
                                 sparse ? " x 2（稀疏）" : tf32 ? " / 2（TF32）" : "", flops);
    }
    double peak = cl_peak_tflops(sms, ghz, flops);
    q->prompt.en = cl_arena_printf(a,
        "A GPU has %d SMs running at %.2f GHz, with %s. What is its peak throughput in TFLOP/s?",
        sms, ghz, what_en);
    q->prompt.zh = cl_arena_printf(a,
        "某 GPU 有 %d 个 SM，频率 %.2f GHz，%s。它的峰值算力是多少 TFLOP/s？", sms, ghz, what_zh);
    q->explanation.en = cl_arena_printf(a,
        "%s; x %d SMs x %.2f x 10^9 clocks/s = %.1f TFLOP/s. The classic slip is to forget that an "
        "FMA counts as two floating-point operations, which halves the answer.",
        how_en, sms, ghz, peak);
    q->explanation.zh = cl_arena_printf(a,
        "%s；x %d 个 SM x %.2f x 10^9 时钟/秒 = %.1f TFLOP/s。常见错误是忘了一次 FMA 算两次浮点运算，"
        "结果会少一半。",
        how_zh, sms, ghz, peak);
    cl_gen_numeric(q, peak, 0, 0.01, "TFLOP/s");
    cl_gen_params(q, 3, (double[]){sms, ghz, flops});
    return 0;
}

/* Lint's recomputation: FLOPs per second summed over the SMs, in units of 10^12. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 3)
        return -1;
    double per_second = 0;
    for (int sm = 0; sm < (int)q->params[0]; sm++)
        per_second += q->params[2] * q->params[1] * 1e9;
    *answer = per_second / 1e12;
    return 0;
}

const cl_family cl_family_peak_tflops = {
    "peak_tflops",
    "peak TFLOP/s from SM count, clock and FLOPs per clock (CUDA cores, Tensor Cores, sparsity)",
    generate,
    recompute,
};
