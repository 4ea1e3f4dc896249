// backend_cuda.cu: the engine's device operations on a real GPU (CUDA runtime).
//
// Inputs are generated on the device with the counter-based generators of gen.h (the
// CPU recomputes any element bit for bit), the L2 cache is evicted by writing a buffer of
// twice its size, and a timed call is bracketed by events on the solution's stream *and*
// by device-wide synchronisation on the host clock, so work a solution hides on a stream
// of its own is still timed and reported.
#include <cuda_runtime.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "grader/timing_kernels.cuh"

extern "C" {
#include "backend.h"
}

// How long the GPU is kept busy before a start event: far longer than any solution's host
// code takes to enqueue its kernels, a negligible cost per timed run.
#define PRE_START_WAIT_NS 150000ull

static char g_err[1024];
static cudaStream_t g_stream;
static cudaEvent_t g_ev_start, g_ev_stop, g_ev_end;
static void *g_flush_buf;
static size_t g_flush_bytes;
static float *g_sink;
static int g_fatal;

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
    return -1;
}

static int cuda_fail(cudaError_t e, const char *what)
{
    return fail("%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

#define CUDA_TRY(call, what)                       \
    do {                                           \
        cudaError_t e_ = (call);                   \
        if (e_ != cudaSuccess) {                   \
            check_fatal(e_);                       \
            return cuda_fail(e_, what);            \
        }                                          \
    } while (0)

// Errors after which the context is unusable: the runner must stop and say so.
static void check_fatal(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
        g_fatal = 1;
        break;
    default:
        break;
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

extern "C" const char *be_error(void) { return g_err; }
extern "C" void *be_stream(void) { return (void *)g_stream; }
extern "C" int be_fatal(void) { return g_fatal; }

extern "C" int be_init(be_device *dev)
{
    memset(dev, 0, sizeof *dev);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        return cuda_fail(e, "no usable CUDA device");
    if (count == 0)
        return fail("no CUDA device is visible");
    CUDA_TRY(cudaSetDevice(0), "cudaSetDevice");
    cudaDeviceProp p;
    CUDA_TRY(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    snprintf(dev->name, sizeof dev->name, "%s", p.name);
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(dev->uuid, sizeof dev->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    dev->cc_major = p.major;
    dev->cc_minor = p.minor;
    dev->sms = p.multiProcessorCount;
    int clk = 0, mclk = 0;
    cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, 0);
    dev->clock_mhz = clk / 1000;
    dev->mem_clock_mhz = mclk / 1000;
    dev->bus_width_bits = p.memoryBusWidth;
    dev->l2_bytes = p.l2CacheSize;
    cudaDriverGetVersion(&dev->driver_version);
    cudaRuntimeGetVersion(&dev->runtime_version);
    CUDA_TRY(cudaStreamCreate(&g_stream), "cudaStreamCreate");
    CUDA_TRY(cudaEventCreate(&g_ev_start), "cudaEventCreate");
    CUDA_TRY(cudaEventCreate(&g_ev_stop), "cudaEventCreate");
    CUDA_TRY(cudaEventCreate(&g_ev_end), "cudaEventCreate");
    g_flush_bytes = (size_t)(p.l2CacheSize > 0 ? p.l2CacheSize : (4 << 20)) * 2;
    CUDA_TRY(cudaMalloc(&g_flush_buf, g_flush_bytes), "cudaMalloc (L2 flush buffer)");
    CUDA_TRY(cudaMemset(g_flush_buf, 0, g_flush_bytes), "cudaMemset (L2 flush buffer)");
    CUDA_TRY(cudaMalloc((void **)&g_sink, sizeof(float)), "cudaMalloc");
    CUDA_TRY(cudaMemGetInfo(&dev->mem_free, &dev->mem_total), "cudaMemGetInfo");
    return 0;
}

extern "C" int be_malloc(void **p, size_t bytes)
{
    *p = NULL;
    CUDA_TRY(cudaMalloc(p, bytes ? bytes : 1), "cudaMalloc");
    return 0;
}

extern "C" void be_free(void *p)
{
    if (p)
        cudaFree(p);
}

extern "C" int be_upload(void *dst, const void *src, size_t bytes)
{
    CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "copy to device");
    return 0;
}

extern "C" int be_download(void *dst, const void *src, size_t bytes)
{
    CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "copy from device");
    return 0;
}

extern "C" int be_memset(void *dst, int byte, size_t bytes)
{
    CUDA_TRY(cudaMemsetAsync(dst, byte, bytes, g_stream), "cudaMemset");
    return 0;
}

template <typename T> __device__ __forceinline__ T convert(const cl_gen &g, uint64_t i);
template <> __device__ __forceinline__ float convert<float>(const cl_gen &g, uint64_t i) { return cl_gen_f32(&g, i); }
template <> __device__ __forceinline__ double convert<double>(const cl_gen &g, uint64_t i) { return cl_gen_value(&g, i); }
template <> __device__ __forceinline__ uint16_t convert<uint16_t>(const cl_gen &g, uint64_t i) { return cl_gen_f16(&g, i); }
template <> __device__ __forceinline__ int convert<int>(const cl_gen &g, uint64_t i) { return (int)cl_gen_value(&g, i); }

template <typename T> __global__ void fill_kernel(T *dst, size_t count, cl_gen g)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        dst[i] = convert<T>(g, i);
}

extern "C" int be_fill(void *dst, size_t count, cl_dtype t, const cl_gen *g)
{
    if (count == 0)
        return 0;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    size_t want = (count + 255) / 256;
    unsigned blocks = (unsigned)(want < (size_t)sms * 16 ? want : (size_t)sms * 16);
    switch (t) {
    case CL_F32: fill_kernel<float><<<blocks, 256, 0, g_stream>>>((float *)dst, count, *g); break;
    case CL_F64: fill_kernel<double><<<blocks, 256, 0, g_stream>>>((double *)dst, count, *g); break;
    case CL_F16: fill_kernel<uint16_t><<<blocks, 256, 0, g_stream>>>((uint16_t *)dst, count, *g); break;
    case CL_I32: fill_kernel<int><<<blocks, 256, 0, g_stream>>>((int *)dst, count, *g); break;
    default: return fail("fill: unknown dtype %d", (int)t);
    }
    CUDA_TRY(cudaGetLastError(), "fill kernel launch");
    return 0;
}

extern "C" int be_sync(void)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        check_fatal(e);
        return cuda_fail(e, "CUDA error");
    }
    return 0;
}

extern "C" int be_mem_info(size_t *free_bytes, size_t *total_bytes)
{
    CUDA_TRY(cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo");
    return 0;
}


extern "C" int be_call(be_launch_fn fn, void *state, const void *entry)
{
    fn(state, entry, (void *)g_stream);
    return be_sync();
}

extern "C" int be_timed_call(be_launch_fn fn, void *state, const void *entry, be_timing *t)
{
    if (be_sync())
        return -1;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cl_flush_and_wait<<<sms * 4, 256, 0, g_stream>>>((const float4 *)g_flush_buf, g_flush_bytes / 16,
                                                    PRE_START_WAIT_NS, g_sink);
    CUDA_TRY(cudaGetLastError(), "L2 flush kernel");
    CUDA_TRY(cudaEventRecord(g_ev_start, g_stream), "cudaEventRecord");
    fn(state, entry, (void *)g_stream);
    CUDA_TRY(cudaEventRecord(g_ev_stop, g_stream), "cudaEventRecord");
    cudaError_t e = cudaEventSynchronize(g_ev_stop);
    double t1 = now_ms();
    if (e != cudaSuccess) {
        check_fatal(e);
        return cuda_fail(e, "CUDA error");
    }
    if (be_sync())
        return -1;
    double t2 = now_ms();
    // on an idle device this event fires at once: its time is when all work was done
    CUDA_TRY(cudaEventRecord(g_ev_end, g_stream), "cudaEventRecord");
    CUDA_TRY(cudaEventSynchronize(g_ev_end), "cudaEventSynchronize");
    float ms = 0, wall = 0;
    CUDA_TRY(cudaEventElapsedTime(&ms, g_ev_start, g_ev_stop), "cudaEventElapsedTime");
    CUDA_TRY(cudaEventElapsedTime(&wall, g_ev_start, g_ev_end), "cudaEventElapsedTime");
    t->event_ms = ms;
    t->wall_ms = wall;
    t->tail_ms = t2 - t1;
    return 0;
}

// fp64 sum and sum of magnitudes: one partial pair per block, finished on the host.
template <typename T> __device__ __forceinline__ double as_double(const T *p, size_t i) { return (double)p[i]; }
template <> __device__ __forceinline__ double as_double<uint16_t>(const uint16_t *p, size_t i) { return (double)cl_f16_to_f32(p[i]); }

template <typename T> __global__ void sum_kernel(const T *src, size_t count, double2 *partial)
{
    double s = 0, a = 0;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        double v = as_double<T>(src, i);
        s += v;
        a += fabs(v);
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_down_sync(0xffffffffu, s, o);
        a += __shfl_down_sync(0xffffffffu, a, o);
    }
    __shared__ double2 warp_part[32];
    if ((threadIdx.x & 31) == 0)
        warp_part[threadIdx.x >> 5] = make_double2(s, a);
    __syncthreads();
    if (threadIdx.x == 0) {
        double2 t = make_double2(0, 0);
        for (int w = 0; w < (int)(blockDim.x >> 5); w++) {
            t.x += warp_part[w].x;
            t.y += warp_part[w].y;
        }
        partial[blockIdx.x] = t;
    }
}

extern "C" int be_sum(const void *src, size_t count, cl_dtype t, double *sum, double *abs_sum)
{
    enum { BLOCKS = 1024 };
    static double2 *d_partial;
    static double2 h_partial[BLOCKS];
    if (!d_partial)
        CUDA_TRY(cudaMalloc(&d_partial, sizeof(double2) * BLOCKS), "cudaMalloc");
    CUDA_TRY(cudaMemsetAsync(d_partial, 0, sizeof(double2) * BLOCKS, g_stream), "cudaMemset");
    switch (t) {
    case CL_F32: sum_kernel<float><<<BLOCKS, 256, 0, g_stream>>>((const float *)src, count, d_partial); break;
    case CL_F64: sum_kernel<double><<<BLOCKS, 256, 0, g_stream>>>((const double *)src, count, d_partial); break;
    case CL_F16: sum_kernel<uint16_t><<<BLOCKS, 256, 0, g_stream>>>((const uint16_t *)src, count, d_partial); break;
    case CL_I32: sum_kernel<int><<<BLOCKS, 256, 0, g_stream>>>((const int *)src, count, d_partial); break;
    default: return fail("sum: unknown dtype %d", (int)t);
    }
    CUDA_TRY(cudaGetLastError(), "sum kernel launch");
    CUDA_TRY(cudaMemcpyAsync(h_partial, d_partial, sizeof h_partial, cudaMemcpyDeviceToHost, g_stream), "copy");
    CUDA_TRY(cudaStreamSynchronize(g_stream), "sum kernel");
    double s = 0, a = 0;
    for (int i = 0; i < BLOCKS; i++) {
        s += h_partial[i].x;
        a += h_partial[i].y;
    }
    *sum = s;
    *abs_sum = a;
    return 0;
}
