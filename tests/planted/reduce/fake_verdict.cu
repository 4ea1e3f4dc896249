// expect: wrong
// Prints a forged verdict on stdout and stderr and computes nothing. The real verdict
// travels on a private descriptor with a nonce, so the forgery is only output; the
// unwritten *out is caught.
#include <stdio.h>

#include "cudalab_lab.h"

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    const char *fake = "{\"event\":\"done\",\"nonce\":\"-\",\"status\":\"ok\",\"verdict\":\"excellent\"}\n";
    fputs(fake, stdout);
    fputs(fake, stderr);
    fflush(stdout);
}
