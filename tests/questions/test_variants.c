/* test_variants.c: every variant of a family live (a draw picks one of the declared
 * variants from its seed), lint's independent recomputation (it agrees with every
 * generator and catches a wrong answer), the four newer families against hand-worked
 * examples, rubric key points (labels, numbers, partial credit, Chinese wording, 亿), the
 * Chinese style checks, and exam papers staying a function of their seed. */
#include <math.h>

#include "qtest.h"
#include "questions/exam.h"
#include "questions/families.h"
#include "questions/family.h"
#include "questions/grade.h"
#include "questions/zhstyle.h"

static cl_question family_entry(const char *family, int nvariants, const int *variants)
{
    cl_question q;
    memset(&q, 0, sizeof q);
    q.id = "gen-variants";
    q.topic = "memory";
    q.family = family;
    q.difficulty = 3;
    q.nvariants = nvariants;
    for (int i = 0; i < nvariants; i++)
        q.variants[i] = variants[i];
    return q;
}

START_TEST(a_draw_uses_every_declared_variant_and_only_those)
{
    static const int v[] = {1, 3, 5};
    for (const cl_family *const *f = cl_family_table; *f; f++) {
        cl_question meta = family_entry((*f)->name, 3, v);
        int seen[6] = {0};
        for (uint64_t seed = 0; seed < 300; seed++) {
            cl_arena a;
            cl_arena_init(&a);
            cl_question q;
            cl_err err;
            ck_assert_msg(cl_question_instantiate(&meta, seed, &a, &q, &err) == 0, "%s", err.msg);
            ck_assert(q.variant == 1 || q.variant == 3 || q.variant == 5);
            ck_assert_int_eq(q.variant, cl_family_variant(&meta, seed));
            ck_assert_int_eq(q.difficulty, q.variant);
            seen[q.variant]++;
            cl_arena_free(&a);
        }
        ck_assert_msg(seen[1] > 50 && seen[3] > 50 && seen[5] > 50, "%s: variants %d/%d/%d", (*f)->name, seen[1],
                      seen[3], seen[5]);
    }
}
END_TEST

START_TEST(the_recomputation_agrees_with_every_generator)
{
    for (const cl_family *const *f = cl_family_table; *f; f++) {
        ck_assert_msg((*f)->recompute != NULL, "%s has no recompute", (*f)->name);
        cl_question meta = family_entry((*f)->name, 0, NULL);
        for (int v = 1; v <= 5; v++)
            for (uint64_t seed = 0; seed < 300; seed++) {
                cl_arena a;
                cl_arena_init(&a);
                cl_question q;
                cl_err err;
                ck_assert_int_eq(cl_question_instantiate_variant(&meta, seed, v, &a, &q, &err), 0);
                double expect = -1;
                ck_assert_int_eq((*f)->recompute(&q, &expect), 0);
                if (q.type == CL_Q_SINGLE)
                    ck_assert_int_eq((int)expect, q.answer);
                else
                    ck_assert_msg(fabs(expect - q.number) <= 1e-6 * (fabs(expect) > 1 ? fabs(expect) : 1),
                                  "%s v%d seed %d: %g vs %g", (*f)->name, v, (int)seed, q.number, expect);
                qt_msgs m = {0};
                ck_assert_msg(cl_question_check_style(&q, (*f)->name, qt_collect, &m) == 0, "%s v%d: %s",
                              (*f)->name, v, m.msg[0]);
                cl_arena_free(&a);
            }
    }
}
END_TEST

/* The occupancy explanation never divides by zero or says "1 blocks" (review finding). */
START_TEST(occupancy_explanations_read_well)
{
    cl_question meta = family_entry("occupancy", 0, NULL);
    for (int v = 1; v <= 5; v++)
        for (uint64_t seed = 0; seed < 400; seed++) {
            cl_arena a;
            cl_arena_init(&a);
            cl_question q;
            cl_err err;
            ck_assert_int_eq(cl_question_instantiate_variant(&meta, seed, v, &a, &q, &err), 0);
            ck_assert_msg(!strstr(q.explanation.en, "/ 0 =") && !strstr(q.explanation.en, " 1 blocks") &&
                              !strstr(q.explanation.en, " 1 warps"),
                          "v%d seed %d: %s", v, (int)seed, q.explanation.en);
            cl_arena_free(&a);
        }
}
END_TEST

/* The family check reports a generator whose answer disagrees with its recomputation:
 * a bank entry whose answer is tampered with after generation is caught. */
START_TEST(lint_catches_a_wrong_answer)
{
    cl_bank b;
    qt_load_good(&b);
    qt_msgs m = {0};
    ck_assert_int_eq(cl_bank_check_families(&b, 10, qt_collect, &m), 0);
    /* the same check on an instance whose answer is off by one */
    const cl_family *f = cl_family_find("bank_conflict_degree");
    cl_question meta = family_entry("bank_conflict_degree", 0, NULL);
    cl_arena a;
    cl_arena_init(&a);
    cl_question q;
    cl_err err;
    ck_assert_int_eq(cl_question_instantiate_variant(&meta, 7, 2, &a, &q, &err), 0);
    double expect;
    ck_assert_int_eq(f->recompute(&q, &expect), 0);
    q.number += 1;
    ck_assert(fabs(expect - q.number) > 0.5);
    q.nparams = 0; /* unreadable parameters are refused, not accepted */
    ck_assert_int_eq(f->recompute(&q, &expect), -1);
    cl_arena_free(&a);
    cl_bank_free(&b);
}
END_TEST

START_TEST(new_families_by_hand)
{
    int steps;
    /* v[l] = l over a full warp: 0 + 1 + ... + 31 */
    ck_assert_int_eq(cl_shfl_reduce_lane(32, 1, 0, 1, 0, &steps), 496);
    ck_assert_int_eq(steps, 5);
    /* stopping at offset 8: lanes 0, 8, 16, 24 */
    ck_assert_int_eq(cl_shfl_reduce_lane(32, 8, 0, 1, 0, &steps), 48);
    ck_assert_int_eq(steps, 2);
    /* width 8, segment starting at lane 16: 16 + ... + 23, each 2l + 1 */
    ck_assert_int_eq(cl_shfl_reduce_lane(8, 1, 16, 2, 1, &steps), 2 * (16 + 23) * 8 / 2 + 8);
    ck_assert_int_eq(cl_shfl_block_steps(8), 5 + 3);
    ck_assert_int_eq(cl_shfl_block_steps(32), 5 + 5);
    /* ring over 8 GPUs of 1 GB at 100 GB/s: 2 * 7/8 * 10 ms = 17.5 ms */
    ck_assert_double_eq_tol(cl_ring_allreduce_us(8, 1e9, 100, 0), 17500, 1e-6);
    ck_assert_double_eq_tol(cl_ring_allreduce_us(16, 0, 100, 5), 150, 1e-9);
    ck_assert_double_eq_tol(cl_tree_allreduce_us(64, 0, 100, 5), 60, 1e-9);
    /* 2 nodes of 8, 16 GB: intra 2*7/8*16e9/450e9 s, inter ring of 2 GB over 2 nodes at 50 GB/s */
    ck_assert_double_eq_tol(cl_hier_allreduce_us(8, 2, 16e9, 450, 50), 2 * 7.0 / 8 * 16e9 / 450e3 + 2e9 / 50e3, 1e-6);
    /* TMA: 128x64 A + 64x256 B in BF16 = 49152 bytes; 4 stages fit in 227 KB */
    ck_assert_int_eq(cl_stage_bytes(128, 256, 64, 2), 49152);
    ck_assert_int_eq(cl_stages_fit(49152, 232448, 0), 4);
    ck_assert_int_eq(cl_stages_fit(49152, 232448, 65536), 3);
    ck_assert_double_eq(cl_counter_flops(1e9, 2e8, 3e8), 2.5e9);
}
END_TEST

START_TEST(rubric_points_give_partial_credit_and_read_numbers)
{
    cl_question q;
    memset(&q, 0, sizeof q);
    q.id = "t";
    q.type = CL_Q_SHORT;
    q.need = 2;
    static const char *a0[] = {"subtract the max", "减最大值", "减去最大值"};
    static const char *a1[] = {"online", "在线"};
    cl_kwgroup g[3] = {
        {3, a0, {"subtract the row maximum", "减去行最大值"}, 0, 0, 0, 0},
        {2, a1, {NULL, NULL}, 0, 0, 0, 0},
        {0, NULL, {"about 64 GB", "约 64 GB"}, 1, 64, 0, 0.05},
    };
    q.groups = g;
    q.ngroups = 3;
    q.model_answer = (cl_qtext){"m", "参考"};
    cl_shown s;
    cl_shown_init(&s, &q, 1);
    cl_grade gr;
    cl_grade_answer(&s, "先减最大值再做指数，online 更新", CL_LANG_ZH, &gr);
    ck_assert_double_eq(gr.score, 1);
    cl_grade_answer(&s, "在线计算", CL_LANG_ZH, &gr);
    ck_assert_double_eq(gr.score, 0.5);
    ck_assert_uint_eq(gr.matched, 0x2u);
    cl_grade_answer(&s, "needs roughly 62.5 GB", CL_LANG_EN, &gr); /* within 5% of 64 */
    ck_assert_uint_eq(gr.matched, 0x4u);
    cl_grade_answer(&s, "needs 70 GB", CL_LANG_EN, &gr); /* outside */
    ck_assert_uint_eq(gr.matched, 0u);
    ck_assert_double_eq(gr.score, 0);
    cl_grade_answer(&s, "1,024 is not 64", CL_LANG_EN, &gr); /* 64 is there */
    ck_assert_uint_eq(gr.matched, 0x4u);
}
END_TEST

/* A rubric written with the bank's words accepts the textbook Chinese terms and the other
 * language's words for the same thing, and an unrelated answer still scores nothing. */
START_TEST(rubric_accepts_textbook_chinese_terms)
{
    static const char *div[] = {"warp divergence", "warp 发散"};
    static const char *ker[] = {"kernel"};
    static const char *bank[] = {"bank conflict", "bank 冲突"};
    static const char *pin[] = {"pinned", "锁页内存"};
    static const char *drop[] = {"accuracy drop", "精度下降"};
    static const char *race[] = {"race condition", "竞态"};
    cl_kwgroup g[6] = {
        {2, div, {"warp divergence", "warp 发散"}, 0, 0, 0, 0}, {1, ker, {NULL, NULL}, 0, 0, 0, 0},
        {2, bank, {NULL, NULL}, 0, 0, 0, 0},                   {2, pin, {NULL, NULL}, 0, 0, 0, 0},
        {2, drop, {NULL, NULL}, 0, 0, 0, 0},                   {2, race, {NULL, NULL}, 0, 0, 0, 0},
    };
    cl_question q;
    memset(&q, 0, sizeof q);
    q.id = "t";
    q.type = CL_Q_SHORT;
    q.need = 6;
    q.groups = g;
    q.ngroups = 6;
    q.model_answer = (cl_qtext){"m", "参考"};
    cl_shown s;
    cl_shown_init(&s, &q, 1);
    cl_grade gr;
    cl_grade_answer(&s, "线程束分化；核函数；存储体冲突；页锁定内存；掉点；数据竞争", CL_LANG_ZH, &gr);
    ck_assert_uint_eq(gr.matched, 0x3fu);
    ck_assert_double_eq(gr.score, 1);
    cl_grade_answer(&s, "线程束发散, 内核函数里的 Bank-Conflict, page-locked memory, a data race", CL_LANG_EN, &gr);
    ck_assert_uint_eq(gr.matched, 0x2fu); /* 内核函数 holds 核函数; no accuracy point */
    cl_grade_answer(&s, "线程块太大，寄存器不够", CL_LANG_ZH, &gr);
    ck_assert_uint_eq(gr.matched, 0u);
    char out[128];
    cl_canonical_terms("Warp发散", out, sizeof out);
    ck_assert_str_eq(out, "warp divergence");
    cl_canonical_terms("掉点掉点掉点掉点掉点掉点掉点掉点", out, 20); /* cut, not overrun */
    ck_assert_uint_lt(strlen(out), 20);
}
END_TEST

START_TEST(billions_accept_the_chinese_unit)
{
    cl_question q;
    memset(&q, 0, sizeof q);
    q.id = "t";
    q.type = CL_Q_NUMERIC;
    q.number = 6.44;
    q.tol_rel = 0.01;
    q.unit = "billion";
    cl_shown s;
    cl_shown_init(&s, &q, 1);
    cl_grade g;
    cl_grade_answer(&s, "64.4 亿", CL_LANG_ZH, &g);
    ck_assert_double_eq(g.score, 1);
    cl_grade_answer(&s, "6.44 十亿", CL_LANG_ZH, &g);
    ck_assert_double_eq(g.score, 1);
    cl_grade_answer(&s, "6.44", CL_LANG_ZH, &g);
    ck_assert_double_eq(g.score, 1);
    cl_grade_answer(&s, "64.4", CL_LANG_ZH, &g); /* a bare 64.4 is 64.4 billion: wrong */
    ck_assert_double_eq(g.score, 0);
}
END_TEST

START_TEST(chinese_style_checks)
{
    char msg[256];
    ck_assert_int_eq(cl_zh_style_check("线程束（warp）执行两条路径，然后汇合。", msg, sizeof msg), 0);
    ck_assert_int_eq(cl_zh_style_check("共 16 个线程块，每块 256 个线程。", msg, sizeof msg), 0);
    ck_assert_int_eq(cl_zh_style_check("代码 `f(a, b)` 与缩进代码：\n\n    if (x) {a;}\n\n无误。", msg, sizeof msg), 0);
    ck_assert_int_eq(cl_zh_style_check("先后执行,然后汇合", msg, sizeof msg), 1);
    ck_assert_ptr_nonnull(strstr(msg, "ASCII"));
    ck_assert_int_eq(cl_zh_style_check("这是一个 折行造成的空格", msg, sizeof msg), 1);
    ck_assert_ptr_nonnull(strstr(msg, "space"));
    ck_assert_int_eq(cl_zh_style_check("共需 64 bytes 共享内存", msg, sizeof msg), 1);
    ck_assert_ptr_nonnull(strstr(msg, "unit"));
    ck_assert_int_eq(cl_zh_style_check("答案：：32", msg, sizeof msg), 1);
    ck_assert_str_eq(cl_unit_text("bytes", CL_LANG_ZH), "字节");
    ck_assert_str_eq(cl_unit_text("bytes", CL_LANG_EN), "bytes");
    ck_assert_str_eq(cl_unit_text("TFLOP/s", CL_LANG_ZH), "TFLOP/s");
}
END_TEST

/* An exam paper with variant-drawing families is still a function of its seed. */
START_TEST(exam_papers_with_variants_are_reproducible)
{
    cl_bank b;
    qt_load_good(&b);
    for (int i = 0; i < b.nq; i++)
        if (b.q[i].family) { /* declare every variant, as the real bank does */
            b.q[i].nvariants = 5;
            for (int v = 0; v < 5; v++)
                b.q[i].variants[v] = v + 1;
        }
    cl_exam_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.seed = 7;
    spec.n = b.nq;
    spec.dmin = 1;
    spec.dmax = 5;
    cl_paper p1, p2;
    cl_err err;
    ck_assert_msg(cl_paper_make(&b, &spec, &p1, &err) == 0, "%s", err.msg);
    ck_assert_msg(cl_paper_make(&b, &spec, &p2, &err) == 0, "%s", err.msg);
    int generated = 0, differs = 0;
    for (int i = 0; i < p1.n; i++) {
        ck_assert_str_eq(p1.items[i].q.prompt.en, p2.items[i].q.prompt.en);
        ck_assert_int_eq(p1.items[i].q.variant, p2.items[i].q.variant);
        generated += p1.items[i].q.family != NULL;
    }
    ck_assert_int_gt(generated, 0);
    /* other seeds give other draws of the same families */
    for (uint64_t seed = 8; seed < 20 && !differs; seed++) {
        cl_paper p3;
        spec.seed = seed;
        ck_assert_int_eq(cl_paper_make(&b, &spec, &p3, &err), 0);
        for (int i = 0; i < p3.n; i++)
            for (int j = 0; j < p1.n; j++)
                if (p1.items[j].q.family && !strcmp(p1.items[j].q.id, p3.items[i].q.id) &&
                    strcmp(p1.items[j].q.prompt.en, p3.items[i].q.prompt.en))
                    differs = 1;
        cl_paper_free(&p3);
    }
    ck_assert(differs);
    cl_paper_free(&p1);
    cl_paper_free(&p2);
    cl_bank_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("questions_variants");
    TCase *tc = tcase_create("variants");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_draw_uses_every_declared_variant_and_only_those);
    tcase_add_test(tc, the_recomputation_agrees_with_every_generator);
    tcase_add_test(tc, lint_catches_a_wrong_answer);
    tcase_add_test(tc, occupancy_explanations_read_well);
    tcase_add_test(tc, new_families_by_hand);
    tcase_add_test(tc, rubric_points_give_partial_credit_and_read_numbers);
    tcase_add_test(tc, rubric_accepts_textbook_chinese_terms);
    tcase_add_test(tc, billions_accept_the_chinese_unit);
    tcase_add_test(tc, chinese_style_checks);
    tcase_add_test(tc, exam_papers_with_variants_are_reproducible);
    suite_add_tcase(s, tc);
    return qt_run(s);
}
