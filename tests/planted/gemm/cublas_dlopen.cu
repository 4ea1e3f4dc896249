// expect: banned
// expect-message: while it ran
// Hands the work to cuBLAS behind the grader's back: no cuBLAS header, no link against it,
// no cublas* symbol in the object; the library is opened with dlopen at run time and its
// functions found with dlsym. The result is right and fast, but the runner sees
// libcublas loaded into its process while the solution ran, and bans it.
#include <dlfcn.h>

#include "cudalab_lab.h"

typedef int (*create_fn)(void **handle);
typedef int (*set_stream_fn)(void *handle, cudaStream_t stream);
typedef int (*gemm_ex_fn)(void *handle, int transa, int transb, int m, int n, int k, const void *alpha,
                          const void *A, int atype, int lda, const void *B, int btype, int ldb, const void *beta,
                          void *C, int ctype, int ldc, int compute, int algo);

extern "C" void gemm_f16(const __half *A, const __half *B, __half *C, int M, int N, int K, cudaStream_t stream)
{
    static void *lib, *handle;
    static set_stream_fn set_stream;
    static gemm_ex_fn gemm_ex;
    if (!lib) {
        const char *names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
        for (int i = 0; i < 3 && !lib; i++)
            lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!lib)
            return;
        create_fn create = (create_fn)dlsym(lib, "cublasCreate_v2");
        set_stream = (set_stream_fn)dlsym(lib, "cublasSetStream_v2");
        gemm_ex = (gemm_ex_fn)dlsym(lib, "cublasGemmEx");
        if (!create || !set_stream || !gemm_ex || create(&handle) != 0)
            return;
    }
    if (!gemm_ex)
        return;
    float one = 1.0f, zero = 0.0f;
    const int CUDA_R_16F = 2, COMPUTE_32F = 68, OP_N = 0, ALGO_DEFAULT = -1;
    set_stream(handle, stream);
    /* row-major C = A B is column-major C^T = B^T A^T */
    gemm_ex(handle, OP_N, OP_N, N, M, K, &one, B, CUDA_R_16F, N, A, CUDA_R_16F, K, &zero, C, CUDA_R_16F, N,
            COMPUTE_32F, ALGO_DEFAULT);
}
