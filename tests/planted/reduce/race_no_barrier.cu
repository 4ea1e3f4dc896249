// expect: wrong
// A shared-memory tree reduction with the __syncthreads() between steps left out: warps
// read slots that other warps have not written yet (a data race). The result is wrong,
// and `cudalab test --sanitize` (racecheck) names the hazard.
#include "cudalab_lab.h"

__global__ void racy(const float *in, float *out, int64_t n)
{
    __shared__ float s[1024];
    float v = 0.f;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
        v += in[i];
    s[threadIdx.x] = v;
    // missing: __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step >>= 1) {
        if ((int)threadIdx.x < step)
            s[threadIdx.x] += s[threadIdx.x + step];
        // missing: __syncthreads();
    }
    if (threadIdx.x == 0)
        *out = s[0];
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    racy<<<1, 1024, 0, stream>>>(in, out, n);
}
