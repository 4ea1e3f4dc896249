// expect: crash
// Dereferences a null host pointer: the runner dies with SIGSEGV. cudalab reports the
// signal and the case that was running, and is itself unharmed.
#include <stdint.h>

#include "cudalab_lab.h"

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    volatile int *p = (int *)(uintptr_t)(n > 0 ? 0 : 8);
    *p = 42;
}
