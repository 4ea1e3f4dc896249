/* nms_checker_cpu.c: the nms checker's CPU work on one clustered input, timed: det_clean
 * (every overlapping pair moved away from t), greedy NMS on one thread (det_nms_cpu, what
 * a failing answer's report compares with) and the check of an answer against the greedy
 * rule on every core (det_nms_is_greedy). The boxes are like the lab's "clusters" bench
 * input (objects of side 8 to 96 on a 2048 canvas, 16 boxes each, edges jittered by 15%)
 * from a small LCG, not the checker's generator. Each figure is the mean over 5 inputs.
 *   cc -O3 -Igrader/labs -o /tmp/nms_checker_cpu bench/dev/det/nms_checker_cpu.c -lm -lpthread
 *   /tmp/nms_checker_cpu [n]     (n boxes, default 50000) */
#include <stdio.h>
#include <time.h>

#include "det_boxes.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* uniform in [lo, hi] from a 64-bit LCG */
static int uniform(unsigned long long *s, int lo, int hi)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return lo + (int)((*s >> 33) % (unsigned)(hi - lo + 1));
}

static int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static void clustered_boxes(det_box *b, float *score, int n, unsigned long long seed)
{
    const int canvas = 2048, size = 96, objects = n / 16 > 0 ? n / 16 : 1;
    int *obj = malloc((size_t)objects * 4 * sizeof(int));
    for (int k = 0; k < objects; k++) {
        int w = uniform(&seed, 8, size), h = uniform(&seed, 8, size);
        obj[4 * k] = w;
        obj[4 * k + 1] = h;
        obj[4 * k + 2] = uniform(&seed, w / 2, canvas - w / 2);
        obj[4 * k + 3] = uniform(&seed, h / 2, canvas - h / 2);
    }
    for (int i = 0; i < n; i++) {
        const int *o = obj + 4 * uniform(&seed, 0, objects - 1);
        int jx = o[0] * 15 / 100 + 1, jy = o[1] * 15 / 100 + 1;
        int x1 = clamp(o[2] - o[0] / 2 + uniform(&seed, -jx, jx), 0, canvas - 2);
        int y1 = clamp(o[3] - o[1] / 2 + uniform(&seed, -jy, jy), 0, canvas - 2);
        int x2 = clamp(o[2] + o[0] / 2 + uniform(&seed, -jx, jx), x1 + 1, canvas - 1);
        int y2 = clamp(o[3] + o[1] / 2 + uniform(&seed, -jy, jy), y1 + 1, canvas - 1);
        b[i] = (det_box){(float)x1, (float)y1, (float)x2, (float)y2};
        score[i] = (float)uniform(&seed, 0, 1 << 24) / (float)(1 << 24);
    }
    free(obj);
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 50000, reps = 5;
    const float t = 0.5f;
    if (n < 1)
        return 2;
    size_t un = (size_t)n;
    det_box *b = malloc(un * sizeof *b), *kb = malloc(un * sizeof *kb);
    float *score = malloc(un * sizeof *score);
    int *start = malloc(((size_t)DET_GRID_MAX * DET_GRID_MAX + 1) * sizeof(int)), *items = malloc(un * sizeof(int));
    int *order = malloc(un * sizeof(int)), *rank = malloc(un * sizeof(int)), *sup = malloc(un * sizeof(int));
    int *keep = malloc(un * sizeof(int)), *krank = malloc(un * sizeof(int));
    unsigned char *listed = malloc(un);
    uint32_t *tmp = malloc(2 * un * sizeof(uint32_t));
    if (!b || !kb || !score || !start || !items || !order || !rank || !sup || !keep || !krank || !listed || !tmp)
        return 1;
    double clean = 0, greedy = 0, check = 0;
    for (int rep = 0; rep < reps; rep++) {
        clustered_boxes(b, score, n, (unsigned long long)rep + 1);
        double t0 = now_s();
        int moved = det_clean(b, n, t, 1e-5, 2048, start, items);
        double t1 = now_s();
        det_rank(score, n, tmp, order, rank);
        double t2 = now_s();
        int k = det_nms_cpu(b, n, t, order, rank, sup, keep, start, items);
        double t3 = now_s();
        int ok = det_nms_is_greedy(b, n, t, rank, keep, k, kb, krank, listed, start, items);
        double t4 = now_s();
        if (moved < 0 || k < 0 || !ok) {
            printf("FAILED: moved %d, kept %d, greedy check %d\n", moved, k, ok);
            return 1;
        }
        if (rep == 0)
            printf("%d boxes: %d moved by det_clean, %d kept\n", n, moved, k);
        clean += t1 - t0;
        greedy += t3 - t2;
        check += t4 - t3;
    }
    printf("per input: det_clean %.2f ms, det_nms_cpu (1 thread) %.2f ms, det_nms_is_greedy %.2f ms (up to %d threads)\n",
           clean / reps * 1e3, greedy / reps * 1e3, check / reps * 1e3, CL_PAR_MAX);
    return 0;
}
