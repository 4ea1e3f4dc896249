/* occupancy_crosscheck.cu: cl_occupancy_calc (questions/gen/occupancy.c) against the
 * CUDA toolkit's own occupancy calculator, cuda_occupancy.h, on 50,000 random launch
 * configurations over sm_70..sm_90 with the largest shared-memory carveout. Host code
 * only: built with nvcc, runs without a GPU. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda_occupancy.h>

extern "C" {
#include "questions/families.h"
}

struct arch_props {
    const char *sm;
    int major, minor, max_threads;
};

int main()
{
    static const arch_props archs[] = {{"sm_70", 7, 0, 2048}, {"sm_75", 7, 5, 1024}, {"sm_80", 8, 0, 2048},
                                       {"sm_86", 8, 6, 1536}, {"sm_89", 8, 9, 1536}, {"sm_90", 9, 0, 2048}};
    unsigned rng = 12345;
    int compared = 0, mismatches = 0;
    for (int it = 0; it < 50000; it++) {
        rng = rng * 1664525u + 1013904223u;
        const arch_props &ap = archs[(rng >> 8) % 6];
        const cl_arch *a = cl_arch_find(ap.sm);
        rng = rng * 1664525u + 1013904223u;
        int threads = (rng >> 4) % 4 ? 32 * (1 + (rng >> 8) % 32) : 1 + (rng >> 8) % 1024;
        rng = rng * 1664525u + 1013904223u;
        int regs = 16 + (rng >> 8) % 240;
        rng = rng * 1664525u + 1013904223u;
        int smem = (rng >> 4) % 3 ? (int)((rng >> 8) % (unsigned)(a->smem_block - a->smem_reserved + 1)) : 0;

        cudaOccDeviceProp p;
        p.computeMajor = ap.major;
        p.computeMinor = ap.minor;
        p.maxThreadsPerBlock = 1024;
        p.maxThreadsPerMultiprocessor = ap.max_threads;
        p.regsPerBlock = a->regs;
        p.regsPerMultiprocessor = a->regs;
        p.warpSize = 32;
        p.sharedMemPerBlock = 49152;
        p.sharedMemPerMultiprocessor = a->smem_sm;
        p.numSms = 80;
        p.sharedMemPerBlockOptin = a->smem_block;
        p.reservedSharedMemPerBlock = a->smem_reserved;
        cudaOccFuncAttributes f;
        f.maxThreadsPerBlock = 1024;
        f.numRegs = regs;
        f.partitionedGCConfig = PARTITIONED_GC_OFF;
        f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
        f.maxDynamicSharedSizeBytes = a->smem_block - a->smem_reserved;
        cudaOccDeviceState s;
        s.carveoutConfig = SHAREDMEM_CARVEOUT_MAX_SHARED;
        cudaOccResult r;
        memset(&r, 0, sizeof r);
        if (cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &f, &s, threads, smem) != CUDA_OCC_SUCCESS)
            continue;
        cl_occupancy o;
        int mine = cl_occupancy_calc(a, threads, regs, smem, &o) ? 0 : o.blocks;
        compared++;
        if (mine != r.activeBlocksPerMultiprocessor && mismatches++ < 10)
            printf("MISMATCH %s threads=%d regs=%d smem=%d: cudalab %d blocks, cuda_occupancy.h %d\n", ap.sm,
                   threads, regs, smem, mine, r.activeBlocksPerMultiprocessor);
    }
    printf("occupancy: %d configurations compared, %d mismatches\n", compared, mismatches);
    return mismatches || compared < 40000 ? 1 : 0;
}
