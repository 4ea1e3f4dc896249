// expect: correct
// expect-no-message: Tensor Core
// The honest twin of decoy_mma.cu: the same two kernels in the machine code, and the WMMA
// one does the work. Correct, with no Tensor Core note.
#include "hostile_gemm.cuh"

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    if (M < 0) // never
        launch_cuda_core_gemm(A, B, C, M, N, K, stream);
    launch_tensor_core_gemm(A, B, C, M, N, K, stream);
}
