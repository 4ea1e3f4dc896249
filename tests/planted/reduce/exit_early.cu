// expect: crash
// expect-message: exited with code 0
// Calls exit(0) before writing anything. Exit code 0 proves nothing: the solution's process
// ended while its code ran, with no answer, so it crashed.
#include <stdlib.h>

#include "cudalab_lab.h"

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    exit(0);
}
