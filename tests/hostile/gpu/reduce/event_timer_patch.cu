// expect: off_stream
// expect-message: disagrees with the judge's clock
// Class 6 (patching the timer): a correct reduction that, on its first bench call, times
// itself honestly and then rewrites the first bytes of cudaEventElapsedTime (libcudart) and
// cuEventElapsedTime(_v2) (libcuda) in its own process so every later measurement reads
// 0.3x that. The solution's process reports those times; the judge bounds them with its own
// GPU clock (the bracket), so the run is off_stream and the time on record is the judge's.
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hostile_sum.cuh"

static float g_fake_ms;

static int fake_elapsed(float *ms, void *a, void *b)
{
    (void)a, (void)b;
    *ms = g_fake_ms;
    return 0;
}

static void patch(void *f)
{
#if defined(__x86_64__)
    if (!f)
        return;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)f & ~(uintptr_t)(page - 1);
    if (mprotect((void *)lo, (size_t)page * 2, PROT_READ | PROT_WRITE | PROT_EXEC))
        return;
    uint64_t target = (uint64_t)(uintptr_t)fake_elapsed;
    unsigned char code[12] = {0x48, 0xB8};
    memcpy(code + 2, &target, 8);
    code[10] = 0xFF;
    code[11] = 0xE0;
    memcpy(f, code, sizeof code);
#else
    (void)f;
#endif
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    static int patched;
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    if (!patched && n == ((int64_t)1 << 28)) { /* the first bench call (2^28): measure honestly, then patch */
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        cudaEventRecord(a, stream);
        sum_kernel<<<264, 1024, 0, stream>>>(in, out, n);
        cudaEventRecord(b, stream);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        g_fake_ms = 0.3f * ms;
        void *rt = dlopen("libcudart.so", RTLD_NOW | RTLD_NOLOAD);
        for (const char *v : {"libcudart.so.13", "libcudart.so.12"})
            if (!rt)
                rt = dlopen(v, RTLD_NOW | RTLD_NOLOAD);
        void *drv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        patch(rt ? dlsym(rt, "cudaEventElapsedTime") : dlsym(RTLD_DEFAULT, "cudaEventElapsedTime"));
        if (drv) {
            patch(dlsym(drv, "cuEventElapsedTime"));
            patch(dlsym(drv, "cuEventElapsedTime_v2"));
        }
        patched = 1;
        cudaMemsetAsync(out, 0, sizeof(float), stream);
    }
    sum_kernel<<<264, 1024, 0, stream>>>(in, out, n);
}
