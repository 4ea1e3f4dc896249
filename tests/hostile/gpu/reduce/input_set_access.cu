// expect: out_of_bounds|cuda_error
// Class 3 on the GPU (rewriting inputs behind the read-only mapping): in the bench it asks
// the driver to make the input's mapping writable again (cuMemSetAccess on the range
// cuMemGetAddressRange gives), writes in[0] = 1e30 and sets the output to match. The input
// hash after every call sees the change (out_of_bounds, "modified its input"); if the
// driver refuses, the write faults (cuda_error). Never a grade.
#include <cuda.h>

#include "hostile_sum.cuh"

__global__ void cheat(float *in, float *out)
{
    in[0] = 1e30f;
    *out = 1e30f;
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    if (n < ((int64_t)1 << 28)) {
        honest_sum(in, out, n, stream);
        return;
    }
    CUdeviceptr base = 0;
    size_t size = 0;
    int dev = 0;
    cudaGetDevice(&dev);
    if (cuMemGetAddressRange(&base, &size, (CUdeviceptr)in) == CUDA_SUCCESS) {
        CUmemAccessDesc d = {};
        d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        d.location.id = dev;
        d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cuMemSetAccess(base, size, &d, 1);
    }
    cheat<<<1, 1, 0, stream>>>((float *)in, out);
}
