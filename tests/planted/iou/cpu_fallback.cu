// expect: slow
// expect-timeout: 120
/* cpu_fallback.cu: a planted bad solution to the iou lab.
 * What is wrong: nothing in the answer. It copies both box sets to the host, computes the
 * m x n matrix on the CPU (all cores, pinned buffers, so it is as fast as a CPU fallback
 * gets) and copies it back: correct, but the 819 MB output crosses PCIe and the
 * arithmetic runs on a few cores. Expected verdict: slow (correct, below the pass tier). */
#include <thread>
#include <vector>

#include "cudalab_lab.h"

static float *h_a, *h_b, *h_out;
static size_t cap_a, cap_b, cap_out;

static inline float pos(float v) { return v > 0.f ? v : 0.f; }
static inline float lo(float a, float b) { return a < b ? a : b; }
static inline float hi(float a, float b) { return a > b ? a : b; }

static float *grow(float *p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return p;
    if (p)
        cudaFreeHost(p);
    if (cudaMallocHost((void **)&p, need) != cudaSuccess)
        return nullptr;
    *cap = need;
    return p;
}

static void rows(int i0, int i1, int n)
{
    for (int i = i0; i < i1; i++) {
        const float *p = h_a + 4 * (size_t)i;
        float aa = pos(p[2] - p[0]) * pos(p[3] - p[1]);
        float *o = h_out + (size_t)i * n;
        for (int j = 0; j < n; j++) {
            const float *q = h_b + 4 * (size_t)j;
            float ab = pos(q[2] - q[0]) * pos(q[3] - q[1]);
            float iw = pos(lo(p[2], q[2]) - hi(p[0], q[0]));
            float ih = pos(lo(p[3], q[3]) - hi(p[1], q[1]));
            float inter = iw * ih, uni = aa + ab - inter;
            o[j] = uni > 0.f ? inter / uni : 0.f;
        }
    }
}

extern "C" void box_iou(const float *a, int m, const float *b, int n, float *out,
                        cudaStream_t stream)
{
    if (m <= 0 || n <= 0)
        return;
    h_a = grow(h_a, &cap_a, (size_t)m * 16);
    h_b = grow(h_b, &cap_b, (size_t)n * 16);
    h_out = grow(h_out, &cap_out, (size_t)m * n * 4);
    if (!h_a || !h_b || !h_out)
        return;
    cudaMemcpyAsync(h_a, a, (size_t)m * 16, cudaMemcpyDeviceToHost, stream);
    cudaMemcpyAsync(h_b, b, (size_t)n * 16, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    unsigned t = std::thread::hardware_concurrency();
    t = t < 1 ? 1 : (t > 16 ? 16 : t);
    std::vector<std::thread> pool;
    int done = 0; /* rows handed out; if a thread cannot start, this thread does the rest */
    for (unsigned k = 0; k < t; k++) {
        int i0 = (int)((long long)m * k / t), i1 = (int)((long long)m * (k + 1) / t);
        try {
            pool.emplace_back(rows, i0, i1, n);
            done = i1;
        } catch (...) {
            break;
        }
    }
    rows(done, m, n);
    for (auto &th : pool)
        th.join();
    cudaMemcpyAsync(out, h_out, (size_t)m * n * 4, cudaMemcpyHostToDevice, stream);
    cudaStreamSynchronize(stream);
}
