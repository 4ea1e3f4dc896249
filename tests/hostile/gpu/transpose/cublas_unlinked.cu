// expect: banned
// expect-message: libcublas
// Class 5 on the GPU (a banned library behind the loader's back): dlopens libcublas through
// the real loader and then unlinks it from the link map, so an in-process scan no longer
// sees it; the transpose itself is honest. The judge reads the solution process's maps
// from the kernel, which no link-map trick hides: banned.
#include <dlfcn.h>
#include <link.h>

#include "hostile_transpose.cuh"

extern "C" void transpose(const float *in, float *out, int rows, int cols, cudaStream_t stream)
{
    static int done;
    if (!done++) {
        void *h = NULL;
        for (const char *n : {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
            if (!h)
                h = dlopen(n, RTLD_NOW | RTLD_LOCAL);
        struct link_map *lm = NULL;
        if (h && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm) {
            if (lm->l_prev)
                lm->l_prev->l_next = lm->l_next;
            if (lm->l_next)
                lm->l_next->l_prev = lm->l_prev;
        }
    }
    honest_transpose(in, out, rows, cols, stream);
}
