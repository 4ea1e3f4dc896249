// 01_host_levels.cu: topo_sort ladder, step 1: Kahn's algorithm, one kernel per level, the
// host reading each level's size back.
//
// What it does: count in-degrees (one atomicAdd per edge, straight over col), append the
// nodes with in-degree 0 to order (the first frontier), then per level: one thread per
// frontier node walks its row and atomicSubs each target's in-degree; atomicSub returns
// the old value, so exactly one thread sees 1 and appends that node. The frontier is a
// slice of order itself: level L is order[head, tail) and the next level is appended
// behind it through one counter of placed nodes. The host copies the counter back after
// each level to learn the next tail. A cycle leaves nodes whose in-degree never reaches
// 0, so fewer than n are placed: *status = placed < n.
// Why it is slow: a graph of depth d costs d launches plus d device-to-host round trips
// (~10 us each: 20 000 for the long chain); inside a level, neighbouring threads walk
// different rows (uncoalesced reads of col, and a warp waits for its longest row), and
// every appended node is its own atomic on one hot counter.
// In a profiler: Nsight Systems shows a train of tiny kernels separated by memcpy and
// synchronisation gaps - the GPU is idle most of the time.
#include <stdint.h>
#include <stdio.h>

#include "cudalab_lab.h"

#define THREADS 256

__global__ void count_indegrees(const int *__restrict__ col, int m, int *indeg)
{
    for (int64_t i = (int64_t)blockIdx.x * THREADS + threadIdx.x; i < m; i += (int64_t)gridDim.x * THREADS)
        atomicAdd(&indeg[col[i]], 1);
}

__global__ void first_frontier(const int *__restrict__ indeg, int n, int *order, int *placed)
{
    const int u = blockIdx.x * THREADS + threadIdx.x;
    if (u < n && indeg[u] == 0)
        order[atomicAdd(placed, 1)] = u;
}

// The frontier order[head, tail): remove its nodes' edges, append nodes that become free.
__global__ void expand_level(const int *__restrict__ row_ptr, const int *__restrict__ col, int *order, int head,
                             int tail, int *indeg, int *placed)
{
    const int slot = head + blockIdx.x * THREADS + threadIdx.x;
    if (slot >= tail)
        return;
    const int u = order[slot];
    for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++) {
        const int v = col[k];
        if (atomicSub(&indeg[v], 1) == 1)
            order[atomicAdd(placed, 1)] = v;
    }
}

__global__ void write_status(const int *placed, int n, int *status) { *status = *placed < n ? 1 : 0; }

extern "C" void topo_sort(const int *row_ptr, const int *col, int n, int m, int *order, int *status,
                          cudaStream_t stream)
{
    if (n == 0) {
        cudaMemsetAsync(status, 0, sizeof(int), stream);
        return;
    }
    int *scratch = (int *)cudalab_scratch(((size_t)n + 64) * sizeof(int));
    if (!scratch) {
        fprintf(stderr, "topo_sort: no scratch memory for %d nodes\n", n);
        return;
    }
    int *placed = scratch, *indeg = scratch + 64; // the counter on its own 256-byte line
    cudaMemsetAsync(scratch, 0, ((size_t)n + 64) * sizeof(int), stream);
    if (m > 0) {
        int64_t blocks = ((int64_t)m + THREADS - 1) / THREADS;
        count_indegrees<<<(unsigned)(blocks < 65536 ? blocks : 65536), THREADS, 0, stream>>>(col, m, indeg);
    }
    first_frontier<<<(n + THREADS - 1) / THREADS, THREADS, 0, stream>>>(indeg, n, order, placed);
    int head = 0, tail = 0;
    cudaMemcpyAsync(&tail, placed, sizeof(int), cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    while (head < tail) {
        expand_level<<<(tail - head + THREADS - 1) / THREADS, THREADS, 0, stream>>>(row_ptr, col, order, head, tail,
                                                                                   indeg, placed);
        head = tail;
        cudaMemcpyAsync(&tail, placed, sizeof(int), cudaMemcpyDeviceToHost, stream);
        if (cudaStreamSynchronize(stream) != cudaSuccess)
            break;
    }
    write_status<<<1, 1, 0, stream>>>(placed, n, status);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        fprintf(stderr, "topo_sort: %s\n", cudaGetErrorString(err));
}
