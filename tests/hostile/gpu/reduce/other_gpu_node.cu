// expect: correct
// expect-env: CUDA_VISIBLE_DEVICES=0
// Issue 14, item 4 (in a class run each worker's solution can open only its own GPU): a
// worker's GPU is the one CUDA_VISIBLE_DEVICES names, and this solution goes around the
// runtime to the device nodes. It tries an ioctl on every /dev/nvidiaN; Landlock answers
// EACCES on a hidden node before the driver sees the call, the driver answers anything else.
// More than one node answering means another worker's GPU was within reach: it then returns
// a wrong sum. Fair: correct (only its own node answers). On a machine with one GPU this
// proves nothing; the GPU suite runs it on two (docs/grading-policy.md).
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hostile_sum.cuh"

static int nodes_within_reach(void)
{
    int reached = 0;
    DIR *d = opendir("/dev");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int minor;
        char rest;
        if (sscanf(e->d_name, "nvidia%d%c", &minor, &rest) != 1)
            continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        int fd = open(path, O_RDWR);
        const char *how = "opened for writing";
        if (fd < 0) {
            fd = open(path, O_RDONLY);
            how = "opened read-only";
        }
        if (fd < 0) {
            printf("other_gpu_node: %s: refused (%d)\n", path, errno);
            continue;
        }
        /* an ioctl no driver knows: the driver says EINVAL or ENOTTY, Landlock EACCES */
        int rc = ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, 'F', 0xfe, 0), NULL);
        int reach = !(rc < 0 && errno == EACCES);
        printf("other_gpu_node: %s: %s, ioctl %s (%d)\n", path, how, reach ? "reached the driver" : "refused",
               rc < 0 ? errno : 0);
        reached += reach;
        close(fd);
    }
    if (d)
        closedir(d);
    return reached;
}

extern "C" void reduce_sum(const float *in, float *out, int64_t n, cudaStream_t stream)
{
    static int reached = -1;
    if (reached < 0)
        reached = nodes_within_reach();
    honest_sum(in, out, n > 1 && reached > 1 ? n - 1 : n, stream); /* another GPU in reach: wrong */
}
