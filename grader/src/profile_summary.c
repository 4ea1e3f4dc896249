/* profile_summary.c: an ncu report turned into a few findings in the lab's terms, each
 * with one thing to try. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/profile.h"

const char CL_NCU_METRICS[] =
    "gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__bytes.sum.per_second,"
    "dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,"
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,"
    "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,"
    "sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,"
    "launch__occupancy_limit_blocks,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,"
    "launch__occupancy_limit_warps,launch__registers_per_thread,launch__block_size,launch__grid_size,"
    "launch__waves_per_multiprocessor,"
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,"
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"
    "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio";

#define STALL_PREFIX "smsp__average_warps_issue_stalled_"
#define STALL_SUFFIX "_per_issue_active.ratio"

/* What a stall reason means and what to try. */
static const struct {
    const char *reason, *means, *try_;
} STALLS[] = {
    {"long_scoreboard", "waiting for global or local memory",
     "keep more loads in flight: several independent elements per thread, vector loads, or cp.async into shared memory"},
    {"barrier", "waiting at __syncthreads", "do more work between barriers, or use warp shuffles where a block barrier is not needed"},
    {"short_scoreboard", "waiting for shared memory or special-function results",
     "remove bank conflicts and back-to-back dependent shared-memory loads"},
    {"mio_throttle", "the shared-memory instruction queue is full", "use wider shared-memory accesses (float4) and fewer of them"},
    {"lg_throttle", "too many global memory instructions queued", "use vector loads (float4) so fewer instructions move the same bytes"},
    {"math_pipe_throttle", "an arithmetic pipe is saturated", "this is fine for compute-bound code; otherwise use cheaper math or another pipe"},
    {"wait", "fixed-latency dependencies between instructions", "give each thread independent work (unroll, more accumulators)"},
    {"not_selected", "eligible warps waiting their turn", "nothing to fix: the scheduler has enough work"},
    {"selected", "issuing", "nothing to fix"},
    {"membar", "memory fences", "avoid __threadfence where a barrier or a stream order suffices"},
    {"branch_resolving", "branch targets being resolved", "reduce divergent branches in the hot loop"},
    {"no_instruction", "instruction cache misses", "unroll less: the hot loop should fit the instruction cache"},
    {"drain", "stores draining at exit", "nothing much: it is the end of the kernel"},
    {"imc_miss", "constant cache misses", "pass per-thread-varying values as arguments or in shared memory, not __constant__"},
    {"tex_throttle", "the texture/L1 pipe is full", "fewer, wider memory instructions"},
    {"dispatch_stall", "the dispatcher stalled", "rare: check for register bank conflicts in very tight loops"},
    {"sleeping", "warps sleeping (__nanosleep)", "spin less"},
};

typedef struct agg {
    char name[256];
    int launches;
    const cl_ncu_kernel *first;
    double sum_time;
} agg;

/* The mean of a metric over the launches of one kernel (NAN when none has it). */
static double mean_metric(const cl_ncu_report *rep, const char *kernel, const char *metric)
{
    double s = 0;
    int n = 0;
    for (int i = 0; i < rep->nkernels; i++) {
        if (strcmp(rep->kernels[i].name, kernel)) continue;
        double v = cl_ncu_metric(&rep->kernels[i], metric);
        if (!isnan(v)) { s += v; n++; }
    }
    return n ? s / n : NAN;
}

static void set_num(json_t *o, const char *k, double v)
{
    if (!isnan(v) && isfinite(v))
        json_object_set_new(o, k, json_real(v));
}

static void finding(json_t *arr, const char *id, const char *text, const char *try_)
{
    json_array_append_new(arr, json_pack("{s:s, s:s, s:s}", "id", id, "text", text, "try", try_));
}

static double nz(double v) { return isnan(v) ? 0 : v; }

/* One kernel's numbers, as the findings need them. */
typedef struct kstats {
    const char *name;
    double bytes, gbps, of_ceiling, sm, tc;          /* DRAM traffic, its rate, SM and Tensor Core busy */
    double ach, theo;                                /* occupancy achieved and possible, % */
    const char *limiter;                             /* what limits occupancy, or NULL */
    double bank_conflicts, conflict_share;           /* shared-memory replays */
    double spr_ld, spr_st;                           /* sectors per global load and store request */
} kstats;

/* Time, DRAM traffic and rate, SM and Tensor Core utilisation. */
static void summarize_throughput(const cl_ncu_report *rep, const cl_profile_ctx *ctx, json_t *o, kstats *s)
{
    const char *k = s->name;
    double t = mean_metric(rep, k, "gpu__time_duration.sum");
    double rd = mean_metric(rep, k, "dram__bytes_read.sum"), wr = mean_metric(rep, k, "dram__bytes_write.sum");
    s->bytes = nz(rd) + nz(wr);
    double bw = mean_metric(rep, k, "dram__bytes.sum.per_second");
    if (isnan(bw) && t > 0 && s->bytes > 0) bw = s->bytes / t;
    s->gbps = bw / 1e9;
    double dram_pct = mean_metric(rep, k, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    s->sm = mean_metric(rep, k, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    s->tc = fmax(nz(mean_metric(rep, k, "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active")),
                 nz(mean_metric(rep, k, "sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active")));
    set_num(o, "time_us", t * 1e6);
    set_num(o, "dram_bytes", s->bytes);
    set_num(o, "dram_gbps", s->gbps);
    set_num(o, "dram_pct_of_peak", dram_pct);
    s->of_ceiling = ctx->ceiling_gbps > 0 ? s->gbps / ctx->ceiling_gbps : NAN;
    set_num(o, "dram_fraction_of_ceiling", s->of_ceiling);
    set_num(o, "sm_pct", s->sm);
    set_num(o, "tensor_pct", s->tc);
}

/* Occupancy and its limiter: the smallest per-SM block limit. */
static void summarize_occupancy(const cl_ncu_report *rep, json_t *o, kstats *s)
{
    const char *k = s->name;
    s->ach = mean_metric(rep, k, "sm__warps_active.avg.pct_of_peak_sustained_active");
    s->theo = mean_metric(rep, k, "sm__maximum_warps_per_active_cycle_pct");
    static const char *const lim_names[] = {"registers", "shared memory", "warps (block size)", "blocks per SM"};
    static const char *const lim_metrics[] = {"launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
                                              "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks"};
    s->limiter = NULL;
    double best = INFINITY;
    for (int i = 0; i < 4; i++) {
        double v = mean_metric(rep, k, lim_metrics[i]);
        if (!isnan(v) && v < best) { best = v; s->limiter = lim_names[i]; }
    }
    json_t *occ = json_object();
    set_num(occ, "achieved_pct", s->ach);
    set_num(occ, "theoretical_pct", s->theo);
    if (s->limiter) json_object_set_new(occ, "limiter", json_string(s->limiter));
    set_num(occ, "registers_per_thread", mean_metric(rep, k, "launch__registers_per_thread"));
    set_num(occ, "block_size", mean_metric(rep, k, "launch__block_size"));
    set_num(occ, "grid_size", mean_metric(rep, k, "launch__grid_size"));
    set_num(occ, "waves_per_sm", mean_metric(rep, k, "launch__waves_per_multiprocessor"));
    json_object_set_new(o, "occupancy", occ);
}

/* How memory is accessed: shared-memory bank conflicts, sectors per global request. */
static void summarize_access(const cl_ncu_report *rep, json_t *o, kstats *s)
{
    const char *k = s->name;
    double bc = nz(mean_metric(rep, k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")) +
                nz(mean_metric(rep, k, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"));
    double wf = nz(mean_metric(rep, k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")) +
                nz(mean_metric(rep, k, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"));
    json_t *banks = json_object();
    set_num(banks, "conflicts", bc);
    set_num(banks, "wavefronts", wf);
    s->bank_conflicts = bc;
    s->conflict_share = wf > 0 ? bc / wf : 0;
    set_num(banks, "conflict_share", s->conflict_share);
    json_object_set_new(o, "bank_conflicts", banks);

    double sld = mean_metric(rep, k, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    double rld = mean_metric(rep, k, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    double sst = mean_metric(rep, k, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    double rst = mean_metric(rep, k, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    s->spr_ld = rld > 0 ? sld / rld : NAN;
    s->spr_st = rst > 0 ? sst / rst : NAN;
    json_t *spr = json_object();
    set_num(spr, "load", s->spr_ld);
    set_num(spr, "store", s->spr_st);
    json_object_set_new(o, "sectors_per_request", spr);
}

/* Whether metric n is a stall reason (STALL_PREFIX reason STALL_SUFFIX); the reason into reason. */
static int stall_reason(const char *n, char *reason, size_t size)
{
    size_t ln = strlen(n);
    if (strncmp(n, STALL_PREFIX, strlen(STALL_PREFIX)) || ln < strlen(STALL_SUFFIX) ||
        strcmp(n + ln - strlen(STALL_SUFFIX), STALL_SUFFIX) || strstr(n, "not_issued"))
        return 0;
    snprintf(reason, size, "%.*s", (int)(ln - strlen(STALL_PREFIX) - strlen(STALL_SUFFIX)), n + strlen(STALL_PREFIX));
    return 1;
}

/* The three largest stall reasons ("selected" is issuing, not a stall), largest first. */
static json_t *top_stalls(const cl_ncu_report *rep, const char *k, const cl_ncu_kernel *f)
{
    json_t *stalls = json_array();
    int used[256] = {0};
    for (int round = 0; round < 3; round++) {
        int pick = -1;
        double pv = 0;
        char reason[96];
        for (int m = 0; m < f->nmetrics && m < 256; m++) {
            if (used[m] || !stall_reason(f->names[m], reason, sizeof reason) || !strcmp(reason, "selected"))
                continue;
            double v = mean_metric(rep, k, f->names[m]);
            if (!isnan(v) && v > pv) { pv = v; pick = m; }
        }
        if (pick < 0) break;
        used[pick] = 1;
        stall_reason(f->names[pick], reason, sizeof reason);
        json_array_append_new(stalls, json_pack("{s:s, s:f}", "reason", reason, "per_issue", pv));
    }
    return stalls;
}

/* Findings about memory: how close to the bandwidth ceiling, extra traffic, coalescing,
 * bank conflicts. */
static void memory_findings(const kstats *s, const cl_profile_ctx *ctx, json_t *findings)
{
    const char *k = s->name;
    char text[512];
    if (!isnan(s->of_ceiling)) {
        if (s->of_ceiling >= 0.8) {
            snprintf(text, sizeof text, "%s: DRAM at %.0f GB/s, %.0f%% of this GPU's copy ceiling (%.0f GB/s): memory-bound and near the limit.",
                     k, s->gbps, 100 * s->of_ceiling, ctx->ceiling_gbps);
            finding(findings, "bandwidth_near_ceiling", text, "only moving fewer bytes helps now: fuse passes, read each input once, store narrower types");
        } else if (nz(s->sm) < 60) {
            snprintf(text, sizeof text, "%s: DRAM at %.0f GB/s (%.0f%% of the %.0f GB/s ceiling) and SMs %.0f%% busy: neither is saturated, so the kernel is latency-bound.",
                     k, s->gbps, 100 * s->of_ceiling, ctx->ceiling_gbps, nz(s->sm));
            finding(findings, "latency_bound", text, "put more bytes in flight: several elements per thread, 16-byte vector loads, enough blocks to fill every SM");
        }
    }
    if (ctx->required_bytes > 0 && s->bytes > 1.25 * ctx->required_bytes) {
        snprintf(text, sizeof text, "%s moves %.2fx the bytes %s must move (%.3g MB of DRAM traffic for %.3g MB).", k,
                 s->bytes / ctx->required_bytes, ctx->lab, s->bytes / 1e6, ctx->required_bytes / 1e6);
        finding(findings, "extra_traffic", text, "read each element once: keep reused data in shared memory or registers, and fuse separate passes");
    }
    if (!isnan(s->spr_ld) && s->spr_ld > 16.5) {
        snprintf(text, sizeof text, "%s: %.1f sectors per global load request (32 threads reading consecutive 4-byte words need 4; 16-byte vectors need 16): the loads are not coalesced.",
                 k, s->spr_ld);
        finding(findings, "uncoalesced_loads", text, "make consecutive threads read consecutive addresses (index with threadIdx.x in the fastest-moving dimension), or stage through shared memory");
    }
    if (!isnan(s->spr_st) && s->spr_st > 16.5) {
        snprintf(text, sizeof text, "%s: %.1f sectors per global store request: the stores are not coalesced.", k, s->spr_st);
        finding(findings, "uncoalesced_stores", text, "write through a shared-memory tile so each warp stores a contiguous row");
    }
    if (s->conflict_share > 0.1) {
        snprintf(text, sizeof text, "%s: %.0f%% of shared-memory wavefronts are bank-conflict replays (%.3g conflicts).", k,
                 100 * s->conflict_share, s->bank_conflicts);
        finding(findings, "bank_conflicts", text, "pad the shared array by one element per row, or swizzle the column index with the row (XOR)");
    }
}

/* Findings about the SMs: occupancy, idle Tensor Cores, the largest stall. */
static void sm_findings(const kstats *s, const cl_ncu_report *rep, const cl_profile_ctx *ctx, json_t *stalls,
                        json_t *findings)
{
    const char *k = s->name;
    char text[512], try_[512];
    if (!isnan(s->theo) && s->theo < 50 && s->limiter) {
        snprintf(text, sizeof text, "%s: theoretical occupancy %.0f%%, limited by %s.", k, s->theo, s->limiter);
        const char *t = !strcmp(s->limiter, "registers") ? "cap registers with __launch_bounds__(threads, blocks_per_sm) or keep fewer values live"
                        : !strcmp(s->limiter, "shared memory") ? "use less shared memory per block (smaller tiles, fewer stages) or more threads per tile"
                        : !strcmp(s->limiter, "blocks per SM") ? "use bigger blocks (at least 128 threads)"
                                                               : "use fewer threads per block, or more work per thread";
        finding(findings, "occupancy_limit", text, t);
    } else if (!isnan(s->ach) && !isnan(s->theo) && s->theo > 0 && s->ach < 0.6 * s->theo) {
        snprintf(text, sizeof text, "%s: achieved occupancy %.0f%% of %.0f%% possible: warps finish unevenly or the grid is too small (%.0f blocks).",
                 k, s->ach, s->theo, nz(mean_metric(rep, k, "launch__grid_size")));
        finding(findings, "occupancy_achieved", text, "launch enough blocks for several waves, and balance the work per block");
    }
    if (ctx->tensor_lab && s->tc < 30) {
        snprintf(text, sizeof text, "%s: Tensor Cores busy %.0f%% of active cycles.", k, s->tc);
        finding(findings, "tensor_idle", text, s->tc < 1 ? "no Tensor Core instructions ran: use wmma/mma.sync (or wgmma on Hopper) with fp16 inputs"
                                                         : "feed them faster: bigger tiles, ldmatrix, cp.async double buffering so loads overlap the math");
    }
    if (json_array_size(stalls) > 0) {
        const char *reason = json_string_value(json_object_get(json_array_get(stalls, 0), "reason"));
        const char *means = "a stall", *t = "see Nsight Compute's warp state section";
        for (size_t i = 0; i < sizeof STALLS / sizeof *STALLS; i++)
            if (!strcmp(STALLS[i].reason, reason)) { means = STALLS[i].means; t = STALLS[i].try_; }
        snprintf(text, sizeof text, "%s: warps mostly stall on %s (%s).", k, reason, means);
        snprintf(try_, sizeof try_, "%s", t);
        finding(findings, "top_stall", text, try_);
    }
}

/* One kernel's numbers as JSON; for the kernel that takes the most time, the findings too. */
static json_t *kernel_summary(const cl_ncu_report *rep, const agg *a, const cl_profile_ctx *ctx, json_t *findings,
                              int main_kernel)
{
    kstats s = {.name = a->name};
    json_t *o = json_pack("{s:s, s:i}", "name", a->name, "launches", a->launches);
    summarize_throughput(rep, ctx, o, &s);
    summarize_occupancy(rep, o, &s);
    summarize_access(rep, o, &s);
    json_t *stalls = top_stalls(rep, a->name, a->first);
    json_object_set_new(o, "stalls", stalls);
    if (main_kernel) {
        memory_findings(&s, ctx, findings);
        sm_findings(&s, rep, ctx, stalls, findings);
    }
    return o;
}

json_t *cl_profile_summarize(const cl_ncu_report *rep, const cl_profile_ctx *ctx)
{
    agg *aggs = calloc((size_t)rep->nkernels + 1, sizeof *aggs);
    int na = 0, main_k = 0;
    for (int i = 0; i < rep->nkernels; i++) {
        int j = 0;
        while (j < na && strcmp(aggs[j].name, rep->kernels[i].name)) j++;
        if (j == na) {
            snprintf(aggs[na].name, sizeof aggs[na].name, "%s", rep->kernels[i].name);
            aggs[na++].first = &rep->kernels[i];
        }
        aggs[j].launches++;
        aggs[j].sum_time += nz(cl_ncu_metric(&rep->kernels[i], "gpu__time_duration.sum"));
    }
    for (int j = 1; j < na; j++)
        if (aggs[j].sum_time / aggs[j].launches > aggs[main_k].sum_time / aggs[main_k].launches) main_k = j;
    json_t *kernels = json_array(), *findings = json_array();
    for (int j = 0; j < na; j++)
        json_array_append_new(kernels, kernel_summary(rep, &aggs[j], ctx, findings, j == main_k));
    free(aggs);
    json_t *o = json_pack("{s:o, s:o}", "kernels", kernels, "findings", findings);
    if (ctx->bench_case) json_object_set_new(o, "case", json_string(ctx->bench_case));
    return o;
}

static double jget(const json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

void cl_profile_print(const json_t *s, FILE *f)
{
    const char *c = json_string_value(json_object_get(s, "case"));
    fprintf(f, "  profile      Nsight Compute on %s\n", c ? c : "the bench case");
    size_t i;
    json_t *k;
    json_array_foreach(json_object_get(s, "kernels"), i, k) {
        json_t *occ = json_object_get(k, "occupancy");
        fprintf(f, "    %s  x%lld  %.1f us", json_string_value(json_object_get(k, "name")),
                (long long)json_integer_value(json_object_get(k, "launches")), jget(k, "time_us"));
        double g = jget(k, "dram_gbps"), fr = jget(k, "dram_fraction_of_ceiling");
        if (!isnan(g)) fprintf(f, "  DRAM %.0f GB/s", g);
        if (!isnan(fr)) fprintf(f, " (%.0f%% of ceiling)", 100 * fr);
        if (!isnan(jget(k, "sm_pct"))) fprintf(f, "  SM %.0f%%", jget(k, "sm_pct"));
        if (jget(k, "tensor_pct") > 0) fprintf(f, "  Tensor %.0f%%", jget(k, "tensor_pct"));
        fprintf(f, "\n");
        if (!isnan(jget(occ, "achieved_pct")))
            fprintf(f, "      occupancy %.0f%% achieved / %.0f%% theoretical (limit: %s)\n", jget(occ, "achieved_pct"),
                    jget(occ, "theoretical_pct"), json_string_value(json_object_get(occ, "limiter")) ?: "?");
        json_t *st = json_object_get(k, "stalls");
        if (json_array_size(st)) {
            fprintf(f, "      top stalls");
            size_t j;
            json_t *x;
            json_array_foreach(st, j, x)
                fprintf(f, "%s %s %.1f", j ? "," : "", json_string_value(json_object_get(x, "reason")),
                        jget(x, "per_issue"));
            fprintf(f, " (cycles per issued instruction)\n");
        }
    }
    json_t *fd;
    json_array_foreach(json_object_get(s, "findings"), i, fd)
        fprintf(f, "    - %s\n      try: %s\n", json_string_value(json_object_get(fd, "text")),
                json_string_value(json_object_get(fd, "try")));
    if (json_array_size(json_object_get(s, "findings")) == 0)
        fprintf(f, "    nothing stands out.\n");
}
