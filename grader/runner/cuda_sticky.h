// cuda_sticky.h: the CUDA errors after which a context is unusable (shared by the judge's
// backend and the solution's process, so both sides agree on what ends a run).
#ifndef CUDALAB_CUDA_STICKY_H
#define CUDALAB_CUDA_STICKY_H

#include <cuda_runtime.h>

static inline int cl_cuda_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
        return 1;
    default:
        return 0;
    }
}

#endif
