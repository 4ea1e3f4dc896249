/* det_dev.cu: a standalone harness for the iou and nms labs, for the GPU machine.
 *
 * It implements the runner services of grader/checker.h (guarded buffers, NaN poisoning,
 * uploads, cudalab_scratch, case parameters), so it drives the labs' REAL checkers
 * (grader/labs/iou.c, nms.c) against a solution compiled to a shared object, exactly as
 * the engine's life cycle describes: correctness cases, then bench cases (warm-up + full
 * verify, then timed runs on fresh inputs with L2 flushed, each quick-verified). It also
 * measures the copy ceiling (cudaMemcpy D2D and a float4 copy kernel, bytes read +
 * written) in the same process, and prints a verdict with the lab's tiers.
 *
 * It exists because the lead's engine (cudalab-run) was not on main yet; once it is,
 * `cudalab submit` is the authority and this stays as a quick, dependency-free check.
 * It reads only the one-case-per-line flow style of the two labs' lab.yaml files
 * (cases, bench, tiers, tolerance, metric, ceiling), not general YAML.
 *
 *   det_dev --lab nms --labs labs --solution nms.so [--reference ref.so] [--runs N]
 *           [--seed S] [--json out.jsonl] [--label name] [--no-verify]
 * --no-verify skips the correctness cases and every check of the outputs: only for timing
 * diagnostic variants that are wrong on purpose (a store-only kernel, say).
 * Exit status: 0 when it produced a verdict (printed as "verdict: X"), 2 on usage or
 * environment errors. */
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "grader/checker.h"
}

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                 \
                    cudaGetErrorString(e_));                                              \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

extern "C" const cl_checker cl_checker_iou, cl_checker_nms;

/* ------------------------------------------------------------------ lab.yaml (subset) */

struct kv {
    std::string key, value;
};

struct cl_case {
    std::string name;
    bool bench = false;
    int runs = 30;
    std::vector<kv> params;
};

struct lab_conf {
    std::vector<cl_case> cases;
    std::vector<kv> tols;
    double tier_pass = 0, tier_good = 0, tier_excellent = 0;
    std::string metric, ceiling;
};

static std::string trim(const std::string &s)
{
    size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r\n");
    if (a == std::string::npos)
        return "";
    std::string t = s.substr(a, b - a + 1);
    if (t.size() >= 2 && (t[0] == '"' || t[0] == '\'') && t.back() == t[0])
        t = t.substr(1, t.size() - 2);
    return t;
}

/* "{a: 1, b: "x, y"}" -> pairs (commas inside quotes kept). */
static std::vector<kv> parse_flow_map(const std::string &line)
{
    std::vector<kv> out;
    size_t open = line.find('{'), close = line.rfind('}');
    if (open == std::string::npos || close == std::string::npos)
        return out;
    std::string body = line.substr(open + 1, close - open - 1), cur;
    char q = 0;
    int depth = 0;
    std::vector<std::string> parts;
    for (char ch : body) {
        if (q) {
            if (ch == q) q = 0;
        } else if (ch == '"' || ch == '\'') {
            q = ch;
        } else if (ch == '{') {
            depth++;
        } else if (ch == '}') {
            depth--;
        } else if (ch == ',' && depth == 0) {
            parts.push_back(cur);
            cur.clear();
            continue;
        }
        cur += ch;
    }
    if (!trim(cur).empty())
        parts.push_back(cur);
    for (auto &p : parts) {
        size_t colon = p.find(':');
        if (colon == std::string::npos)
            continue;
        out.push_back({trim(p.substr(0, colon)), trim(p.substr(colon + 1))});
    }
    return out;
}

static const char *kv_get(const std::vector<kv> &m, const char *key)
{
    for (auto &p : m)
        if (p.key == key)
            return p.value.c_str();
    return nullptr;
}

static int load_lab(const std::string &path, lab_conf *lab)
{
    FILE *f = fopen(path.c_str(), "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path.c_str());
        return -1;
    }
    char buf[4096];
    std::string section;
    while (fgets(buf, sizeof buf, f)) {
        std::string line(buf);
        if (line.empty() || line[0] == '#')
            continue;
        if (line[0] != ' ' && line[0] != '-') { /* top-level key */
            size_t colon = line.find(':');
            if (colon == std::string::npos)
                continue;
            section = trim(line.substr(0, colon));
            std::string rest = trim(line.substr(colon + 1));
            size_t hash = rest.find(" #");
            if (hash != std::string::npos)
                rest = trim(rest.substr(0, hash));
            if (section == "metric") lab->metric = rest;
            if (section == "ceiling") lab->ceiling = rest;
            if (section == "tiers") {
                auto m = parse_flow_map(rest);
                lab->tier_pass = atof(kv_get(m, "pass") ? kv_get(m, "pass") : "0");
                lab->tier_good = atof(kv_get(m, "good") ? kv_get(m, "good") : "0");
                lab->tier_excellent = atof(kv_get(m, "excellent") ? kv_get(m, "excellent") : "0");
            }
            continue;
        }
        std::string t = trim(line);
        if ((section == "cases" || section == "bench") && t.rfind("- {", 0) == 0) {
            cl_case c;
            c.bench = section == "bench";
            for (auto &p : parse_flow_map(t)) {
                if (p.key == "name") c.name = p.value;
                else if (p.key == "runs") c.runs = atoi(p.value.c_str());
                else if (p.key != "sanitize") c.params.push_back(p);
            }
            lab->cases.push_back(c);
        } else if (section == "tolerance" && t.find('{') != std::string::npos) {
            size_t colon = t.find(':');
            auto m = parse_flow_map(t.substr(colon + 1));
            if (kv_get(m, "value"))
                lab->tols.push_back({trim(t.substr(0, colon)), kv_get(m, "value")});
        }
    }
    fclose(f);
    return 0;
}

/* ------------------------------------------------------------------ the runner state */

struct guarded {
    char *base;  /* cudaMalloc'd */
    size_t bytes;/* user bytes */
    bool out;
    std::string name;
    std::vector<char> snapshot; /* inputs: contents before the call */
};

#define GUARD 256
#define GUARD_BYTE 0xA5

struct cl_run {
    lab_conf *lab;
    std::vector<guarded> bufs;
    std::vector<void *> dev_plain, host;
    double bytes = 0, flops = 0, items = 0;
    std::string items_unit, shape, msg;
    int failed = 0;
    uint64_t seed = 1;
};

static void *g_scratch = nullptr;
static size_t g_scratch_bytes = 0;

extern "C" void *cudalab_scratch(size_t bytes)
{
    if (bytes <= g_scratch_bytes)
        return g_scratch;
    if (g_scratch)
        cudaFree(g_scratch);
    g_scratch = nullptr;
    g_scratch_bytes = 0;
    size_t want = bytes + bytes / 4;
    if (cudaMalloc(&g_scratch, want) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    g_scratch_bytes = want;
    return g_scratch;
}

/* ------------------------------------------------------------------ checker services */

extern "C" {

const char *cl_case_name(const cl_case *c) { return c->name.c_str(); }
int cl_case_is_bench(const cl_case *c) { return c->bench; }

static uint64_t name_hash(const std::string &s)
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned char ch : s)
        h = (h ^ ch) * 1099511628211ull;
    return h;
}

static uint64_t g_run_seed = 20240601;
uint64_t cl_case_seed(const cl_case *c) { return cl_mix64(g_run_seed ^ name_hash(c->name)); }

int cl_param_has(const cl_case *c, const char *key) { return kv_get(c->params, key) != nullptr; }

static int parse_num(const char *s, double *out)
{
    char *end;
    if (strchr(s, '^')) {
        double b = strtod(s, &end);
        if (*end != '^') return -1;
        double e = strtod(end + 1, &end);
        if (*end) return -1;
        *out = pow(b, e);
        return 0;
    }
    *out = strtod(s, &end);
    return *end ? -1 : 0;
}

int cl_param_f64_or(cl_run *run, const cl_case *c, const char *key, double dflt, double *out)
{
    const char *v = kv_get(c->params, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (parse_num(v, out))
        return cl_errorf(run, "case '%s': %s = '%s' is not a number", c->name.c_str(), key, v);
    return 0;
}

int cl_param_f64(cl_run *run, const cl_case *c, const char *key, double *out)
{
    if (!kv_get(c->params, key))
        return cl_errorf(run, "case '%s': missing parameter '%s'", c->name.c_str(), key);
    return cl_param_f64_or(run, c, key, 0, out);
}

int cl_param_i64_or(cl_run *run, const cl_case *c, const char *key, long long dflt, long long *out)
{
    double v;
    if (cl_param_f64_or(run, c, key, (double)dflt, &v))
        return -1;
    *out = (long long)v;
    return 0;
}

int cl_param_i64(cl_run *run, const cl_case *c, const char *key, long long *out)
{
    if (!kv_get(c->params, key))
        return cl_errorf(run, "case '%s': missing parameter '%s'", c->name.c_str(), key);
    return cl_param_i64_or(run, c, key, 0, out);
}

const char *cl_param_str_or(const cl_case *c, const char *key, const char *dflt)
{
    const char *v = kv_get(c->params, key);
    return v ? v : dflt;
}

int cl_param_size(cl_run *run, const cl_case *c, const char *key, double per_unit_bytes,
                  double fixed_bytes, long long *out)
{
    return cl_param_i64(run, c, key, out); /* unused by these labs beyond a plain number */
}

double cl_tolerance(cl_run *run, const char *key, double dflt)
{
    const char *v = kv_get(run->lab->tols, key);
    return v ? atof(v) : dflt;
}

size_t cl_mem_budget(cl_run *run)
{
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    return (size_t)(free_b * 0.6);
}

static void *alloc_guarded(cl_run *run, size_t bytes, const char *name, bool out)
{
    char *p = nullptr;
    if (cudaMalloc(&p, bytes + 2 * GUARD) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    CUDA_CHECK(cudaMemset(p, GUARD_BYTE, bytes + 2 * GUARD));
    run->bufs.push_back({p, bytes, out, name, {}});
    return p + GUARD;
}

void *cl_alloc_in(cl_run *run, size_t bytes, const char *name) { return alloc_guarded(run, bytes, name, false); }
void *cl_alloc_out(cl_run *run, size_t bytes, const char *name) { return alloc_guarded(run, bytes, name, true); }

void *cl_alloc_dev(cl_run *run, size_t bytes)
{
    void *p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    run->dev_plain.push_back(p);
    return p;
}

void *cl_host_alloc(cl_run *run, size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (p)
        run->host.push_back(p);
    return p;
}

int cl_upload(cl_run *run, void *dev, const void *host, size_t bytes)
{
    if (!bytes)
        return 0;
    cudaError_t e = cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? 0 : cl_errorf(run, "upload: %s", cudaGetErrorString(e));
}

int cl_download(cl_run *run, void *host, const void *dev, size_t bytes)
{
    if (!bytes)
        return 0;
    cudaError_t e = cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : cl_errorf(run, "download: %s", cudaGetErrorString(e));
}

int cl_fill(cl_run *run, void *dev, size_t count, cl_dtype t, const cl_gen *g)
{
    return cl_errorf(run, "cl_fill is not implemented in det_dev (the det labs upload)");
}

void cl_set_work(cl_run *run, double bytes, double flops)
{
    run->bytes = bytes;
    run->flops = flops;
}

void cl_set_items(cl_run *run, double items, const char *unit)
{
    run->items = items;
    run->items_unit = unit;
}

void cl_set_shape(cl_run *run, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    run->shape = buf;
}

static void set_msg(cl_run *run, const char *fmt, va_list ap)
{
    char buf[2048];
    vsnprintf(buf, sizeof buf, fmt, ap);
    if (run->msg.empty())
        run->msg = buf;
}

int cl_mismatch(cl_run *run, const char *where, double expected, double got, const char *fmt, ...)
{
    char head[512];
    snprintf(head, sizeof head, "%s: expected %.9g, got %.9g: ", where, expected, got);
    char tail[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof tail, fmt, ap);
    va_end(ap);
    if (run->msg.empty())
        run->msg = std::string(head) + tail;
    run->failed = 1;
    return 1;
}

int cl_failf(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_msg(run, fmt, ap);
    va_end(ap);
    run->failed = 1;
    return 1;
}

int cl_errorf(cl_run *run, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_msg(run, fmt, ap);
    va_end(ap);
    return -1;
}

int cl_close(double got, double expected, double abs_tol, double rel_tol)
{
    if (std::isnan(got) || std::isnan(expected))
        return 0;
    if (std::isinf(expected) || std::isinf(got))
        return got == expected;
    return fabs(got - expected) <= abs_tol + rel_tol * fabs(expected);
}

uint64_t cl_sample_index(uint64_t seed, uint64_t k, uint64_t n)
{
    return n ? cl_rand64(seed, k, 0) % n : 0;
}

} /* extern "C" */

/* ------------------------------------------------------------------ engine steps */

static void free_case(cl_run *run)
{
    for (auto &b : run->bufs)
        cudaFree(b.base);
    for (auto p : run->dev_plain)
        cudaFree(p);
    for (auto p : run->host)
        free(p);
    run->bufs.clear();
    run->dev_plain.clear();
    run->host.clear();
}

static void poison(cl_run *run)
{
    for (auto &b : run->bufs)
        if (b.out)
            CUDA_CHECK(cudaMemset(b.base + GUARD, 0xFF, b.bytes));
}

static void snapshot_inputs(cl_run *run)
{
    for (auto &b : run->bufs)
        if (!b.out) {
            b.snapshot.resize(b.bytes);
            if (b.bytes)
                CUDA_CHECK(cudaMemcpy(b.snapshot.data(), b.base + GUARD, b.bytes, cudaMemcpyDeviceToHost));
        }
}

/* 0 ok; 1 a guard was overwritten or an input modified (message set). */
static int check_guards(cl_run *run, bool inputs_too)
{
    std::vector<unsigned char> g(GUARD);
    for (auto &b : run->bufs) {
        for (int side = 0; side < 2; side++) {
            char *p = side ? b.base + GUARD + b.bytes : b.base;
            CUDA_CHECK(cudaMemcpy(g.data(), p, GUARD, cudaMemcpyDeviceToHost));
            for (int k = 0; k < GUARD; k++)
                if (g[k] != GUARD_BYTE) {
                    char m[256];
                    snprintf(m, sizeof m, "write %s buffer '%s' (%zu bytes), %d bytes %s it",
                             side ? "past the end of" : "before the start of", b.name.c_str(),
                             b.bytes, side ? k + 1 : GUARD - k, side ? "after" : "before");
                    run->msg = m;
                    return 1;
                }
        }
        if (inputs_too && !b.out && b.bytes) {
            std::vector<char> now(b.bytes);
            CUDA_CHECK(cudaMemcpy(now.data(), b.base + GUARD, b.bytes, cudaMemcpyDeviceToHost));
            if (memcmp(now.data(), b.snapshot.data(), b.bytes)) {
                run->msg = "input buffer '" + b.name + "' was modified";
                return 1;
            }
        }
    }
    return 0;
}

static std::string cuda_state()
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    return e == cudaSuccess ? "" : cudaGetErrorString(e);
}

static char *g_flush = nullptr;
static size_t g_flush_bytes = 0;

static void flush_l2(cudaStream_t s)
{
    CUDA_CHECK(cudaMemsetAsync(g_flush, (int)(rand() & 0xFF), g_flush_bytes, s));
}

__global__ void copy_kernel(const float4 *__restrict__ in, float4 *__restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = in[i];
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

/* Copy ceiling in GB/s (bytes read + written), best of cudaMemcpy and a float4 kernel. */
static double measure_copy(int sms)
{
    size_t bytes = (size_t)1 << 30;
    char *a, *b;
    CUDA_CHECK(cudaMalloc(&a, bytes));
    CUDA_CHECK(cudaMalloc(&b, bytes));
    CUDA_CHECK(cudaMemset(a, 1, bytes));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    double best = 0;
    for (int variant = 0; variant < 2; variant++) {
        std::vector<double> ms;
        for (int r = 0; r < 23; r++) {
            CUDA_CHECK(cudaEventRecord(e0));
            if (variant == 0)
                CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
            else {
                copy_kernel<<<sms * 8, 512>>>((const float4 *)a, (float4 *)b, bytes / 16);
                CUDA_CHECK(cudaGetLastError());
            }
            CUDA_CHECK(cudaEventRecord(e1));
            CUDA_CHECK(cudaEventSynchronize(e1));
            float t;
            CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
            if (r >= 3)
                ms.push_back(t);
        }
        double gbps = 2.0 * bytes / (median(ms) * 1e-3) / 1e9;
        printf("copy ceiling (%s): %.0f GB/s\n", variant ? "float4 kernel" : "cudaMemcpy D2D", gbps);
        best = std::max(best, gbps);
    }
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    return best;
}

struct solution {
    void *dl = nullptr;
    const void *entry = nullptr;
};

static int load_solution(const char *path, const char *symbol, solution *s, std::string *err)
{
    s->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!s->dl) {
        *err = dlerror();
        return -1;
    }
    s->entry = dlsym(s->dl, symbol);
    if (!s->entry) {
        *err = std::string("no symbol ") + symbol;
        return -1;
    }
    return 0;
}

/* One correctness case: "" when it passed, else the verdict (message in run->msg). */
static std::string run_correctness(const cl_checker *ck, cl_run *run, cl_case *c, const solution &sol,
                                   cudaStream_t stream, std::vector<char> &state)
{
    std::fill(state.begin(), state.end(), 0);
    run->msg.clear();
    run->failed = 0;
    if (ck->setup(run, c, state.data()))
        return "checker_error";
    if (ck->generate(run, state.data(), cl_case_seed(c)))
        return "checker_error";
    snapshot_inputs(run);
    poison(run);
    CUDA_CHECK(cudaDeviceSynchronize());
    ck->launch(state.data(), sol.entry, stream);
    std::string e = cuda_state();
    if (!e.empty()) {
        run->msg = e;
        return "cuda_error";
    }
    if (check_guards(run, true))
        return "out_of_bounds";
    int v = ck->verify(run, state.data(), 1);
    if (v < 0)
        return "checker_error";
    return v ? "wrong" : "";
}

/* One bench case: median ms over `runs` timed calls; "" or a verdict. */
static bool g_no_verify = false;

static std::string run_bench(const cl_checker *ck, cl_run *run, cl_case *c, const solution &sol,
                             cudaStream_t stream, std::vector<char> &state, int runs, double *med_ms)
{
    std::fill(state.begin(), state.end(), 0);
    run->msg.clear();
    run->failed = 0;
    if (ck->setup(run, c, state.data()))
        return "checker_error";
    uint64_t seed0 = cl_case_seed(c);
    if (ck->generate(run, state.data(), seed0))
        return "checker_error";
    poison(run);
    CUDA_CHECK(cudaDeviceSynchronize());
    ck->launch(state.data(), sol.entry, stream); /* warm-up, untimed */
    std::string e = cuda_state();
    if (!e.empty()) {
        run->msg = e;
        return "cuda_error";
    }
    int v = g_no_verify ? 0 : ck->verify(run, state.data(), 1);
    if (v)
        return v < 0 ? "checker_error" : "wrong";
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    std::vector<double> ms;
    for (int r = 0; r < runs; r++) {
        if (ck->generate(run, state.data(), cl_mix64(seed0 + 1 + (uint64_t)r)))
            return "checker_error";
        poison(run);
        flush_l2(stream);
        CUDA_CHECK(cudaEventRecord(e0, stream));
        ck->launch(state.data(), sol.entry, stream);
        CUDA_CHECK(cudaEventRecord(e1, stream));
        e = cuda_state();
        if (!e.empty()) {
            run->msg = e;
            return "cuda_error";
        }
        float t;
        CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
        if (check_guards(run, false))
            return "out_of_bounds";
        v = g_no_verify ? 0 : ck->verify(run, state.data(), 0);
        if (v)
            return v < 0 ? "checker_error" : "wrong";
    }
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    *med_ms = median(ms);
    return "";
}

int main(int argc, char **argv)
{
    const char *labname = nullptr, *labs = "labs", *sol_path = nullptr, *ref_path = nullptr;
    const char *json = nullptr, *label = nullptr;
    int runs_override = 0;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : nullptr;
        if (a == "--lab" && next) labname = argv[++i];
        else if (a == "--labs" && next) labs = argv[++i];
        else if (a == "--solution" && next) sol_path = argv[++i];
        else if (a == "--reference" && next) ref_path = argv[++i];
        else if (a == "--runs" && next) runs_override = atoi(argv[++i]);
        else if (a == "--seed" && next) g_run_seed = strtoull(argv[++i], nullptr, 0);
        else if (a == "--json" && next) json = argv[++i];
        else if (a == "--label" && next) label = argv[++i];
        else if (a == "--no-verify") g_no_verify = true;
        else {
            fprintf(stderr, "usage: det_dev --lab iou|nms --solution x.so [--labs dir] "
                            "[--reference ref.so] [--runs N] [--seed S] [--json f] [--label l]\n");
            return 2;
        }
    }
    if (!labname || !sol_path) {
        fprintf(stderr, "det_dev: --lab and --solution are required\n");
        return 2;
    }
    const cl_checker *ck = !strcmp(labname, "iou") ? &cl_checker_iou
                         : !strcmp(labname, "nms") ? &cl_checker_nms : nullptr;
    if (!ck) {
        fprintf(stderr, "det_dev: unknown lab %s\n", labname);
        return 2;
    }
    const char *entry = !strcmp(labname, "iou") ? "box_iou" : "nms";
    lab_conf lab;
    if (load_lab(std::string(labs) + "/" + labname + "/lab.yaml", &lab))
        return 2;
    if (!label)
        label = sol_path;

    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs, L2 %d MB; run seed %llu\n", prop.name, prop.multiProcessorCount,
           prop.l2CacheSize >> 20, (unsigned long long)g_run_seed);
    g_flush_bytes = (size_t)prop.l2CacheSize * 2;
    CUDA_CHECK(cudaMalloc(&g_flush, g_flush_bytes));

    FILE *jf = json ? fopen(json, "a") : nullptr;
    solution sol, ref;
    std::string err;
    if (load_solution(sol_path, entry, &sol, &err)) {
        printf("verdict: missing_symbol (%s)\n", err.c_str());
        return 0;
    }
    bool vs_reference = lab.ceiling == "reference";
    if (vs_reference) {
        if (!ref_path) {
            fprintf(stderr, "det_dev: lab %s grades against the reference: pass --reference\n", labname);
            return 2;
        }
        if (load_solution(ref_path, entry, &ref, &err)) {
            fprintf(stderr, "det_dev: reference: %s\n", err.c_str());
            return 2;
        }
    }
    double copy_gbps = lab.metric == "bandwidth" ? measure_copy(prop.multiProcessorCount) : 0;

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cl_run run;
    run.lab = &lab;
    std::vector<char> state(ck->state_size);
    std::string verdict;
    int passed = 0, total = 0;
    for (auto &c : lab.cases) {
        if (c.bench || g_no_verify)
            continue;
        total++;
        std::string v = run_correctness(ck, &run, &c, sol, stream, state);
        printf("  case %-40s %s%s%s\n", c.name.c_str(), v.empty() ? "ok" : v.c_str(),
               run.msg.empty() ? "" : ": ", run.msg.c_str());
        free_case(&run);
        if (!v.empty()) {
            verdict = v;
            if (v == "cuda_error" || v == "checker_error")
                break; /* the context may be unusable */
        } else {
            passed++;
        }
    }
    printf("correctness: %d/%d\n", passed, total);
    double worst = 1e30;
    if (verdict.empty()) {
        for (auto &c : lab.cases) {
            if (!c.bench)
                continue;
            int runs = runs_override > 0 ? runs_override : c.runs;
            double ms = 0, ref_ms = 0;
            if (vs_reference) {
                std::string rv = run_bench(ck, &run, &c, ref, stream, state, runs, &ref_ms);
                free_case(&run);
                if (!rv.empty()) {
                    fprintf(stderr, "det_dev: the reference failed bench '%s': %s %s\n", c.name.c_str(),
                            rv.c_str(), run.msg.c_str());
                    return 2;
                }
            }
            std::string v = run_bench(ck, &run, &c, sol, stream, state, runs, &ms);
            std::string shape = run.shape;
            double bytes = run.bytes, items = run.items;
            free_case(&run);
            if (!v.empty()) {
                printf("  bench %-40s %s: %s\n", c.name.c_str(), v.c_str(), run.msg.c_str());
                verdict = v;
                break;
            }
            double frac, gbps = bytes / (ms * 1e-3) / 1e9;
            if (vs_reference)
                frac = ref_ms / ms;
            else
                frac = gbps / copy_gbps;
            worst = std::min(worst, frac);
            if (vs_reference)
                printf("  bench %-32s %9.4f ms  %.3g %s/s  reference %.4f ms: %5.1f%%  [%s]\n",
                       c.name.c_str(), ms, items / (ms * 1e-3), run.items_unit.c_str(), ref_ms,
                       100 * frac, shape.c_str());
            else
                printf("  bench %-32s %9.4f ms  %7.1f GB/s: %5.1f%% of copy (%.0f GB/s)  [%s]\n",
                       c.name.c_str(), ms, gbps, 100 * frac, copy_gbps, shape.c_str());
            if (jf)
                fprintf(jf, "{\"lab\": \"%s\", \"solution\": \"%s\", \"shape\": \"%s\", \"median_ms\": %.5f, "
                            "\"gbps\": %.1f, \"items_per_s\": %.4g, \"fraction\": %.4f, \"ceiling\": \"%s\", "
                            "\"ceiling_gbps\": %.1f, \"reference_ms\": %.5f, \"runs\": %d, \"gpu\": \"%s\"}\n",
                        labname, label, c.name.c_str(), ms, gbps, items / (ms * 1e-3), frac,
                        lab.ceiling.c_str(), copy_gbps, ref_ms, runs, prop.name);
        }
        if (verdict.empty() && g_no_verify)
            verdict = "unverified";
        if (verdict.empty())
            verdict = worst >= lab.tier_excellent ? "excellent"
                    : worst >= lab.tier_good      ? "good"
                    : worst >= lab.tier_pass      ? "pass"
                                                  : "slow";
    }
    printf("verdict: %s\n", verdict.c_str());
    if (jf) {
        fprintf(jf, "{\"lab\": \"%s\", \"solution\": \"%s\", \"verdict\": \"%s\"}\n", labname, label, verdict.c_str());
        fclose(jf);
    }
    return 0;
}
