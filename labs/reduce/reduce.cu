// reduce.cu: your solution to the reduce lab. Sum n floats: *out = in[0] + ... + in[n-1].
//
// This skeleton compiles and runs, but it is wrong: the kernel below does not sum
// anything yet, so `cudalab test` fails with the expected and the actual value.
//
// Build it up in steps, testing after each (`cudalab test`, then `cudalab bench`):
//   1. Correct first: one block, a shared-memory tree reduction, then add the blocks'
//      partial sums (a second tiny kernel, or atomicAdd on *out after zeroing it).
//   2. Many blocks, each thread summing many elements in a grid-stride loop.
//   3. Warp shuffles (__shfl_down_sync) instead of shared memory inside a warp.
//   4. 16-byte loads (float4) and a grid that fills the GPU once.
// `cudalab hint` gives one hint at a time when you are stuck.
//
// Rules (see README.md): launch every kernel on `stream`; `in` and `out` are device
// pointers; n can exceed 2^31, so index with int64_t; ask cudalab_scratch() for device
// scratch memory instead of calling cudaMalloc on every call.
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

__global__ void reduce_kernel(const float *in, float *out, int64_t n)
{
    // TODO: sum in[0..n) and write the total to *out.
    // Right now only thread 0 of block 0 writes, and it writes the wrong thing.
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *out = 0.0f;
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    const int threads = 256;
    const int blocks = 1; // TODO: more blocks, once the kernel combines their partial sums
    reduce_kernel<<<blocks, threads, 0, stream>>>(in, out, n);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "reduce_sum: launch failed: %s\n", cudaGetErrorString(err));
}
