/* roofline_counters.c: placing a kernel on the roofline from what a profiler reports:
 * FP32 instruction counts, DRAM bytes and duration, as Nsight Compute's metrics give them
 * (sm__sass_thread_inst_executed_op_ffma_pred_on.sum and friends, dram__bytes_read.sum,
 * dram__bytes_write.sum, gpu__time_duration.sum).
 *
 * FLOPs = 2 FFMA + FADD + FMUL (thread-level); intensity = FLOPs / DRAM bytes; achieved
 * TFLOP/s = FLOPs / time; bandwidth = bytes / time; the roof = min(peak, intensity x BW). */
#include "genutil.h"

double cl_counter_flops(double ffma, double fadd, double fmul)
{
    return 2 * ffma + fadd + fmul;
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    (void)err;
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    /* an FP32 machine: A100-like or H100-like */
    int h100 = (int)cl_rng_below(&r, 2);
    double peak = h100 ? 67.0 : 19.5, bw = h100 ? 3.35 : 2.0; /* TFLOP/s, TB/s */
    double ffma = cl_rng_range(&r, 1, 400) * 1e8, fadd = cl_rng_range(&r, 0, 50) * 1e8,
           fmul = cl_rng_range(&r, 0, 50) * 1e8;
    double bytes = cl_rng_range(&r, 1, 200) * 1e8;
    double flops = cl_counter_flops(ffma, fadd, fmul), ai = flops / bytes;
    /* a duration that puts the kernel at 30..90% of its roof */
    double roof = ai * bw < peak ? ai * bw : peak;
    double frac = cl_rng_range(&r, 30, 90) / 100.0;
    double ms = flops / (roof * frac * 1e12) * 1e3;
    ms = (double)(long)(ms * 1000 + 0.5) / 1000;
    if (ms <= 0)
        ms = 0.001;
    const char *gpu = h100 ? "H100 SXM (FP32 peak 67 TFLOP/s, 3.35 TB/s)" : "A100 (FP32 peak 19.5 TFLOP/s, 2.0 TB/s)";
    const char *counters = cl_arena_printf(a,
        "    sm__sass_thread_inst_executed_op_ffma_pred_on.sum  %.4g\n"
        "    sm__sass_thread_inst_executed_op_fadd_pred_on.sum  %.4g\n"
        "    sm__sass_thread_inst_executed_op_fmul_pred_on.sum  %.4g\n"
        "    dram__bytes.sum (read + write)                     %.4g\n"
        "    gpu__time_duration.sum                             %.3f ms",
        ffma, fadd, fmul, bytes, ms);
    double achieved = flops / (ms * 1e-3) / 1e12, achieved_bw = bytes / (ms * 1e-3) / 1e12;
    int mb = ai * bw < peak;
    double answer = 0;
    const char *ask_en, *ask_zh, *unit = "";
    switch (d) {
    case 1:
        answer = ai;
        unit = "FLOP/byte";
        ask_en = "What is its arithmetic intensity, in FLOP per DRAM byte?";
        ask_zh = "它的算术强度是多少（每 DRAM 字节的浮点运算数）？";
        break;
    case 2:
        answer = achieved;
        unit = "TFLOP/s";
        ask_en = "What FP32 throughput did it achieve, in TFLOP/s?";
        ask_zh = "它实际达到的 FP32 吞吐是多少 TFLOP/s？";
        break;
    case 3:
        answer = 100 * achieved_bw / bw;
        unit = "%";
        ask_en = "What percentage of the peak DRAM bandwidth did it achieve?";
        ask_zh = "它达到了峰值显存带宽的百分之多少？";
        break;
    case 4:
        q->type = CL_Q_SINGLE;
        q->nchoices = 2;
        q->choices[0] = (cl_qtext){"memory-bound: below the ridge point", "访存受限：位于拐点左侧"};
        q->choices[1] = (cl_qtext){"compute-bound: at or above the ridge point", "计算受限：位于拐点或其右侧"};
        q->answer = mb ? 0 : 1;
        ask_en = "On this GPU's roofline, where does the kernel sit?";
        ask_zh = "在这块 GPU 的 roofline 上，该核函数位于哪一侧？";
        break;
    default:
        answer = 100 * achieved / roof;
        unit = "%";
        ask_en = "What percentage of its roofline limit min(peak, intensity x bandwidth) did it achieve?";
        ask_zh = "它达到了自身 roofline 上限 min(峰值，算术强度 x 带宽) 的百分之多少？";
        break;
    }
    q->prompt.en = cl_arena_printf(a, "Nsight Compute reports, for one FP32 kernel on an %s:\n\n%s\n\n%s", gpu, counters,
                                   ask_en);
    q->prompt.zh = cl_arena_printf(a, "Nsight Compute 对 %s上的一个 FP32 核函数报告：\n\n%s\n\n%s",
                                   h100 ? "H100 SXM（FP32 峰值 67 TFLOP/s，3.35 TB/s）" : "A100（FP32 峰值 19.5 TFLOP/s，2.0 TB/s）",
                                   counters, ask_zh);
    q->explanation.en = cl_arena_printf(a,
        "FLOPs = 2 x FFMA + FADD + FMUL = %.4g (an FFMA is two operations). Intensity = %.4g / %.4g bytes = %.3g FLOP/byte; "
        "the ridge point is %.4g / %.4g = %.3g, so the kernel is %s-bound and its roof is %.3g TFLOP/s. Achieved: %.4g FLOPs / "
        "%.3f ms = %.3g TFLOP/s and %.3g TB/s (%.1f%% of DRAM peak), %.1f%% of the roof.",
        flops, flops, bytes, ai, peak, bw, peak / bw, mb ? "memory" : "compute", roof, flops, ms, achieved, achieved_bw,
        100 * achieved_bw / bw, 100 * achieved / roof);
    q->explanation.zh = cl_arena_printf(a,
        "浮点运算数 = 2 x FFMA + FADD + FMUL = %.4g（一条 FFMA 算两次运算）。算术强度 = %.4g / %.4g 字节 = %.3g FLOP/字节；拐点为 "
        "%.4g / %.4g = %.3g，所以该核函数是%s受限，上限为 %.3g TFLOP/s。实际：%.4g FLOP / %.3f 毫秒 = %.3g TFLOP/s，带宽 %.3g TB/s"
        "（显存峰值的 %.1f%%），达到上限的 %.1f%%。",
        flops, flops, bytes, ai, peak, bw, peak / bw, mb ? "访存" : "计算", roof, flops, ms, achieved, achieved_bw,
        100 * achieved_bw / bw, 100 * achieved / roof);
    if (d != 4)
        cl_gen_numeric(q, answer, 0, 0.02, unit);
    cl_gen_params(q, 8, (double[]){d, ffma, fadd, fmul, bytes, ms, peak, bw});
    return 0;
}

/* Lint's recomputation from the raw counters, by another grouping of the same sums. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 8)
        return -1;
    const double *p = q->params;
    double flops = p[1] + p[1] + p[2] + p[3], seconds = p[5] / 1000;
    double per_byte = flops / p[4], flop_rate = flops / seconds, byte_rate = p[4] / seconds;
    double mem_roof = per_byte * p[7] * 1e12, compute_roof = p[6] * 1e12;
    switch ((int)p[0]) {
    case 1: *answer = per_byte; return 0;
    case 2: *answer = flop_rate / 1e12; return 0;
    case 3: *answer = byte_rate / (p[7] * 1e12) * 100; return 0;
    case 4: *answer = mem_roof < compute_roof ? 0 : 1; return 0;
    default: *answer = flop_rate / (mem_roof < compute_roof ? mem_roof : compute_roof) * 100; return 0;
    }
}

const cl_family cl_family_roofline_counters = {
    "roofline_counters",
    "roofline position from profiler counters: intensity, achieved TFLOP/s and bandwidth, bound, % of roof",
    generate,
    recompute,
};
