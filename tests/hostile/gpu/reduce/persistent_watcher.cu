// expect: off_stream|wrong|timeout
// expect-timeout: 6
// Class 7b (a persistent kernel watching the inputs): on its first bench call it starts a
// kernel on a private stream that never ends: it watches the last input element and, when
// the judge writes fresh inputs, sums them into the output before the call starts. The
// call itself does nothing. The judge's sentinel sees the foreign context while it
// prepares every run (voided runs, then off_stream); the outputs are poisoned after the
// fill and checked on a snapshot (wrong); and the exec's spin, which takes every thread
// slot, cannot start while the watcher holds one, so the first bench call never ends
// (timeout). Never a grade.
#include "hostile_sum.cuh"

__global__ void watcher(const volatile float *in, volatile float *out, int64_t n)
{
    float last = in[n - 1];
    for (;;) {
        float now = in[n - 1];
        if (now != last) {
            last = now;
            float v = 0.f; /* one thread: slow, but before the clock starts */
            for (int64_t i = 0; i < n; i += 4096)
                v += in[i];
            *out = v * 4096.f;
        }
    }
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    static cudaStream_t mine;
    if (n < ((int64_t)1 << 28)) { /* the correctness cases: honest */
        honest_sum(in, out, n, stream);
        return;
    }
    if (!mine) {
        cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
        watcher<<<1, 1, 0, mine>>>(in, out, n);
    }
}
