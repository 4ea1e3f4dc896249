// expect: banned
// expect-message: loads GPU code at run time
// Class 5 / INTEGRITY.md H6 (a cubin loaded from memory): carries GPU code as bytes and
// loads it with cuModuleLoadData, the way a banned library's kernels could be smuggled in
// (here a tiny PTX module; the transpose itself is honest). In a lab that bans libraries
// the grader refuses solutions that load GPU code at run time: banned.
#include <cuda.h>

#include "hostile_transpose.cuh"

static const char ptx[] = ".version 7.0\n.target sm_70\n.address_size 64\n"
                          ".visible .entry nothing()\n{\n ret;\n}\n";

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    static CUmodule mod;
    if (!mod)
        cuModuleLoadData(&mod, ptx);
    honest_transpose(in, out, rows, cols, stream);
}
