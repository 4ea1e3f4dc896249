// expect: timeout
// expect-timeout: 4
// A kernel that never finishes: it waits for a value that nothing will ever write. (A loop
// without side effects would be removed by the compiler; this one reads global memory,
// which it may not remove.) The grader kills the whole runner process group at the lab's
// wall-clock timeout; the test sets 4 s (--timeout), which the verdict does not depend on.
#include "cudalab_lab.h"

__global__ void spin(float *out)
{
    volatile unsigned *flag = reinterpret_cast<volatile unsigned *>(out);
    while (*flag != 0x12345678u) // out starts poisoned (0xFFFFFFFF) and nothing changes it
        ;
    *out = 0.f;
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    spin<<<1, 1, 0, stream>>>(out);
}
