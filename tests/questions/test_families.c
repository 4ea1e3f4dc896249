/* test_families.c: every generated family against hand-worked examples, and every
 * generator's output checked for all difficulties over many seeds. */
#include <math.h>

#include "qtest.h"
#include "questions/families.h"
#include "questions/family.h"

/* bank_conflict_degree: thread t reads element t*stride. */
START_TEST(bank_conflicts_by_hand)
{
    static const struct {
        int elem, stride, degree, wavefronts;
    } cases[] = {
        {4, 1, 1, 1},   /* word t in bank t: the textbook conflict-free case */
        {4, 2, 2, 2},   /* words 0,2,..,62: banks 0,2,..,30 each twice */
        {4, 3, 1, 1},   /* odd stride: gcd(3, 32) = 1 */
        {4, 4, 4, 4},   /* gcd(4, 32) = 4 */
        {4, 16, 16, 16},
        {4, 32, 32, 32}, /* a column of float[32][32]: every thread in bank 0 */
        {4, 33, 1, 1},   /* the same column of float[32][33]: padding fixes it */
        {4, 0, 1, 1},    /* everyone reads one word: a broadcast */
        {8, 1, 1, 2},    /* doubles: two half-warp phases of 128 bytes, no conflict */
        {8, 2, 2, 4},    /* thread t: words 4t, 4t+1; t and t+8 share banks in a phase */
        {8, 3, 1, 2},
        {8, 4, 4, 8},
        {16, 1, 1, 4},   /* float4: four quarter-warp phases */
        {16, 2, 2, 8},
        {2, 1, 1, 1},    /* halves: two threads share each word (broadcast) */
        {2, 2, 1, 1},    /* thread t reads word t */
        {2, 32, 16, 16}, /* word 16t: banks 0 and 16 only */
        {2, 64, 32, 32},
        {1, 4, 1, 1},    /* bytes 4t: word t */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cl_bank_conflict r;
        ck_assert_int_eq(cl_bank_conflict_degree(cases[i].elem, cases[i].stride, &r), 0);
        ck_assert_msg(r.degree == cases[i].degree && r.wavefronts == cases[i].wavefronts,
                      "elem %d stride %d: degree %d wavefronts %d, expected %d %d", cases[i].elem,
                      cases[i].stride, r.degree, r.wavefronts, cases[i].degree, cases[i].wavefronts);
    }
    cl_bank_conflict r;
    ck_assert_int_eq(cl_bank_conflict_degree(3, 1, &r), -1);
    /* for 4-byte elements the degree is gcd(stride, 32) */
    for (int s = 1; s <= 128; s++) {
        int a = s, b = 32;
        while (b) {
            int t = a % b;
            a = b;
            b = t;
        }
        cl_bank_conflict_degree(4, s, &r);
        ck_assert_int_eq(r.degree, a);
    }
}
END_TEST

/* coalesced_transactions: thread t loads elem bytes at offset + t*stride. */
START_TEST(coalescing_by_hand)
{
    static const struct {
        int elem;
        long stride, offset;
        int sectors, lines;
    } cases[] = {
        {4, 4, 0, 4, 1},     /* 128 aligned bytes: 4 sectors, one line */
        {4, 4, 4, 5, 2},     /* shifted by one float: bytes 4..131 straddle 5 sectors */
        {4, 4, 28, 5, 2},
        {4, 4, 32, 4, 2},    /* shifted by a whole sector: still 4 sectors, now in 2 lines */
        {4, 8, 0, 8, 2},     /* stride 2: 256 bytes spanned, every sector touched */
        {4, 128, 0, 32, 32}, /* stride 32 floats: one sector per thread */
        {8, 8, 0, 8, 2},     /* doubles: 256 bytes */
        {16, 16, 0, 16, 4},  /* float4: 512 bytes */
        {4, 12, 0, 12, 3},   /* 12-byte structs: bytes 0..375 touch sectors 0..11 */
        {4, 0, 0, 1, 1},     /* everyone loads the same float */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cl_coalesce c;
        ck_assert_int_eq(cl_coalesced_access(cases[i].elem, cases[i].stride, cases[i].offset, &c), 0);
        ck_assert_msg(c.sectors == cases[i].sectors && c.lines == cases[i].lines,
                      "case %zu: %d sectors %d lines, expected %d %d", i, c.sectors, c.lines,
                      cases[i].sectors, cases[i].lines);
    }
    cl_coalesce c;
    cl_coalesced_access(4, 4, 0, &c);
    ck_assert_double_eq(c.efficiency, 1.0);
    cl_coalesced_access(4, 8, 0, &c);
    ck_assert_double_eq(c.efficiency, 0.5);
}
END_TEST

/* occupancy: the CUDA occupancy calculator's rules (checked against cuda_occupancy.h
 * by occupancy_crosscheck.cu where the toolkit exists). */
START_TEST(occupancy_by_hand)
{
    static const struct {
        const char *sm;
        int threads, regs, smem;
        int blocks;
        double percent;
        const char *limiter;
    } cases[] = {
        /* 64 regs: 2048 per warp, 8 warps per sub-partition = 32 per SM = 4 blocks of 8 */
        {"sm_80", 256, 64, 0, 4, 50.0, "registers"},
        /* 32 regs never limit; 2 blocks of 32 warps fill the SM */
        {"sm_80", 1024, 32, 0, 2, 100.0, "warps"},
        /* one-warp blocks: the 32-block limit leaves half the warps empty */
        {"sm_80", 32, 32, 0, 32, 50.0, "blocks"},
        /* 40 regs: 1280 per warp, 16384/1280 = 12 warps per sub-partition, 48 per SM */
        {"sm_90", 256, 40, 0, 6, 75.0, "registers"},
        /* 48 KB + 1 KB reserve = 50176 bytes; 167936 / 50176 = 3 blocks of 4 warps */
        {"sm_80", 128, 32, 49152, 3, 18.75, "shared memory"},
        /* Volta: 256-byte units, no reserve: 40000 -> 40192; 98304 / 40192 = 2 */
        {"sm_70", 256, 32, 40000, 2, 25.0, "shared memory"},
        /* 3-warp blocks on Ampere consumer parts: 48 warps / 3 = 16 = the block limit */
        {"sm_86", 96, 40, 0, 16, 100.0, "warps"},
        /* Turing: 32 warps per SM */
        {"sm_75", 1024, 32, 0, 1, 100.0, "warps"},
        /* 37 regs: 1184 -> 1280 per warp after rounding to 256 */
        {"sm_90", 128, 37, 0, 12, 75.0, "registers"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cl_occupancy o;
        const cl_arch *a = cl_arch_find(cases[i].sm);
        ck_assert_ptr_nonnull(a);
        ck_assert_int_eq(cl_occupancy_calc(a, cases[i].threads, cases[i].regs, cases[i].smem, &o), 0);
        ck_assert_msg(o.blocks == cases[i].blocks && fabs(o.percent - cases[i].percent) < 1e-9 &&
                          !strcmp(o.limiter, cases[i].limiter),
                      "case %zu: %d blocks %.2f%% (%s), expected %d %.2f%% (%s)", i, o.blocks, o.percent,
                      o.limiter, cases[i].blocks, cases[i].percent, cases[i].limiter);
    }
    cl_occupancy o;
    /* 128 regs x 1024 threads = 131072 registers: cannot launch */
    ck_assert_int_eq(cl_occupancy_calc(cl_arch_find("sm_80"), 1024, 128, 0, &o), -1);
    /* more shared memory than a block may have */
    ck_assert_int_eq(cl_occupancy_calc(cl_arch_find("sm_86"), 128, 32, 200000, &o), -1);
    ck_assert_ptr_null(cl_arch_find("sm_10"));
}
END_TEST

START_TEST(peak_tflops_by_hand)
{
    /* A100: 108 SMs x 1.41 GHz x 4 Tensor Cores x 256 FP16 FMA x 2 = 312 TFLOP/s (data sheet) */
    ck_assert_double_eq_tol(cl_peak_tflops(108, 1.41, 4 * 256 * 2), 311.87, 0.01);
    /* H100 SXM: 132 x 1.83 GHz x 4 x 512 x 2 = 989 TFLOP/s dense FP16 (data sheet: 989.4) */
    ck_assert_double_eq_tol(cl_peak_tflops(132, 1.83, 4 * 512 * 2), 989.43, 0.01);
    /* A100 FP32: 64 cores x 2 = 19.5 TFLOP/s */
    ck_assert_double_eq_tol(cl_peak_tflops(108, 1.41, 64 * 2), 19.49, 0.01);
}
END_TEST

START_TEST(roofline_by_hand)
{
    int mb;
    /* ridge = 100 / 2 = 50 FLOP/byte */
    ck_assert_double_eq(cl_roofline(100, 2, 10, &mb), 20);
    ck_assert_int_eq(mb, 1);
    ck_assert_double_eq(cl_roofline(100, 2, 100, &mb), 100);
    ck_assert_int_eq(mb, 0);
    ck_assert_double_eq(cl_roofline(100, 2, 50, &mb), 100); /* on the ridge: compute-bound */
    ck_assert_int_eq(mb, 0);
    /* SAXPY in fp32 on an H100 (3.35 TB/s): 2/12 FLOP/byte -> 0.558 TFLOP/s */
    ck_assert_double_eq_tol(cl_roofline(989, 3.35, 2.0 / 12, &mb), 0.5583, 1e-4);
}
END_TEST

START_TEST(tile_smem_by_hand)
{
    ck_assert_int_eq(cl_tile_bytes(32, 32, 0, 4), 4096);
    ck_assert_int_eq(cl_tile_bytes(32, 32, 1, 4), 4224);       /* float tile[32][33] */
    ck_assert_int_eq(cl_gemm_tile_smem(128, 128, 32, 0, 2, 1), 16384); /* (128x32 + 32x128) x 2 */
    ck_assert_int_eq(cl_gemm_tile_smem(128, 128, 32, 0, 2, 3), 49152);
    /* padded by 8 halves: 128 x 40 + 32 x 136 = 9472 halves = 18944 bytes a stage */
    ck_assert_int_eq(cl_gemm_tile_smem(128, 128, 32, 8, 2, 3), 56832);
}
END_TEST

START_TEST(divergence_by_hand)
{
    unsigned char t[128];
    cl_divergence d;
    /* even/odd lanes, 10 instructions each side: both sides issue, half the lanes idle */
    for (int i = 0; i < 32; i++)
        t[i] = i % 2 == 0;
    ck_assert_int_eq(cl_divergence_efficiency(t, 32, 10, 10, &d), 0);
    ck_assert_double_eq(d.percent, 50);
    ck_assert_int_eq(d.divergent_warps, 1);
    /* 10 lanes x 15 + 22 lanes x 20 = 590 useful of 35 x 32 = 1120 */
    for (int i = 0; i < 32; i++)
        t[i] = i < 10;
    cl_divergence_efficiency(t, 32, 15, 20, &d);
    ck_assert_int_eq(d.useful, 590);
    ck_assert_int_eq(d.issued, 35);
    ck_assert_double_eq_tol(d.percent, 52.6786, 1e-3);
    /* 128 threads, threadIdx.x < 40: only warp 1 diverges; 1280 of 1600 lane slots */
    for (int i = 0; i < 128; i++)
        t[i] = i < 40;
    cl_divergence_efficiency(t, 128, 10, 10, &d);
    ck_assert_int_eq(d.divergent_warps, 1);
    ck_assert_double_eq(d.percent, 80);
    /* warp-aligned condition: nothing diverges */
    for (int i = 0; i < 128; i++)
        t[i] = (i / 32) % 2 == 0;
    cl_divergence_efficiency(t, 128, 7, 9, &d);
    ck_assert_int_eq(d.divergent_warps, 0);
    ck_assert_double_eq(d.percent, 100);
    /* if without else, every 4th lane: 8 of 32 lanes work */
    for (int i = 0; i < 128; i++)
        t[i] = i % 4 == 0;
    cl_divergence_efficiency(t, 128, 8, 0, &d);
    ck_assert_double_eq(d.percent, 25);
    ck_assert_int_eq(cl_divergence_efficiency(t, 100, 1, 1, &d), -1); /* not whole warps */
}
END_TEST

START_TEST(grid_size_by_hand)
{
    ck_assert_int_eq(cl_grid_blocks(1000000, 256, 1), 3907); /* 3906.25 rounds up */
    ck_assert_int_eq(cl_grid_blocks(1 << 20, 256, 4), 1024);
    ck_assert_int_eq(cl_grid_blocks(256, 256, 1), 1);
    ck_assert_int_eq(cl_grid_blocks(257, 256, 1), 2);
    ck_assert_int_eq(cl_grid_blocks(1, 1024, 8), 1);
    ck_assert_int_eq(cl_grid_blocks(0, 256, 1), 0);
}
END_TEST

/* Every family, every difficulty, many seeds: valid, deterministic, sensible answers. */
START_TEST(generators_are_valid_and_deterministic)
{
    int families = 0;
    for (const cl_family *const *f = cl_family_table; *f; f++, families++) {
        for (int d = 1; d <= 5; d++) {
            int distinct = 0;
            char first[512] = "";
            for (uint64_t seed = 0; seed < 200; seed++) {
                cl_question meta;
                memset(&meta, 0, sizeof meta);
                meta.id = "gen-test";
                meta.topic = "memory";
                meta.family = (*f)->name;
                meta.difficulty = d;
                cl_arena a1, a2;
                cl_arena_init(&a1);
                cl_arena_init(&a2);
                cl_question q1, q2;
                cl_err err;
                ck_assert_msg(cl_question_instantiate(&meta, seed, &a1, &q1, &err) == 0, "%s", err.msg);
                ck_assert_msg(cl_question_instantiate(&meta, seed, &a2, &q2, &err) == 0, "%s", err.msg);
                qt_msgs m = {0};
                ck_assert_msg(cl_question_check(&q1, (*f)->name, qt_collect, &m) == 0, "%s d%d seed %d: %s",
                              (*f)->name, d, (int)seed, m.msg[0]);
                ck_assert_str_eq(q1.prompt.en, q2.prompt.en);
                ck_assert_str_eq(q1.explanation.zh, q2.explanation.zh);
                ck_assert_int_eq(q1.type, q2.type);
                if (q1.type == CL_Q_NUMERIC) {
                    ck_assert_double_eq(q1.number, q2.number);
                    ck_assert_msg(q1.number > 0, "%s d%d: answer %g", (*f)->name, d, q1.number);
                }
                ck_assert_int_eq(q1.difficulty, d);
                ck_assert_str_eq(q1.id, "gen-test");
                if (strcmp(first, q1.prompt.en)) {
                    distinct++;
                    snprintf(first, sizeof first, "%s", q1.prompt.en);
                }
                cl_arena_free(&a1);
                cl_arena_free(&a2);
            }
            ck_assert_msg(distinct > 3, "%s d%d: the seed hardly changes the question", (*f)->name, d);
        }
    }
    ck_assert_int_ge(families, 8);
}
END_TEST

/* Spot checks that each generator's answer is the calculator's for its parameters:
 * the numbers in the prompt must reproduce the answer. */
START_TEST(generated_bank_conflict_matches_its_prompt)
{
    for (uint64_t seed = 0; seed < 100; seed++) {
        cl_question meta = {.id = "g", .topic = "memory", .family = "bank_conflict_degree", .difficulty = 2};
        cl_arena a;
        cl_arena_init(&a);
        cl_question q;
        cl_err err;
        ck_assert_int_eq(cl_question_instantiate(&meta, seed, &a, &q, &err), 0);
        const char *p = strstr(q.prompt.en, "threadIdx.x * ");
        ck_assert_ptr_nonnull(p);
        int stride = atoi(p + strlen("threadIdx.x * "));
        cl_bank_conflict r;
        cl_bank_conflict_degree(4, stride, &r);
        ck_assert_double_eq(q.number, r.degree);
        cl_arena_free(&a);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("questions_families");
    TCase *tc = tcase_create("families");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, bank_conflicts_by_hand);
    tcase_add_test(tc, coalescing_by_hand);
    tcase_add_test(tc, occupancy_by_hand);
    tcase_add_test(tc, peak_tflops_by_hand);
    tcase_add_test(tc, roofline_by_hand);
    tcase_add_test(tc, tile_smem_by_hand);
    tcase_add_test(tc, divergence_by_hand);
    tcase_add_test(tc, grid_size_by_hand);
    tcase_add_test(tc, generators_are_valid_and_deterministic);
    tcase_add_test(tc, generated_bank_conflict_matches_its_prompt);
    suite_add_tcase(s, tc);
    return qt_run(s);
}
