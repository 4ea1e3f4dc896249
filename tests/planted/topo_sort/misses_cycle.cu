// expect: wrong
// expect-message: has a cycle
// What is wrong: a correct level-synchronous Kahn, except at the end: the nodes it could
// not place (those on or below a cycle) are appended in id order and *status is always
// 0. Every DAG passes; every graph with a cycle is reported as acyclic.
#include <cstdio>

#include "cudalab_lab.h"

__global__ void count_indeg(const int *col, int m, int *indeg)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        atomicAdd(&indeg[col[k]], 1);
}

__global__ void sources(const int *indeg, int n, int *order, int *count)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && indeg[v] == 0)
        order[atomicAdd(count, 1)] = v;
}

__global__ void kahn_level(const int *row_ptr, const int *col, int *order, int head, int tail, int *indeg, int *count)
{
    int i = head + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= tail)
        return;
    int u = order[i];
    for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++)
        if (atomicSub(&indeg[col[k]], 1) == 1)
            order[atomicAdd(count, 1)] = col[k];
}

__global__ void pad_leftovers(const int *indeg, int n, int *order, int *count, int *status)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && indeg[v] > 0)
        order[atomicAdd(count, 1)] = v; // the bug: hides the cycle
    if (v == 0)
        *status = 0;
}

extern "C" void topo_sort(const int *row_ptr, const int *col, int n, int m, int *order, int *status,
                          cudaStream_t stream)
{
    if (n == 0) {
        cudaMemsetAsync(status, 0, sizeof(int), stream);
        return;
    }
    int *scratch = (int *)cudalab_scratch(((size_t)n + 1) * sizeof(int));
    int *count = scratch, *indeg = scratch + 1;
    cudaMemsetAsync(scratch, 0, ((size_t)n + 1) * sizeof(int), stream);
    if (m > 0)
        count_indeg<<<(m + 255) / 256, 256, 0, stream>>>(col, m, indeg);
    sources<<<(n + 255) / 256, 256, 0, stream>>>(indeg, n, order, count);
    int head = 0, tail = 0;
    cudaMemcpyAsync(&tail, count, sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    while (head < tail) {
        kahn_level<<<(tail - head + 255) / 256, 256, 0, stream>>>(row_ptr, col, order, head, tail, indeg, count);
        head = tail;
        cudaMemcpyAsync(&tail, count, sizeof(int), cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
    }
    pad_leftovers<<<(n + 255) / 256, 256, 0, stream>>>(indeg, n, order, count, status);
}
