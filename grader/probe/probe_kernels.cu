// probe_kernels.cu: the copy kernel whose bandwidth is the ceiling of every memory-bound
// lab. Each thread moves 16 bytes per load/store (float4), four independent loads in
// flight before the first store, grid-stride over the buffer: the pattern a
// bandwidth-bound kernel should aim for.
#include <cuda_runtime.h>

#include <stddef.h>

__global__ void copy_f4_kernel(const float4 *__restrict__ src, float4 *__restrict__ dst, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a;
        dst[i + stride] = b;
        dst[i + 2 * stride] = c;
        dst[i + 3 * stride] = d;
    }
    for (; i < n4; i += stride)
        dst[i] = src[i];
}

extern "C" int probe_launch_copy(const void *src, void *dst, size_t bytes, int blocks, int threads,
                                 cudaStream_t stream)
{
    copy_f4_kernel<<<blocks, threads, 0, stream>>>((const float4 *)src, (float4 *)dst, bytes / 16);
    return (int)cudaGetLastError();
}

__global__ void fill_half_kernel(unsigned short *p, size_t n, unsigned seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned x = (unsigned)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        // a random fp16 in [-1, 1): sign, exponent 14 (0.5..1) or lower, random mantissa
        unsigned short mant = (unsigned short)(x & 0x3FF);
        unsigned short expo = (unsigned short)(10 + ((x >> 10) & 3)); // 2^-5 .. 2^-2 scale
        p[i] = (unsigned short)(((x >> 16) & 0x8000) | (expo << 10) | mant);
    }
}

extern "C" int probe_fill_half(void *p, size_t n, unsigned seed, cudaStream_t stream)
{
    fill_half_kernel<<<1024, 256, 0, stream>>>((unsigned short *)p, n, seed);
    return (int)cudaGetLastError();
}
