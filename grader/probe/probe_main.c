/* probe_main.c: cudalab-probe, which measures what "fast" means on this GPU.
 *
 *   cudalab-probe --identify           name, UUID, driver, compute capability (JSON)
 *   cudalab-probe --ceilings           + the three bandwidth ceilings (copy: bytes read +
 *                                        written; read-only; write-only) and the fp16
 *                                        Tensor Core rate of cuBLAS
 *   cudalab-probe --cublas M,N,K ...   cuBLAS fp16 GEMM TFLOP/s at each shape (row-major)
 *   cudalab-probe --hold [--while-pid P]  keeps the CUDA driver initialised (no context, no
 *                                        kernels) until descriptor 3 reaches end of file,
 *                                        or, with --while-pid, until process P is gone
 *                                        (driver_keep.c, and the GPU test suite's fixture)
 *
 * It runs in its own process, before any solution is loaded: the GEMM lab compares a
 * solution with cuBLAS, but a solution may not use cuBLAS, and a runner that had cuBLAS
 * loaded could not tell. Output is one JSON object on stdout. */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <jansson.h>
#include <stdio.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the kinds of streaming kernel (probe_kernels.cu) */
enum { PROBE_COPY, PROBE_READ, PROBE_WRITE };
int probe_variants(int kind);
const char *probe_variant_name(int kind, int variant);
int probe_launch(int kind, int variant, const void *src, void *dst, size_t bytes, int blocks, int threads,
                 cudaStream_t stream);
int probe_fill_half(void *p, size_t n, unsigned seed, cudaStream_t stream);
int probe_flush_and_wait(const void *buf, size_t bytes, float *sink, cudaStream_t stream);

/* The L2-sized buffer read before every timed run, and its sink (set up in main). */
static void *g_flush;
static size_t g_flush_bytes;
static float *g_sink;

#define PRE_START(stream)                                                                          \
    do {                                                                                           \
        if (probe_flush_and_wait(g_flush, g_flush_bytes, g_sink, (stream)))                         \
            return snprintf(g_err, sizeof g_err, "flush kernel launch failed"), -1;                 \
    } while (0)

#define RUNS 30

static char g_err[512];

#define CUDA_TRY(call)                                                                             \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            snprintf(g_err, sizeof g_err, "%s: %s", #call, cudaGetErrorString(e_));                \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static json_t *identify(struct cudaDeviceProp *p)
{
    int drv = 0, rt = 0, clk = 0, mclk = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, 0);
    const unsigned char *u = (const unsigned char *)p->uuid.bytes;
    char uuid[64];
    snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    /* theoretical DRAM bandwidth: 2 transfers per clock (DDR) x bus width */
    double peak_bw = 2.0 * (double)mclk * 1e3 * (double)p->memoryBusWidth / 8.0 / 1e9;
    return json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:I, s:i, s:i, s:i, s:i, s:f}", "name",
                     p->name, "uuid", uuid, "cc_major", p->major, "cc_minor", p->minor, "sms",
                     p->multiProcessorCount, "clock_mhz", clk / 1000, "mem_clock_mhz", mclk / 1000,
                     "bus_width_bits", p->memoryBusWidth, "mem_total", (json_int_t)tot, "mem_free",
                     (json_int_t)fr, "l2_bytes", p->l2CacheSize, "smem_per_sm", (int)p->sharedMemPerMultiprocessor,
                     "driver_version", drv, "runtime_version", rt, "dram_peak_gbps", peak_bw);
}

/* Median time in ms of RUNS calls of one launch (kind, variant, or -1: the driver's
 * cudaMemcpy for copy, cudaMemset for write), each after an L2 flush. */
static int time_stream(int kind, int variant, void *a, void *b, size_t bytes, int blocks, int threads,
                       cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, float *median_ms)
{
    float t[RUNS];
    for (int r = -3; r < RUNS; r++) {
        PRE_START(s);
        CUDA_TRY(cudaEventRecord(e0, s));
        if (variant < 0 && kind == PROBE_COPY)
            CUDA_TRY(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s));
        else if (variant < 0)
            CUDA_TRY(cudaMemsetAsync(b, 0, bytes, s));
        else if (probe_launch(kind, variant, a, b, bytes, blocks, threads, s))
            return snprintf(g_err, sizeof g_err, "%s kernel launch failed", probe_variant_name(kind, variant)), -1;
        CUDA_TRY(cudaEventRecord(e1, s));
        CUDA_TRY(cudaEventSynchronize(e1));
        if (r >= 0)
            CUDA_TRY(cudaEventElapsedTime(&t[r], e0, e1));
    }
    qsort(t, RUNS, sizeof t[0], cmp_float);
    *median_ms = t[RUNS / 2];
    return 0;
}

/* The three bandwidth ceilings over a buffer far larger than L2: for each kind the best
 * median over its kernel variants and a few launch shapes (blocks per SM x threads), and
 * for copy and write also the driver's own cudaMemcpy / cudaMemset. Copy counts bytes
 * read + written, read-only the bytes read, write-only the bytes written. */
static int measure_bandwidth(struct cudaDeviceProp *p, json_t *out)
{
    static const char *const key[] = {"copy", "read", "write"};
    size_t fr = 0, tot = 0;
    CUDA_TRY(cudaMemGetInfo(&fr, &tot));
    size_t bytes = (size_t)1 << 30;
    while (bytes > fr / 4 && bytes > ((size_t)16 << 20))
        bytes /= 2;
    void *a, *b;
    CUDA_TRY(cudaMalloc(&a, bytes));
    CUDA_TRY(cudaMalloc(&b, bytes));
    CUDA_TRY(cudaMemset(a, 1, bytes));
    cudaStream_t s;
    cudaEvent_t e0, e1;
    CUDA_TRY(cudaStreamCreate(&s));
    CUDA_TRY(cudaEventCreate(&e0));
    CUDA_TRY(cudaEventCreate(&e1));
    int shapes[][2] = {{2, 256}, {4, 256}, {8, 256}, {16, 256}, {4, 512}, {2, 1024}};
    for (int kind = PROBE_COPY; kind <= PROBE_WRITE; kind++) {
        double moved = kind == PROBE_COPY ? 2.0 * (double)bytes : (double)bytes;
        double best = 0;
        int best_blocks = 0, best_threads = 0, best_variant = 0;
        float ms;
        for (int v = 0; v < probe_variants(kind); v++)
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
                int blocks = p->multiProcessorCount * shapes[k][0], threads = shapes[k][1];
                if (time_stream(kind, v, a, b, bytes, blocks, threads, s, e0, e1, &ms))
                    return -1;
                double gbps = moved / (ms * 1e-3) / 1e9;
                if (gbps > best) {
                    best = gbps;
                    best_blocks = blocks;
                    best_threads = threads;
                    best_variant = v;
                }
            }
        char name[64];
        snprintf(name, sizeof name, "%s_launch", key[kind]);
        json_object_set_new(out, name, json_pack("{s:s, s:i, s:i}", "kernel", probe_variant_name(kind, best_variant),
                                                 "blocks", best_blocks, "threads", best_threads));
        double ceiling = best;
        if (kind != PROBE_READ) {
            /* the driver's own copy or memset, for comparison: the ceiling is the better */
            if (time_stream(kind, -1, a, b, bytes, 0, 0, s, e0, e1, &ms))
                return -1;
            double drv = moved / (ms * 1e-3) / 1e9;
            json_object_set_new(out, kind == PROBE_COPY ? "memcpy_gbps" : "memset_gbps", json_real(drv));
            snprintf(name, sizeof name, "%s_kernel_gbps", key[kind]);
            json_object_set_new(out, name, json_real(best));
            if (drv > ceiling)
                ceiling = drv;
        }
        snprintf(name, sizeof name, "%s_gbps", key[kind]);
        json_object_set_new(out, name, json_real(ceiling));
    }
    json_object_set_new(out, "copy_bytes", json_integer((json_int_t)bytes));
    cudaFree(a);
    cudaFree(b);
    cudaStreamDestroy(s);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 0;
}

/* cuBLAS fp16 GEMM, row-major C[M,N] = A[M,K] B[K,N], fp32 accumulation. Row-major C is
 * column-major C^T = B^T A^T, so cuBLAS is called with the operands swapped. */
static int measure_cublas(int M, int N, int K, double *tflops, double *ms_out)
{
    size_t fr = 0, tot = 0;
    CUDA_TRY(cudaMemGetInfo(&fr, &tot));
    double need = 2.0 * ((double)M * K + (double)K * N + (double)M * N);
    if (need > (double)fr * 0.8)
        return snprintf(g_err, sizeof g_err, "%dx%dx%d needs %.0f MiB, %.0f MiB free", M, N, K, need / 1048576,
                        (double)fr / 1048576), -1;
    void *A, *B, *C;
    CUDA_TRY(cudaMalloc(&A, (size_t)M * K * 2));
    CUDA_TRY(cudaMalloc(&B, (size_t)K * N * 2));
    CUDA_TRY(cudaMalloc(&C, (size_t)M * N * 2));
    cudaStream_t s;
    CUDA_TRY(cudaStreamCreate(&s));
    if (probe_fill_half(A, (size_t)M * K, 1u, s) || probe_fill_half(B, (size_t)K * N, 2u, s))
        return snprintf(g_err, sizeof g_err, "fill kernel failed"), -1;
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS)
        return snprintf(g_err, sizeof g_err, "cublasCreate failed"), -1;
    cublasSetStream(h, s);
    float alpha = 1.0f, beta = 0.0f;
    cudaEvent_t e0, e1;
    CUDA_TRY(cudaEventCreate(&e0));
    CUDA_TRY(cudaEventCreate(&e1));
    float t[RUNS];
    for (int r = -5; r < RUNS; r++) {
        PRE_START(s);
        CUDA_TRY(cudaEventRecord(e0, s));
        cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_16F, N, A,
                                         CUDA_R_16F, K, &beta, C, CUDA_R_16F, N, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT);
        if (st != CUBLAS_STATUS_SUCCESS)
            return snprintf(g_err, sizeof g_err, "cublasGemmEx failed (%d)", (int)st), -1;
        CUDA_TRY(cudaEventRecord(e1, s));
        CUDA_TRY(cudaEventSynchronize(e1));
        if (r >= 0)
            CUDA_TRY(cudaEventElapsedTime(&t[r], e0, e1));
    }
    qsort(t, RUNS, sizeof t[0], cmp_float);
    *ms_out = t[RUNS / 2];
    *tflops = 2.0 * M * (double)N * K / (t[RUNS / 2] * 1e-3) / 1e12;
    cublasDestroy(h);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaStreamDestroy(s);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return 0;
}

static int print_and_free(json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    if (!s)
        return 1;
    puts(s);
    free(s);
    return 0;
}

/* --hold: the driver is already initialised (cudaGetDeviceCount in main); wait. Every
 * other CUDA process then starts faster (driver_keep.c says why). */
static int hold(int argc, char **argv)
{
    long pid = argc == 4 && !strcmp(argv[2], "--while-pid") ? strtol(argv[3], NULL, 10) : 0;
    if (argc != 2 && pid <= 0) {
        fprintf(stderr, "usage: cudalab-probe --hold [--while-pid PID]\n");
        return 2;
    }
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) { /* holds none of the caller's pipes open */
        dup2(devnull, 1);
        dup2(devnull, 2);
        close(devnull);
    }
    if (pid > 0) {
        while (kill((pid_t)pid, 0) == 0)
            usleep(500 * 1000);
        return 0;
    }
    char buf[64];
    while (read(3, buf, sizeof buf) > 0)
        ;
    return 0;
}

static int fail_json(const char *what)
{
    return print_and_free(json_pack("{s:s, s:s}", "error", what, "detail", g_err)), 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "usage: cudalab-probe --identify | --ceilings | --cublas M,N,K [M,N,K ...] | --hold\n");
        return 2;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
        return strcmp(argv[1], "--hold") ? print_and_free(json_pack("{s:s}", "error", "no CUDA device")), 3 : 3;
    if (!strcmp(argv[1], "--hold"))
        return hold(argc, argv);
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess)
        return print_and_free(json_pack("{s:s}", "error", "cudaGetDeviceProperties failed")), 3;
    json_t *o = identify(&p);
    if (!strcmp(argv[1], "--identify"))
        return print_and_free(o);
    g_flush_bytes = (size_t)(p.l2CacheSize > 0 ? p.l2CacheSize : (4 << 20)) * 2;
    if (cudaMalloc(&g_flush, g_flush_bytes) != cudaSuccess || cudaMemset(g_flush, 0, g_flush_bytes) != cudaSuccess ||
        cudaMalloc((void **)&g_sink, sizeof(float)) != cudaSuccess)
        return json_decref(o), snprintf(g_err, sizeof g_err, "cannot allocate the L2 flush buffer"),
               fail_json("setup");
    if (!strcmp(argv[1], "--ceilings")) {
        if (measure_bandwidth(&p, o))
            return json_decref(o), fail_json("bandwidth");
        int n = 8192;
        double tf = 0, ms = 0;
        while (measure_cublas(n, n, n, &tf, &ms) && n > 1024)
            n /= 2;
        if (tf <= 0)
            return json_decref(o), fail_json("cuBLAS fp16 GEMM");
        json_object_set_new(o, "fp16_tflops", json_real(tf));
        json_object_set_new(o, "fp16_gemm_n", json_integer(n));
        return print_and_free(o);
    }
    if (!strcmp(argv[1], "--cublas")) {
        json_t *arr = json_array();
        for (int i = 2; i < argc; i++) {
            int M, N, K;
            if (sscanf(argv[i], "%d,%d,%d", &M, &N, &K) != 3 || M < 1 || N < 1 || K < 1)
                return json_decref(o), json_decref(arr), fprintf(stderr, "bad shape '%s'\n", argv[i]), 2;
            double tf = 0, ms = 0;
            if (measure_cublas(M, N, K, &tf, &ms))
                json_array_append_new(arr, json_pack("{s:i, s:i, s:i, s:s}", "M", M, "N", N, "K", K, "error", g_err));
            else
                json_array_append_new(arr, json_pack("{s:i, s:i, s:i, s:f, s:f}", "M", M, "N", N, "K", K, "tflops",
                                                     tf, "median_ms", ms));
        }
        json_object_set_new(o, "cublas", arr);
        return print_and_free(o);
    }
    json_decref(o);
    fprintf(stderr, "unknown option '%s'\n", argv[1]);
    return 2;
}
