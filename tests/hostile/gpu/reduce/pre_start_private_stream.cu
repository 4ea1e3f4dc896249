// expect: off_stream|wrong
// Class 7a (work before the start): does the whole sum on a private stream, synchronised
// from the host before returning, so nothing is left on the given stream for the clock to
// see. The call is enqueued before the judge has written the inputs: the early kernel
// reads stale inputs (wrong), and the judge's sentinel sees another context on the GPU
// while it prepares them (off_stream); never a grade.
#include "hostile_sum.cuh"

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    (void)stream;
    static cudaStream_t mine;
    if (!mine)
        cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking);
    cudaMemsetAsync(out, 0, sizeof(float), mine);
    sum_kernel<<<264, 1024, 0, mine>>>(in, out, n);
    cudaStreamSynchronize(mine);
}
