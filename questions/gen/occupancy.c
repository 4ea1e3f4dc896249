/* occupancy.c: theoretical occupancy from block size, registers per thread and shared
 * memory per block, on Volta, Turing, Ampere, Ada and Hopper.
 *
 * The rules are those of the CUDA occupancy calculator (cuda_occupancy.h in the
 * toolkit): registers are allocated per warp in units of 256 and each of the SM's four
 * sub-partitions holds a quarter of the register file; shared memory is allocated in
 * units of 128 bytes (256 before Ampere) plus 1 KB the system reserves per block on
 * sm_80 and later; the carveout is set to its largest value. */
#include <string.h>

#include "genutil.h"

/*                sm       gpu        warps blocks regs   unit smem/SM   smem/blk  unit reserved */
const cl_arch cl_archs[] = {
    {"sm_70", "V100",       64, 32, 65536, 256,  98304,  98304, 256,    0},
    {"sm_75", "T4",         32, 16, 65536, 256,  65536,  65536, 256,    0},
    {"sm_80", "A100",       64, 32, 65536, 256, 167936, 166912, 128, 1024},
    {"sm_86", "RTX 3090",   48, 16, 65536, 256, 102400, 101376, 128, 1024},
    {"sm_89", "L4",         48, 24, 65536, 256, 102400, 101376, 128, 1024},
    {"sm_90", "H100",       64, 32, 65536, 256, 233472, 232448, 128, 1024},
};
const int cl_narchs = CL_NELEMS(cl_archs);

const cl_arch *cl_arch_find(const char *sm)
{
    for (int i = 0; i < cl_narchs; i++)
        if (!strcmp(cl_archs[i].sm, sm))
            return &cl_archs[i];
    return NULL;
}

static int round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }

int cl_occupancy_calc(const cl_arch *a, int threads, int regs, int smem, cl_occupancy *o)
{
    memset(o, 0, sizeof *o);
    if (threads < 1 || threads > 1024 || regs < 0 || regs > 255 || smem < 0)
        return -1;
    int w = (threads + 31) / 32;
    o->warps_per_block = w;
    o->by_warps = a->max_warps / w;
    o->by_blocks = a->max_blocks;

    /* registers: per warp, rounded to the allocation unit; 4 sub-partitions, each with a
     * quarter of the file, hold whole warps */
    o->regs_per_warp = round_up(regs * 32, a->reg_unit);
    if (o->regs_per_warp == 0) {
        o->by_regs = o->by_blocks;
    } else {
        if (o->regs_per_warp * round_up(w, 4) > a->regs)
            return -1;
        int warps_per_sub = (a->regs / 4) / o->regs_per_warp;
        o->by_regs = warps_per_sub * 4 / w;
    }

    /* shared memory: the block's bytes plus the system reserve, rounded to the unit */
    if (smem > a->smem_block)
        return -1;
    o->smem_per_block = round_up(smem + a->smem_reserved, a->smem_unit);
    o->by_smem = o->smem_per_block ? a->smem_sm / o->smem_per_block : o->by_blocks;

    o->blocks = o->by_warps;
    o->limiter = "warps";
    if (o->by_blocks < o->blocks) {
        o->blocks = o->by_blocks;
        o->limiter = "blocks";
    }
    if (o->by_regs < o->blocks) {
        o->blocks = o->by_regs;
        o->limiter = "registers";
    }
    if (o->by_smem < o->blocks) {
        o->blocks = o->by_smem;
        o->limiter = "shared memory";
    }
    if (o->blocks == 0)
        return -1;
    o->active_warps = o->blocks * w;
    o->percent = 100.0 * o->active_warps / a->max_warps;
    return 0;
}

static const char *limiter_zh(const char *l)
{
    if (!strcmp(l, "warps")) return "每 SM 的线程束上限";
    if (!strcmp(l, "blocks")) return "每 SM 的线程块上限";
    if (!strcmp(l, "registers")) return "寄存器";
    return "共享内存";
}

static int generate(cl_question *q, uint64_t seed, cl_arena *a, cl_err *err)
{
    cl_rng r;
    cl_gen_rng(&r, seed, q->difficulty);
    const int d = q->difficulty;
    for (int attempt = 0; attempt < 200; attempt++) {
        const cl_arch *arch;
        if (d <= 3) {
            static const int easy[] = {0, 2, 5}; /* V100, A100, H100 */
            arch = &cl_archs[cl_gen_pick(&r, easy, CL_NELEMS(easy))];
        } else {
            arch = &cl_archs[cl_rng_below(&r, (uint32_t)cl_narchs)];
        }
        int threads, regs, smem = 0;
        if (d == 1) {
            static const int t[] = {32, 64, 96, 128, 256, 512, 768, 1024};
            threads = cl_gen_pick(&r, t, CL_NELEMS(t));
            regs = 32;
        } else if (d <= 3) {
            static const int t[] = {128, 256, 512, 1024};
            static const int rg[] = {16, 32, 40, 48, 64, 80, 96, 128, 168};
            threads = cl_gen_pick(&r, t, CL_NELEMS(t));
            regs = cl_gen_pick(&r, rg, CL_NELEMS(rg));
            if (d == 3) {
                static const int kb[] = {0, 8, 12, 16, 24, 32, 48, 64};
                smem = 1024 * cl_gen_pick(&r, kb, CL_NELEMS(kb));
            }
        } else {
            static const int t4[] = {64, 128, 192, 256, 384, 512};
            static const int t5[] = {96, 160, 200, 288, 320, 640};
            threads = d == 4 ? cl_gen_pick(&r, t4, CL_NELEMS(t4)) : cl_gen_pick(&r, t5, CL_NELEMS(t5));
            regs = cl_rng_range(&r, 18, 128);
            smem = 256 * cl_rng_range(&r, 0, 160);
        }
        cl_occupancy o;
        if (cl_occupancy_calc(arch, threads, regs, smem, &o))
            continue; /* cannot launch: draw again */

        const char *limits_en = cl_arena_printf(a,
            "%s (%s): at most %d warps and %d blocks per SM; %d registers per SM, allocated per "
            "warp in units of %d and split over 4 sub-partitions; %d KB of shared memory per SM "
            "(largest carveout), allocated in units of %d bytes%s.",
            arch->gpu, arch->sm, arch->max_warps, arch->max_blocks, arch->regs, arch->reg_unit,
            arch->smem_sm / 1024, arch->smem_unit,
            arch->smem_reserved ? cl_arena_printf(a, ", plus %d bytes reserved per block", arch->smem_reserved) : "");
        const char *limits_zh = cl_arena_printf(a,
            "%s（%s）：每个 SM 最多 %d 个线程束、%d 个线程块；每个 SM 有 %d 个寄存器，按线程束以 %d 为单位分配，"
            "并平分给 4 个子分区；每个 SM 有 %d KB 共享内存（最大 carveout），按 %d 字节为单位分配%s。",
            arch->gpu, arch->sm, arch->max_warps, arch->max_blocks, arch->regs, arch->reg_unit,
            arch->smem_sm / 1024, arch->smem_unit,
            arch->smem_reserved ? cl_arena_printf(a, "，且每个线程块另有 %d 字节由系统保留", arch->smem_reserved) : "");
        q->prompt.en = cl_arena_printf(a,
            "A kernel is launched with %d threads per block; it uses %d registers per thread and "
            "%d bytes of shared memory per block.\n%s\nWhat is its theoretical occupancy, in percent "
            "(active warps / maximum warps per SM)?",
            threads, regs, smem, limits_en);
        q->prompt.zh = cl_arena_printf(a,
            "某 kernel（核函数）以每块 %d 个线程启动，每个线程用 %d 个寄存器，每个线程块用 %d 字节共享内存。\n%s\n"
            "它的理论占用率是百分之多少（活跃线程束数 / 每 SM 最大线程束数）？",
            threads, regs, smem, limits_zh);
        int sub_warps = o.regs_per_warp ? (arch->regs / 4) / o.regs_per_warp : 0;
        const char *smem_en = o.smem_per_block
            ? cl_arena_printf(a, "shared memory: %d + %d reserved, rounded to %d bytes, %d / %d = %d block%s",
                              smem, arch->smem_reserved, o.smem_per_block, arch->smem_sm, o.smem_per_block,
                              o.by_smem, o.by_smem == 1 ? "" : "s")
            : "shared memory: none used and none reserved, so no limit";
        const char *smem_zh = o.smem_per_block
            ? cl_arena_printf(a, "共享内存：%d + 保留 %d，取整为 %d 字节，%d / %d = %d 个线程块", smem,
                              arch->smem_reserved, o.smem_per_block, arch->smem_sm, o.smem_per_block, o.by_smem)
            : "共享内存：既未使用也无保留，不构成限制";
        const char *regs_en = o.regs_per_warp
            ? cl_arena_printf(a, "registers: %d x 32 = %d per warp, rounded to %d; each sub-partition holds "
                                 "%d / %d = %d warp%s, so %d warps per SM = %d block%s",
                              regs, regs * 32, o.regs_per_warp, arch->regs / 4, o.regs_per_warp, sub_warps,
                              sub_warps == 1 ? "" : "s", sub_warps * 4, o.by_regs, o.by_regs == 1 ? "" : "s")
            : "registers: none used, so no limit";
        const char *regs_zh = o.regs_per_warp
            ? cl_arena_printf(a, "寄存器：每个线程束 %d x 32 = %d 个，向上取整为 %d；每个子分区可容纳 %d / %d = %d 个线程束，"
                                 "即每 SM %d 个线程束 = %d 个线程块",
                              regs, regs * 32, o.regs_per_warp, arch->regs / 4, o.regs_per_warp, sub_warps,
                              sub_warps * 4, o.by_regs)
            : "寄存器：未使用，不构成限制";
        q->explanation.en = cl_arena_printf(a,
            "A block is %d warp%s. Blocks per SM allowed by each limit: warps %d / %d = %d; the block "
            "limit %d; %s; %s. The smallest is %d block%s (limited by %s): %d warp%s of %d = %.1f%%.",
            o.warps_per_block, o.warps_per_block == 1 ? "" : "s", arch->max_warps, o.warps_per_block,
            o.by_warps, arch->max_blocks, regs_en, smem_en, o.blocks, o.blocks == 1 ? "" : "s", o.limiter,
            o.active_warps, o.active_warps == 1 ? "" : "s", arch->max_warps, o.percent);
        q->explanation.zh = cl_arena_printf(a,
            "一个线程块有 %d 个 warp（线程束）。各项限制允许的每 SM 线程块数：线程束上限 %d / %d = %d；线程块上限 %d；"
            "%s；%s。最小值是 %d 个线程块（受%s限制）：%d / %d 个线程束 = %.1f%%。",
            o.warps_per_block, arch->max_warps, o.warps_per_block, o.by_warps, arch->max_blocks, regs_zh,
            smem_zh, o.blocks, limiter_zh(o.limiter), o.active_warps, arch->max_warps, o.percent);
        cl_gen_numeric(q, o.percent, 0.5, 0, "%");
        cl_gen_params(q, 4, (double[]){(double)(arch - cl_archs), threads, regs, smem});
        return 0;
    }
    return cl_err_set(err, "no launchable configuration after 200 draws");
}

/* Lint's recomputation: place blocks on an empty SM one at a time until one of the
 * resources runs out. */
static int recompute(const cl_question *q, double *answer)
{
    if (q->nparams != 4 || q->params[0] < 0 || q->params[0] >= cl_narchs)
        return -1;
    const cl_arch *a = &cl_archs[(int)q->params[0]];
    int threads = (int)q->params[1], regs = (int)q->params[2], smem = (int)q->params[3];
    int warps = (threads + 31) / 32;
    int warp_regs = (regs * 32 + a->reg_unit - 1) / a->reg_unit * a->reg_unit;
    int sub_slots = warp_regs ? (a->regs / 4) / warp_regs : 1 << 20; /* warps per sub-partition */
    int block_smem = (smem + a->smem_reserved + a->smem_unit - 1) / a->smem_unit * a->smem_unit;
    int blocks = 0, used_warps = 0, used_smem = 0;
    for (;;) {
        if (blocks + 1 > a->max_blocks || used_warps + warps > a->max_warps ||
            used_warps + warps > 4 * sub_slots || used_smem + block_smem > a->smem_sm)
            break;
        blocks++;
        used_warps += warps;
        used_smem += block_smem;
    }
    *answer = 100.0 * used_warps / a->max_warps;
    return 0;
}

const cl_family cl_family_occupancy = {
    "occupancy",
    "theoretical occupancy from block size, registers and shared memory per architecture",
    generate,
    recompute,
};
