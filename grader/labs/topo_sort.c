/* topo_sort.c: the checker of the topo_sort lab.
 *
 * Inputs are directed graphs in CSR, built on the CPU from the run's seed and uploaded:
 *   layered     nodes split into `levels` equal levels; each edge goes from a node to a
 *               node 1..span levels further down. Kahn's algorithm then needs `levels`
 *               rounds (every node of a level has a predecessor in the level above with
 *               overwhelming probability), so `levels` sets the depth.
 *   chain       one path through all n nodes: depth n, one node per round.
 *   components  a layered part, a chain, a shallow wide part and isolated nodes, side by
 *               side with no edge between them.
 * Modifiers: dup (every edge repeated: multi-edges), self_loops (k edges v -> v), cycle
 * (a short cycle threaded through levels deep inside the layered part; everything below
 * it is unreachable for Kahn). Node ids are a random permutation of the generation
 * order, so neither the identity nor the CSR order is a valid answer.
 *
 * Generation is linear and writes col sequentially (about 0.1 s for 16M edges): degrees
 * come from paired jitter with an exact total, and each edge's target is a hash of
 * (seed, source, slot), so a graph is a pure function of (case parameters, seed).
 *
 * Verification: whether the graph has a cycle is known by construction (layered parts,
 * chains and isolated nodes are acyclic; self loops and the threaded cycle are not); every
 * full check also runs Kahn's algorithm on the CPU (one thread, the baseline the lab's
 * speed-up is quoted against). For a DAG the answer must be a permutation of 0..n-1 in
 * which every edge goes forward (all edges, after every call, checked on every core); any
 * valid order passes. For a graph with a cycle *status must be 1 and order is ignored.
 * Bench cases time the CPU Kahn on their first TOPO_TIMED_CPU graphs and report its median
 * in the case's shape text, so the GPU's speed-up over one CPU thread is measured in the
 * same run. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cudalab_lab.h"
#include "grader/checker.h"
#include "parallel.h"

#define TOPO_MAX_PIECES 4
#define TOPO_MAX_EXTRA 4096   /* self loops + cycle edges */
#define TOPO_TIMED_CPU 5 /* bench graphs whose CPU Kahn is timed (the peer's median) */

/* A piece of the graph in generation order ("rank" space): ranks [off, off + n) split
 * into `levels` levels; m edges whose sources are the ranks above the last level. */
typedef struct topo_piece {
    long long off, n, m;
    long long levels, span;
    int jitter; /* vary the out-degrees (sum unchanged) */
} topo_piece;

typedef struct topo_edge {
    int src, dst; /* ranks */
} topo_edge;

typedef struct topo_state {
    /* parameters */
    long long n, m;    /* nodes; edges in all (dup and extras included) */
    long long dup;     /* every generated edge is written dup times */
    long long self_loops;
    int cycle;         /* thread a cycle through the layered part */
    double cycle_at;   /* its depth, as a fraction of the levels */
    long long cycle_len;
    int npieces;
    topo_piece pieces[TOPO_MAX_PIECES];
    /* host graph (the CPU reference reads these) */
    int *row_ptr, *col;
    int *rank_of;      /* node id -> rank */
    int *id_of;        /* rank -> node id */
    int nextra;
    topo_edge extra[TOPO_MAX_EXTRA];
    int *order_h, *pos, *indeg, *queue; /* verification scratch */
    int status_h;
    /* device buffers */
    int *d_row_ptr, *d_col, *d_order, *d_status;
    size_t order_bytes;
    /* CPU Kahn timings on the bench graph (ms) */
    int is_bench, ncpu;
    double cpu_ms[TOPO_TIMED_CPU];
    int have_kahn; /* queue holds Kahn's order of this graph */
    uint64_t seed;
} topo_state;

/* ---- levels inside a piece: level l holds ranks [start(l), start(l+1)) ---- */

static long long level_start(const topo_piece *p, long long l) { return l * p->n / p->levels; }

static long long level_of(const topo_piece *p, long long r) /* r relative to the piece */
{
    return ((r + 1) * p->levels - 1) / p->n;
}

/* Sources are the ranks above the last level. */
static long long piece_sources(const topo_piece *p)
{
    return p->levels < 2 ? 0 : level_start(p, p->levels - 1);
}

/* Out-degree of relative rank r (before dup): m spread evenly over the sources, then
 * moved between the two ranks of each pair (2i, 2i+1) by a random amount, so the total
 * stays exactly m and the degrees still vary. */
static long long piece_degree(const topo_piece *p, long long r, uint64_t seed)
{
    long long ns = piece_sources(p);
    if (r >= ns || ns == 0)
        return 0;
    long long q = p->m / ns, rem = p->m % ns;
    long long d0 = q + (r < rem);
    if (!p->jitter)
        return d0;
    long long mate = r ^ 1;
    if (mate >= ns)
        return d0;
    long long lo = r & ~1LL;
    long long dlo = q + (lo < rem), dhi = q + (lo + 1 < rem);
    uint64_t h = cl_rand64(seed ^ 0x6A09E667F3BCC909ull, (uint64_t)(p->off + lo), 0);
    long long cap = dlo < dhi ? dlo : dhi;
    long long shift = (long long)((h >> 1) % (uint64_t)(cap + 1));
    int to_low = (int)(h & 1);
    if (r == lo)
        return to_low ? d0 + shift : d0 - shift;
    return to_low ? d0 - shift : d0 + shift;
}

/* The targets of relative source rank r: slot j goes to a random rank of level a + 1 + d
 * (a: r's level, d drawn in [0, span), the last level at most). A row's levels are found
 * once (each start is a 64-bit division) and the draws are 32-bit remainders of operands
 * below 2^32, the same numbers as 64-bit ones, cheaper: a bench graph has 16M edges, made
 * again for every timed run. */
#define TOPO_SPAN_TABLE 16
typedef struct row_targets {
    const topo_piece *p;
    uint64_t key;                                     /* the row's hash input; j is xored in */
    long long a;                                      /* r's level */
    long long start[TOPO_SPAN_TABLE], end[TOPO_SPAN_TABLE]; /* level a + 1 + d's ranks (span <= table) */
} row_targets;

static long long target_level(const topo_piece *p, long long a, long long d)
{
    long long b = a + 1 + d;
    return b > p->levels - 1 ? p->levels - 1 : b;
}

static void row_targets_init(row_targets *t, const topo_piece *p, long long r)
{
    t->p = p;
    t->key = (uint64_t)(p->off + r) << 24;
    t->a = level_of(p, r);
    for (long long d = 0; d < p->span && d < TOPO_SPAN_TABLE; d++) {
        long long b = target_level(p, t->a, d);
        t->start[d] = level_start(p, b);
        t->end[d] = level_start(p, b + 1);
    }
}

/* Target (relative rank) of slot j. */
static long long row_target(const row_targets *t, long long j, uint64_t seed)
{
    const topo_piece *p = t->p;
    uint64_t h = cl_rand64(seed ^ 0xBB67AE8584CAA73Bull, t->key ^ (uint64_t)j, 0);
    uint64_t d = p->span <= 0xFFFFFFFFll ? (uint32_t)(h >> 40) % (uint32_t)p->span : (h >> 40) % (uint64_t)p->span;
    long long s, e;
    if (p->span <= TOPO_SPAN_TABLE) {
        s = t->start[d];
        e = t->end[d];
    } else {
        long long b = target_level(p, t->a, d);
        s = level_start(p, b);
        e = level_start(p, b + 1);
    }
    return s + (long long)((uint32_t)h % (uint32_t)(e - s));
}

static int find_piece(const topo_state *s, long long rank)
{
    for (int i = s->npieces - 1; i > 0; i--)
        if (rank >= s->pieces[i].off)
            return i;
    return 0;
}

static int cmp_edge(const void *a, const void *b)
{
    const topo_edge *x = a, *y = b;
    return x->src != y->src ? (x->src < y->src ? -1 : 1) : (x->dst < y->dst ? -1 : x->dst > y->dst);
}

/* The extra edges of this seed: self loops at random ranks, and the hidden cycle: the
 * first node of levels a, a+1, ..., a+len-1 of piece 0 chained, plus the edge back. */
static void make_extras(topo_state *s, uint64_t seed)
{
    s->nextra = 0;
    for (long long i = 0; i < s->self_loops; i++) {
        int r = (int)cl_sample_index(seed ^ 0x3C6EF372FE94F82Bull, (uint64_t)i, (uint64_t)s->n);
        s->extra[s->nextra++] = (topo_edge){r, r};
    }
    if (s->cycle) {
        const topo_piece *p = &s->pieces[0];
        long long a = (long long)(s->cycle_at * (double)(p->levels - s->cycle_len));
        if (a < 0)
            a = 0;
        for (long long k = 0; k < s->cycle_len; k++) {
            long long from = level_start(p, a + k);
            long long to = level_start(p, a + (k + 1) % s->cycle_len);
            s->extra[s->nextra++] = (topo_edge){(int)(p->off + from), (int)(p->off + to)};
        }
    }
    qsort(s->extra, (size_t)s->nextra, sizeof s->extra[0], cmp_edge);
}

/* The row loops of build_graph, a slice [lo, hi) on each thread. */
typedef struct build_job {
    topo_state *s;
    uint64_t seed;
} build_job;

/* Row lengths (before extras) by node id, for ranks lo..hi-1. */
static void degrees_part(void *ctx, int t, long long lo, long long hi)
{
    (void)t;
    build_job *b = ctx;
    topo_state *s = b->s;
    for (long long r = lo; r < hi; r++) {
        const topo_piece *p = &s->pieces[find_piece(s, r)];
        s->row_ptr[s->id_of[r] + 1] = (int)(piece_degree(p, r - p->off, b->seed) * s->dup);
    }
}

/* The generated edges of node ids lo..hi-1 (each row is its own slice of col). */
static void edges_part(void *ctx, int t, long long lo, long long hi)
{
    (void)t;
    build_job *b = ctx;
    topo_state *s = b->s;
    for (long long u = lo; u < hi; u++) {
        long long r = s->rank_of[u];
        const topo_piece *p = &s->pieces[find_piece(s, r)];
        long long rel = r - p->off, deg = piece_degree(p, rel, b->seed);
        int *out = s->col + s->row_ptr[u];
        row_targets tg;
        if (deg > 0)
            row_targets_init(&tg, p, rel);
        for (long long j = 0; j < deg; j++) {
            int v = s->id_of[p->off + row_target(&tg, j, b->seed)];
            for (long long d = 0; d < s->dup; d++)
                *out++ = v;
        }
    }
}

/* Builds the CSR of this seed into s->row_ptr / s->col. The permutation and the offsets
 * are serial; the row lengths and the edges (the hashing of 16M targets in the bench
 * graph) are computed on every core, each row written by one thread. */
static void build_graph(topo_state *s, uint64_t seed)
{
    long long n = s->n;
    /* node ids: a random permutation of the ranks (Fisher-Yates) */
    for (long long i = 0; i < n; i++)
        s->id_of[i] = (int)i;
    for (long long i = n - 1; i > 0; i--) {
        long long j = (long long)cl_sample_index(seed ^ 0xA54FF53A5F1D36F1ull, (uint64_t)i, (uint64_t)(i + 1));
        int t = s->id_of[i];
        s->id_of[i] = s->id_of[j];
        s->id_of[j] = t;
    }
    for (long long r = 0; r < n; r++)
        s->rank_of[s->id_of[r]] = (int)r;
    make_extras(s, seed);

    /* row lengths by node id, then offsets */
    s->row_ptr[0] = 0;
    build_job job = {s, seed};
    cl_par_for(n, (double)n * 8, CL_PAR_MAX, degrees_part, &job);
    for (int e = 0; e < s->nextra; e++)
        s->row_ptr[s->id_of[s->extra[e].src] + 1]++;
    for (long long u = 0; u < n; u++)
        s->row_ptr[u + 1] += s->row_ptr[u];

    /* edges, row by row; extras go last in their row */
    cl_par_for(n, (double)s->m * 4, CL_PAR_MAX, edges_part, &job);
    /* extras: sorted by source rank, so equal sources are adjacent */
    for (int e = 0; e < s->nextra;) {
        int src = s->extra[e].src, u = s->id_of[src];
        const topo_piece *p = &s->pieces[find_piece(s, src)];
        long long base = piece_degree(p, src - p->off, seed) * s->dup;
        int *out = s->col + s->row_ptr[u] + base;
        for (; e < s->nextra && s->extra[e].src == src; e++)
            *out++ = s->id_of[s->extra[e].dst];
    }
}

/* Kahn's algorithm on one CPU thread. Returns the number of nodes placed (< n: cycle).
 * The queue array doubles as the order. */
static long long cpu_kahn(long long n, const int *row_ptr, const int *col, int *indeg, int *queue)
{
    memset(indeg, 0, (size_t)n * sizeof(int));
    long long m = n ? row_ptr[n] : 0;
    for (long long k = 0; k < m; k++)
        indeg[col[k]]++;
    long long head = 0, tail = 0;
    for (long long u = 0; u < n; u++)
        if (indeg[u] == 0)
            queue[tail++] = (int)u;
    while (head < tail) {
        int u = queue[head++];
        for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++)
            if (--indeg[col[k]] == 0)
                queue[tail++] = col[k];
    }
    return tail;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- the checker ---- */

static int read_params(cl_run *run, const cl_case *c, topo_state *s)
{
    const char *kind = cl_param_str_or(c, "graph", "layered");
    long long n, m, levels, span;
    if (cl_param_i64(run, c, "n", &n) || cl_param_i64_or(run, c, "m", 0, &m) ||
        cl_param_i64_or(run, c, "levels", 2, &levels) || cl_param_i64_or(run, c, "span", 4, &span) ||
        cl_param_i64_or(run, c, "dup", 1, &s->dup) ||
        cl_param_i64_or(run, c, "self_loops", 0, &s->self_loops) ||
        cl_param_i64_or(run, c, "cycle_len", 0, &s->cycle_len) ||
        cl_param_f64_or(run, c, "cycle_at", 0.6, &s->cycle_at))
        return -1;
    if (n < 0 || n > INT_MAX / 2)
        return cl_errorf(run, "topo_sort: n = %lld is out of range", n);
    if (m < 0 || s->dup < 1 || s->self_loops < 0 || s->cycle_len < 0 || span < 1)
        return cl_errorf(run, "topo_sort: m, dup, self_loops, cycle_len and span must be >= 0 (dup, span >= 1)");
    s->n = n;
    s->cycle = s->cycle_len > 0;
    if (!strcmp(kind, "layered")) {
        if (n > 0 && (levels < 1 || levels > n))
            return cl_errorf(run, "topo_sort: levels = %lld must be in 1..n", levels);
        if (m > 0 && levels < 2)
            return cl_errorf(run, "topo_sort: a graph with edges needs levels >= 2");
        s->npieces = 1;
        s->pieces[0] = (topo_piece){0, n, m, n ? levels : 1, span, 1};
    } else if (!strcmp(kind, "chain")) {
        s->npieces = 1;
        s->pieces[0] = (topo_piece){0, n, n > 0 ? n - 1 : 0, n ? n : 1, 1, 0};
    } else if (!strcmp(kind, "components")) {
        /* half the nodes layered (levels deep), an eighth a chain, a quarter in 3 wide
         * levels, the rest isolated; edges split between the two layered parts */
        if (n < 64)
            return cl_errorf(run, "topo_sort: graph components needs n >= 64");
        long long n0 = n / 2, n1 = n / 8, n2 = n / 4, n3 = n - n0 - n1 - n2;
        long long m0 = m * 3 / 4, m2 = m - m0;
        if (levels < 2 || levels > n0)
            return cl_errorf(run, "topo_sort: levels = %lld must be in 2..n/2", levels);
        s->npieces = 4;
        s->pieces[0] = (topo_piece){0, n0, m0, levels, span, 1};
        s->pieces[1] = (topo_piece){n0, n1, n1 - 1, n1, 1, 0};
        s->pieces[2] = (topo_piece){n0 + n1, n2, m2, 3, 2, 1};
        s->pieces[3] = (topo_piece){n0 + n1 + n2, n3, 0, 1, 1, 0};
    } else {
        return cl_errorf(run, "topo_sort: unknown graph '%s' (layered, chain, components)", kind);
    }
    if (s->cycle && (s->pieces[0].levels < s->cycle_len || n == 0))
        return cl_errorf(run, "topo_sort: cycle_len %lld needs at least as many levels", s->cycle_len);
    if (s->self_loops + s->cycle_len > TOPO_MAX_EXTRA)
        return cl_errorf(run, "topo_sort: at most %d self loops and cycle edges", TOPO_MAX_EXTRA);
    if (s->self_loops > 0 && n == 0)
        return cl_errorf(run, "topo_sort: self loops need n >= 1");
    long long base = 0;
    for (int i = 0; i < s->npieces; i++)
        base += s->pieces[i].m;
    double total = (double)base * (double)s->dup + (double)(s->self_loops + s->cycle_len);
    if (total > (double)(INT_MAX - 1))
        return cl_errorf(run, "topo_sort: %.0f edges do not fit a 32-bit CSR", total);
    s->m = (long long)total;
    return 0;
}

static int topo_setup(cl_run *run, const cl_case *c, void *state)
{
    topo_state *s = state;
    if (read_params(run, c, s))
        return -1;
    size_t n = (size_t)s->n, m = (size_t)s->m;
    s->row_ptr = cl_host_alloc(run, (n + 1) * sizeof(int));
    s->col = cl_host_alloc(run, (m ? m : 1) * sizeof(int));
    s->rank_of = cl_host_alloc(run, (n ? n : 1) * sizeof(int));
    s->id_of = cl_host_alloc(run, (n ? n : 1) * sizeof(int));
    s->order_h = cl_host_alloc(run, (n ? n : 1) * sizeof(int));
    s->pos = cl_host_alloc(run, (n ? n : 1) * sizeof(int));
    s->indeg = cl_host_alloc(run, (n ? n : 1) * sizeof(int));
    s->queue = cl_host_alloc(run, (n ? n : 1) * sizeof(int));
    if (!s->row_ptr || !s->col || !s->rank_of || !s->id_of || !s->order_h || !s->pos || !s->indeg || !s->queue)
        return cl_errorf(run, "topo_sort: out of host memory for %zu nodes, %zu edges", n, m);
    /* order has one slot even when n = 0, so a write to order[0] is seen (see verify) */
    s->order_bytes = (n ? n : 1) * sizeof(int);
    s->d_row_ptr = cl_alloc_in(run, (n + 1) * sizeof(int), "row_ptr");
    s->d_col = cl_alloc_in(run, (m ? m : 1) * sizeof(int), "col");
    s->d_order = cl_alloc_out(run, s->order_bytes, "order");
    s->d_status = cl_alloc_out(run, sizeof(int), "status");
    if (!s->d_row_ptr || !s->d_col || !s->d_order || !s->d_status)
        return -1;
    s->is_bench = cl_case_is_bench(c);
    /* must move: row_ptr and col read once, order and status written once */
    cl_set_work(run, (double)(n + 1 + m + n + 1) * sizeof(int), 0.0);
    cl_set_items(run, (double)m, "edges");
    cl_set_shape(run, "%lld nodes, %lld edges, %s", s->n, s->m, cl_param_str_or(c, "graph", "layered"));
    return 0;
}

static int topo_generate(cl_run *run, void *state, uint64_t seed)
{
    topo_state *s = state;
    s->seed = seed;
    if (s->n == 0) {
        s->row_ptr[0] = 0;
        return cl_upload(run, s->d_row_ptr, s->row_ptr, sizeof(int));
    }
    build_graph(s, seed);
    if (cl_upload(run, s->d_row_ptr, s->row_ptr, (size_t)(s->n + 1) * sizeof(int)))
        return -1;
    return s->m ? cl_upload(run, s->d_col, s->col, (size_t)s->m * sizeof(int)) : 0;
}

static int topo_args(cl_run *run, void *state, cl_args *a)
{
    topo_state *s = state;
    cl_arg_ptr(run, a, s->d_row_ptr);
    cl_arg_ptr(run, a, s->d_col);
    cl_arg_i32(a, (int)s->n);
    cl_arg_i32(a, (int)s->m);
    cl_arg_ptr(run, a, s->d_order);
    cl_arg_ptr(run, a, s->d_status);
    return 0;
}

/* Median CPU Kahn time so far, into the case's shape text. */
static void report_cpu(cl_run *run, topo_state *s, double ms)
{
    if (s->ncpu < TOPO_TIMED_CPU)
        s->cpu_ms[s->ncpu++] = ms;
    double sorted[TOPO_TIMED_CPU];
    memcpy(sorted, s->cpu_ms, (size_t)s->ncpu * sizeof(double));
    qsort(sorted, (size_t)s->ncpu, sizeof(double), cmp_double);
    double med = sorted[s->ncpu / 2];
    cl_set_shape(run, "%lld nodes, %lld edges; CPU Kahn (1 thread): %.2f ms median of %d = %.3f Gedges/s",
                 s->n, s->m, med, s->ncpu, (double)s->m / (med * 1e6));
}

/* Kahn's order of the graph into s->queue (what a mismatch shows as an expected value);
 * the number of nodes it placed. A bench graph's run is timed (the first TOPO_TIMED_CPU). */
static long long run_kahn(cl_run *run, topo_state *s)
{
    double t0 = now_ms();
    long long placed = cpu_kahn(s->n, s->row_ptr, s->col, s->indeg, s->queue);
    if (s->is_bench && s->ncpu < TOPO_TIMED_CPU)
        report_cpu(run, s, now_ms() - t0);
    s->have_kahn = 1;
    return placed;
}

/* check_all_edges's slices of rows: the first edge of each that does not go forward in the
 * answer (bad_u -1: none). */
typedef struct edge_scan {
    const topo_state *s;
    long long bad_u[CL_PAR_MAX];
    int bad_k[CL_PAR_MAX];
} edge_scan;
static void backward_part(void *ctx, int t, long long lo, long long hi)
{
    edge_scan *e = ctx;
    const topo_state *s = e->s;
    e->bad_u[t] = -1;
    for (long long u = lo; u < hi; u++) {
        int pu = s->pos[u];
        for (int k = s->row_ptr[u]; k < s->row_ptr[u + 1]; k++)
            if (pu >= s->pos[s->col[k]]) {
                e->bad_u[t] = u;
                e->bad_k[t] = k;
                return;
            }
    }
}

/* The edge with the lowest source id that does not go forward in the answer (pos: each
 * node's slot), found on every core: 1 and *u -> *v, or 0 when every edge goes forward. */
static int first_backward_edge(const topo_state *s, long long *u, int *v)
{
    edge_scan scan = {.s = s};
    int nt = cl_par_for(s->n, (double)s->m * 4, CL_PAR_MAX, backward_part, &scan);
    for (int t = 0; t < nt; t++)
        if (scan.bad_u[t] >= 0) {
            *u = scan.bad_u[t];
            *v = s->col[scan.bad_k[t]];
            return 1;
        }
    return 0;
}

/* Every edge, on every core: 0 all go forward, 1 the first that does not is reported. */
static int check_all_edges(cl_run *run, const topo_state *s)
{
    long long u;
    int v;
    if (!first_backward_edge(s, &u, &v))
        return 0;
    return cl_failf(run, "edge %lld -> %d goes backward: node %lld is at order[%d], node %d at order[%d]", u, v, u,
                    s->pos[u], v, s->pos[v]);
}

/* is_permutation's three passes over order (pos[v] = its slot). A repeated node's slots
 * race to write pos[v]; whichever wins, the other slot sees pos[v] != itself. */
typedef struct perm_scan {
    topo_state *s;
    int pass;
    int bad[CL_PAR_MAX];
} perm_scan;
static void perm_part(void *ctx, int t, long long lo, long long hi)
{
    perm_scan *p = ctx;
    topo_state *s = p->s;
    int n = (int)s->n, bad = 0;
    if (p->pass == 0)
        for (long long v = lo; v < hi; v++)
            s->pos[v] = -1;
    else if (p->pass == 1)
        for (long long i = lo; i < hi; i++) {
            int v = s->order_h[i];
            if (v < 0 || v >= n)
                bad = 1;
            else
                __atomic_store_n(&s->pos[v], (int)i, __ATOMIC_RELAXED);
        }
    else
        for (long long i = lo; i < hi && !bad; i++)
            bad = s->pos[s->order_h[i]] != (int)i;
    p->bad[t] = bad;
}

/* Whether order_h is a permutation of 0..n-1; if so, pos holds each node's slot. */
static int is_permutation(topo_state *s)
{
    perm_scan p = {.s = s};
    for (p.pass = 0; p.pass < 3; p.pass++) {
        int nt = cl_par_for(s->n, (double)s->n * 10, CL_PAR_MAX, perm_part, &p);
        for (int t = 0; t < nt; t++)
            if (p.bad[t])
                return 0;
    }
    return 1;
}

static int report_not_permutation(cl_run *run, topo_state *s);

/* An answer that calls a graph with a cycle acyclic: the edge its order breaks, as a clause
 * for the message (every order of such a graph breaks one; which one shows what the
 * solution got wrong: a node placed before all its predecessors were, say), or "" when the
 * order is not a permutation. 0, or -1 when the order could not be read. */
static int broken_edge_clause(cl_run *run, topo_state *s, char *buf, size_t cap)
{
    long long u;
    int v;
    buf[0] = '\0';
    if (cl_download(run, s->order_h, s->d_order, (size_t)s->n * sizeof(int)))
        return -1;
    if (!is_permutation(s) || !first_backward_edge(s, &u, &v))
        return 0;
    if (u == v)
        snprintf(buf, cap, "; in order, edge %lld -> %d goes backward (a self-loop: no order puts it forward)", u,
                 v);
    else
        snprintf(buf, cap,
                 "; in order, edge %lld -> %d goes backward: node %lld is at order[%d], node %d at order[%d]", u,
                 v, u, s->pos[u], v, s->pos[v]);
    return 0;
}

static int topo_judge(cl_run *run, topo_state *s, int full, int *cyclic_out)
{
    long long n = s->n;
    if (cl_download(run, &s->status_h, s->d_status, sizeof(int)))
        return -1;
    /* Whether the graph has a cycle: a layered graph, chain or mix without self loops or a
     * threaded cycle is acyclic by construction (every edge goes down a level); otherwise,
     * and for every full check, the CPU's Kahn decides. Its time is the bench's CPU peer,
     * taken on the first TOPO_TIMED_CPU graphs of a bench case. */
    s->have_kahn = 0;
    int known_dag = !s->cycle && s->self_loops == 0;
    long long placed = n;
    if (!known_dag || full || (s->is_bench && s->ncpu < TOPO_TIMED_CPU))
        placed = run_kahn(run, s);
    int cyclic = placed < n;
    *cyclic_out = cyclic;

    if (s->status_h != 0 && s->status_h != 1)
        return cl_mismatch(run, "*status", cyclic, s->status_h, "*status must be 0 (a DAG) or 1 (a cycle)%s",
                           s->status_h == -1 ? "; it was not written" : "");
    if (cyclic && s->status_h != 1) {
        char broken[192];
        if (broken_edge_clause(run, s, broken, sizeof broken))
            return -1;
        return cl_mismatch(run, "*status", 1, s->status_h,
                           "the graph has a cycle (the CPU's Kahn placed %lld of %lld nodes) but *status = 0%s",
                           placed, n, broken);
    }
    if (!cyclic && s->status_h != 0)
        return s->have_kahn ? cl_mismatch(run, "*status", 0, s->status_h,
                                          "the graph is acyclic (the CPU's Kahn placed all %lld nodes) but *status = 1",
                                          n)
                            : cl_mismatch(run, "*status", 0, s->status_h,
                                          "the graph is acyclic (built so: every edge goes down a level) but "
                                          "*status = 1");
    if (cyclic)
        return 0; /* order is ignored */
    if (n == 0) {
        /* nothing to write: order[0] (one guard slot) must still hold the poison */
        int slot;
        if (cl_download(run, &slot, s->d_order, sizeof(int)))
            return -1;
        if (slot != -1)
            return cl_failf(run, "n = 0 but order[0] was written (%d): there is nothing to write", slot);
        return 0;
    }

    if (cl_download(run, s->order_h, s->d_order, (size_t)n * sizeof(int)))
        return -1;
    /* a permutation of 0..n-1: on every core; where it is not, one core finds the first
     * slot at fault and says why */
    if (!is_permutation(s))
        return report_not_permutation(run, s);
    /* every edge forward, after every call */
    return check_all_edges(run, s);
}

/* The first slot of order that is not a node id, or repeats one, reported (with Kahn's
 * order beside it): one core, in order. */
static int report_not_permutation(cl_run *run, topo_state *s)
{
    long long n = s->n;
    for (long long v = 0; v < n; v++)
        s->pos[v] = -1;
    for (long long i = 0; i < n; i++) {
        int v = s->order_h[i];
        char where[64];
        snprintf(where, sizeof where, "order[%lld]", i);
        if ((v < 0 || v >= n || s->pos[v] >= 0) && !s->have_kahn)
            run_kahn(run, s); /* a valid order to show next to the wrong one */
        if (v < 0 || v >= n)
            return cl_mismatch(run, where, s->queue[i], v, "not a node id (n = %lld)%s", n,
                               v == -1 ? "; was it written?" : "");
        if (s->pos[v] >= 0)
            return cl_mismatch(run, where, s->queue[i], v, "node %d appears twice (also at order[%d])", v,
                               s->pos[v]);
        s->pos[v] = (int)i;
    }
    return cl_failf(run, "order is not a permutation of 0..%lld", n - 1); /* not reached */
}

/* The first problem in words, and the rule the answer breaks with its smallest
 * counterexample (mismatch.h). */
static int topo_verify(cl_run *run, void *state, int full)
{
    topo_state *s = state;
    int cyclic = 0;
    int rc = topo_judge(run, s, full, &cyclic);
    if (rc != 1 || (s->status_h != 0 && s->status_h != 1))
        return rc;
    if (s->n > 0 && !cyclic && s->status_h == 0 &&
        cl_download(run, s->order_h, s->d_order, (size_t)s->n * sizeof(int)))
        return -1;
    cl_mm_rule rule;
    cl_mismatch_topo((int)s->n, s->row_ptr, s->col, cyclic, s->order_h, s->status_h, &rule);
    cl_report_rule(run, &rule);
    return rc;
}

const cl_checker cl_checker_topo_sort = {"topo_sort", sizeof(topo_state), topo_setup, topo_generate,
                                         topo_args, topo_verify, NULL};
