// expect: correct
// expect-message: no Tensor Core instructions (HMMA/HGMMA) in the kernels that ran
// Issue 14, item 6 (the Tensor Core check looks at the kernels that actually ran): the
// work is done on the CUDA cores, and a WMMA kernel sits in the machine code, never
// launched, so that a check of the whole file would find HMMA. Fair: correct, with the note
// that the kernels that ran have no Tensor Core instructions. Twin: tensor_core_twin.cu.
#include "hostile_gemm.cuh"

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    if (M < 0) // never: keeps the decoy reachable, so the compiler cannot drop it
        launch_tensor_core_gemm(A, B, C, M, N, K, stream);
    launch_cuda_core_gemm(A, B, C, M, N, K, stream);
}
