// expect: slow
// One atomicAdd per element into *out: correct (within the fp32 tolerance), but every
// add serialises on one address in L2, far below the memory bandwidth.
#include "cudalab_lab.h"

__global__ void add_each(const float *in, float *out, int64_t n)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        atomicAdd(out, in[i]);
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    cudaMemsetAsync(out, 0, sizeof(float), stream);
    add_each<<<1024, 256, 0, stream>>>(in, out, n);
}
