// expect: wrong
// expect-message: goes backward
// What is wrong: breadth-first search from the sources, placing a node the first time any
// edge reaches it, ignoring its in-degree. A node with a second, longer path into it is
// then placed before its other predecessors (a -> c and a -> b -> c put c next to b), so
// some edge goes backward. (It reports cycles only by luck: nodes on a cycle that is
// reachable from a source are placed too.)
#include <cstdio>

#include "cudalab_lab.h"

__global__ void count_indeg(const int *col, int m, int *indeg)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < m)
        atomicAdd(&indeg[col[k]], 1);
}

__global__ void sources(const int *indeg, int n, int *order, int *seen, int *count)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && indeg[v] == 0) {
        seen[v] = 1;
        order[atomicAdd(count, 1)] = v;
    }
}

__global__ void bfs_level(const int *row_ptr, const int *col, int *order, int head, int tail, int *seen, int *count)
{
    int i = head + blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= tail)
        return;
    int u = order[i];
    for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++)
        if (atomicExch(&seen[col[k]], 1) == 0) // first visit: placed now (the bug)
            order[atomicAdd(count, 1)] = col[k];
}

__global__ void set_status(int *status, const int *count, int n) { *status = *count < n; }

extern "C" void topo_sort(const int *row_ptr, const int *col, int n, int m, int *order, int *status,
                          cudaStream_t stream)
{
    if (n == 0) {
        cudaMemsetAsync(status, 0, sizeof(int), stream);
        return;
    }
    int *scratch = (int *)cudalab_scratch((2 * (size_t)n + 1) * sizeof(int));
    int *count = scratch, *indeg = scratch + 1, *seen = scratch + 1 + n;
    cudaMemsetAsync(scratch, 0, (2 * (size_t)n + 1) * sizeof(int), stream);
    if (m > 0)
        count_indeg<<<(m + 255) / 256, 256, 0, stream>>>(col, m, indeg);
    sources<<<(n + 255) / 256, 256, 0, stream>>>(indeg, n, order, seen, count);
    int head = 0, tail = 0;
    cudaMemcpyAsync(&tail, count, sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    while (head < tail) {
        bfs_level<<<(tail - head + 255) / 256, 256, 0, stream>>>(row_ptr, col, order, head, tail, seen, count);
        head = tail;
        cudaMemcpyAsync(&tail, count, sizeof(int), cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
    }
    set_status<<<1, 1, 0, stream>>>(status, count, n);
}
