/* graph_host.c: runs the topo_sort and paged_attention checkers on the CPU alone.
 *
 * The "device" is host memory and the solutions are C functions: a right one and the
 * same mistakes as the planted GPU solutions. Every correctness case of lab.yaml must
 * pass the right one and each wrong one must fail somewhere; this tests the checkers
 * (generators, CPU references, verifiers, messages) on a machine without a GPU.
 *
 *   cc -O2 -I grader/include -I labs/include bench/dev/graph_host.c bench/dev/mini_engine.c \
 *      grader/labs/topo_sort.c grader/labs/paged_attention.c -lm -o graph_host
 *   python3 bench/dev/cases.py topo_sort paged_attention > cases.tsv
 *   ./graph_host cases.tsv [--bench]   (exit 0 when every expectation holds) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudalab_lab.h"
#include "grader/gen.h"
#include "mini_engine.h"

extern const cl_checker cl_checker_topo_sort, cl_checker_paged_attention;

/* ---- the host backend ---- */

static void *h_alloc(size_t n) { return malloc(n ? n : 1); }
static void h_release(void *p) { free(p); }
static int h_copy(void *d, const void *s, size_t n) { memmove(d, s, n); return 0; }
static int h_set(void *d, int b, size_t n) { memset(d, b, n); return 0; }
static size_t h_mem_free(void) { return (size_t)8 << 30; }
static int h_sync(char *msg, size_t len) { return 0; }
static int h_fill(void *dev, size_t count, cl_dtype t, const cl_gen *g)
{
    for (size_t i = 0; i < count; i++) {
        switch (t) {
        case CL_F32: ((float *)dev)[i] = cl_gen_f32(g, i); break;
        case CL_F16: ((uint16_t *)dev)[i] = cl_gen_f16(g, i); break;
        case CL_I32: ((int32_t *)dev)[i] = (int32_t)cl_gen_value(g, i); break;
        case CL_F64: ((double *)dev)[i] = cl_gen_value(g, i); break;
        }
    }
    return 0;
}
static const mini_backend host_backend = {h_alloc, h_release, h_copy, h_copy, h_set, h_fill, h_mem_free, h_sync};

void *cudalab_scratch(size_t bytes)
{
    static void *p;
    static size_t have;
    if (bytes > have) {
        free(p);
        p = malloc(bytes);
        have = p ? bytes : 0;
    }
    return p;
}

/* ---- topo_sort on the CPU: right, and wrong in the planted ways ---- */

static void kahn(const int *row_ptr, const int *col, int n, int *order, int *status, int mode)
{
    int *indeg = calloc((size_t)n + 1, sizeof(int));
    char *seen = calloc((size_t)n + 1, 1);
    int head = 0, tail = 0;
    for (int k = 0; k < (n ? row_ptr[n] : 0); k++)
        indeg[col[k]]++;
    for (int u = 0; u < n; u++)
        if (indeg[u] == 0) {
            order[tail++] = u;
            seen[u] = 1;
        }
    while (head < tail) {
        int u = order[head++];
        for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++) {
            int v = col[k];
            if (mode == 1) { /* BFS: a node goes in when first reached */
                if (!seen[v]) {
                    seen[v] = 1;
                    order[tail++] = v;
                }
            } else if (--indeg[v] == 0) {
                order[tail++] = v;
            }
        }
    }
    *status = tail < n;
    if (mode == 2) { /* misses cycles: pads the order and says "DAG" */
        memset(seen, 0, (size_t)n + 1);
        for (int i = 0; i < tail; i++)
            seen[order[i]] = 1;
        for (int u = 0, t = tail; u < n; u++)
            if (!seen[u])
                order[t++] = u;
        *status = 0;
    }
    free(indeg);
    free(seen);
}

static void topo_good(const int *r, const int *c, int n, int m, int *o, int *s, void *st) { kahn(r, c, n, o, s, 0); }
static void topo_bfs(const int *r, const int *c, int n, int m, int *o, int *s, void *st) { kahn(r, c, n, o, s, 1); }
static void topo_nocycle(const int *r, const int *c, int n, int m, int *o, int *s, void *st) { kahn(r, c, n, o, s, 2); }
static void topo_identity(const int *r, const int *c, int n, int m, int *o, int *s, void *st)
{
    for (int i = 0; i < n; i++)
        o[i] = i;
    *s = 0;
}

/* ---- paged attention on the CPU (fp32, like a GPU kernel) ---- */

static float h2f(const void *p, size_t i) { return cl_f16_to_f32(((const uint16_t *)p)[i]); }

/* mode 0: right; 1: reads the cache as if contiguous; 2: no max subtraction */
static void attention(const paged_attention_args *a, int mode)
{
    int G = a->num_heads / a->num_kv_heads, D = a->head_dim, BS = a->block_size;
    float *sc = malloc(sizeof(float) * (size_t)a->max_blocks_per_seq * BS);
    for (int s = 0; s < a->num_seqs; s++)
        for (int h = 0; h < a->num_heads; h++) {
            int g = h / G, ctx = a->context_lens[s];
            const int *table = a->block_tables + (size_t)s * a->max_blocks_per_seq;
            float mx = -INFINITY, sum = 0;
            for (int t = 0; t < ctx; t++) {
                int blk = mode == 1 ? s * a->max_blocks_per_seq + t / BS : table[t / BS];
                size_t row = (((size_t)blk * BS + t % BS) * a->num_kv_heads + g) * D;
                float dot = 0;
                for (int d = 0; d < D; d++)
                    dot += h2f(a->q, ((size_t)s * a->num_heads + h) * D + d) * h2f(a->k_cache, row + d);
                sc[t] = dot * a->scale;
                mx = fmaxf(mx, sc[t]);
            }
            if (mode == 2)
                mx = 0;
            for (int t = 0; t < ctx; t++)
                sum += sc[t] = expf(sc[t] - mx);
            for (int d = 0; d < D; d++) {
                float acc = 0;
                for (int t = 0; t < ctx; t++) {
                    int blk = mode == 1 ? s * a->max_blocks_per_seq + t / BS : table[t / BS];
                    acc += sc[t] * h2f(a->v_cache, (((size_t)blk * BS + t % BS) * a->num_kv_heads + g) * D + d);
                }
                ((uint16_t *)a->out)[((size_t)s * a->num_heads + h) * D + d] = cl_f32_to_f16(acc / sum);
            }
        }
    free(sc);
}

static void pa_good(const paged_attention_args *a, void *st) { attention(a, 0); }
static void pa_contig(const paged_attention_args *a, void *st) { attention(a, 1); }
static void pa_nomax(const paged_attention_args *a, void *st) { attention(a, 2); }
static void pa_zero(const paged_attention_args *a, void *st)
{
    memset(a->out, 0, sizeof(uint16_t) * (size_t)a->num_seqs * a->num_heads * a->head_dim);
}

/* ---- driver ---- */

typedef struct solution {
    const char *lab, *name;
    const void *entry;
    int expect_ok; /* 1: every case passes; 0: some case fails with verdict `wrong` */
    const char *expect_msg;
} solution;

static const solution solutions[] = {
    {"topo_sort", "kahn (right)", (const void *)topo_good, 1, NULL},
    {"topo_sort", "bfs order", (const void *)topo_bfs, 0, "goes backward"},
    {"topo_sort", "misses cycles", (const void *)topo_nocycle, 0, "has a cycle"},
    {"topo_sort", "identity (skeleton)", (const void *)topo_identity, 0, NULL},
    {"paged_attention", "fp32 (right)", (const void *)pa_good, 1, NULL},
    {"paged_attention", "contiguous cache", (const void *)pa_contig, 0, "out["},
    {"paged_attention", "no max subtraction", (const void *)pa_nomax, 0, "out["},
    {"paged_attention", "zeros (skeleton)", (const void *)pa_zero, 0, "out["},
};

static const cl_checker *checker_of(const char *lab)
{
    return !strcmp(lab, "topo_sort") ? &cl_checker_topo_sort : &cl_checker_paged_attention;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s cases.tsv [--bench] [--only LAB]\n", argv[0]);
        return 2;
    }
    int do_bench = 0;
    const char *only = NULL;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--bench"))
            do_bench = 1;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
    }
    mini_set_backend(&host_backend);
    mini_set_seed((uint64_t)time(NULL));
    static cl_case cases[64];
    int bad = 0;
    for (size_t si = 0; si < sizeof solutions / sizeof solutions[0]; si++) {
        const solution *sol = &solutions[si];
        if (only && strcmp(only, sol->lab))
            continue;
        int ncases;
        if (mini_load_cases(argv[1], sol->lab, cases, 64, &ncases))
            return 2;
        printf("== %s: %s\n", sol->lab, sol->name);
        int failed = 0, matched = 0;
        for (int i = 0; i < ncases; i++) {
            if (cases[i].bench && !do_bench)
                continue;
            if (!sol->expect_ok && failed) /* the first failure is the verdict */
                break;
            double t0 = now_s();
            mini_case_run *cr = mini_case_open(checker_of(sol->lab), &cases[i]);
            int rc = mini_case_generate(cr, cl_case_seed(&cases[i]));
            double t1 = now_s();
            if (rc == 0) {
                mini_case_snapshot_inputs(cr);
                mini_case_launch(cr, sol->entry, NULL);
                rc = mini_case_check(cr, 1);
            }
            double t2 = now_s();
            printf("  %-28s %-6s gen %.2fs run+verify %.2fs  %s%s%s\n", cases[i].name,
                   rc == 0 ? "ok" : mini_case_verdict(cr), t1 - t0, t2 - t1, mini_case_shape(cr),
                   rc ? "\n      " : "", rc ? mini_case_message(cr) : "");
            if (rc < 0 && strcmp(mini_case_verdict(cr), "wrong")) {
                bad++; /* a checker error is never expected */
            } else if (rc) {
                failed = 1;
                matched = !sol->expect_msg || strstr(mini_case_message(cr), sol->expect_msg) != NULL;
            }
            mini_case_close(cr);
        }
        int good = sol->expect_ok ? !failed : failed && matched;
        printf("  => %s\n", good ? "as expected" : "NOT AS EXPECTED");
        bad += !good;
    }
    printf("%s\n", bad ? "FAILED" : "all as expected");
    return bad ? 1 : 0;
}
