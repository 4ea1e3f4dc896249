// expect: wrong
// expect-message: warm-up run: the sum of 268435456 elements is off by
// One atomicAdd per element into *out: every add serialises on one address in L2, far below
// the memory bandwidth, and the sum is one chain of n dependent fp32 additions, beyond the
// lab's tolerance (a chain of at most 4096 + log2(n)). On the small zero-mean cases the
// error stays small and they pass; on the 1 GiB bench input, whose mean is not zero, the
// running total grows so large that adding one more element no longer changes it, and the
// answer is off by most of the sum: wrong, found on the first (warm-up) run. The correctness
// case "largest that fits" grows with the GPU's memory, and one add per element is slow: 22 s
// on an 80 GB H100, past 30 s on a 141 GB H200, hence the longer limit.
// expect-timeout: 90
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
