/* profile_run.c: finding the solution's kernels and running ncu on them. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader/compile.h"
#include "grader/proc.h"
#include "grader/profile.h"
#include "paths.h"

int cl_profile_stub_name(const char *sym, char *out, size_t n)
{
    /* _Z<len>__device_stub__<kernel's mangled name without its leading '_'>... */
    const char *p = strstr(sym, "__device_stub__");
    if (!p)
        return -1;
    p += strlen("__device_stub__");
    if (*p != 'Z')
        return -1; /* an extern "C" kernel: __device_stub__name */
    p++;
    const char *last = NULL;
    size_t last_len = 0;
    int nested = *p == 'N';
    if (nested) p++;
    while (*p && *p != 'E' && *p != 'I') {
        if (*p == 'L') { p++; continue; } /* internal linkage marker */
        if (!isdigit((unsigned char)*p))
            break;
        size_t len = strtoul(p, (char **)&p, 10);
        if (strlen(p) < len)
            return -1;
        last = p;
        last_len = len;
        p += len;
        if (!nested) break;
    }
    if (!last || last_len == 0 || last_len >= n)
        return -1;
    memcpy(out, last, last_len);
    out[last_len] = '\0';
    return 0;
}

int cl_profile_kernel_names(const char *so, char ***names, cl_err *err)
{
    *names = NULL;
    char *argv[] = {"nm", "--defined-only", (char *)so, NULL}, *out = NULL;
    int rc = cl_proc_capture(argv, 60, 16u << 20, &out, err);
    if (rc) {
        if (rc > 0) cl_err_set(err, "nm %s: %s", so, out ? out : "failed");
        else cl_err_wrap(err, "nm (binutils)");
        free(out);
        return -1;
    }
    int n = 0, cap = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        const char *sym = strrchr(line, ' ');
        sym = sym ? sym + 1 : line;
        char name[256];
        if (strncmp(sym, "_Z", 2) || !strstr(sym, "__device_stub__") || cl_profile_stub_name(sym, name, sizeof name))
            continue;
        /* (a template kernel's stub is inlined away: only its statics are left, _ZZL53__device_stub__...,
         * and they name the kernel just as well) */
        int dup = 0;
        for (int i = 0; i < n; i++) dup |= !strcmp((*names)[i], name);
        if (dup) continue;
        if (n == cap) *names = realloc(*names, (size_t)(cap = cap ? 2 * cap : 8) * sizeof **names);
        (*names)[n++] = strdup(name);
    }
    free(out);
    return n;
}

static const char PERM_HELP[] =
    "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM). Either run as root, or let every "
    "user profile: add the line 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a file in "
    "/etc/modprobe.d/, then rebuild the initramfs (update-initramfs -u) and reboot. In a container, start it "
    "with --cap-add=SYS_ADMIN. https://developer.nvidia.com/ERR_NVGPUCTRPERM";

int cl_profile_run(const cl_profile_opts *o, cl_ncu_report *rep, cl_err *err)
{
    memset(rep, 0, sizeof *rep);
    char ncu[CL_PATH_MAX];
    const char *env = getenv("CUDALAB_NCU");
    if (env && *env ? access(env, X_OK) != 0 : cl_cuda_tool("ncu", ncu, sizeof ncu) != 0)
        return cl_err_set(err, "ncu (Nsight Compute) was not found next to nvcc or on PATH: it ships with the CUDA "
                               "toolkit (Debian/Ubuntu package cuda-nsight-compute-<version>, or NVIDIA's "
                               "nsight-compute installer); CUDALAB_NCU names it if it is elsewhere");
    if (env && *env)
        snprintf(ncu, sizeof ncu, "%s", env);
    char **kernels;
    int nk = cl_profile_kernel_names(o->solution_so, &kernels, err);
    if (nk < 0)
        return -1;
    if (nk == 0)
        return cl_err_set(err, "found no __global__ function in %s to profile", o->solution_so);
    /* ncu's function name keeps a template's arguments (transpose_tile<4>) and may keep a
     * namespace: the kernel's own name, with either around it */
    char filter[4096] = "regex:^(.*::)?(";
    for (int i = 0; i < nk; i++) {
        size_t len = strlen(filter);
        snprintf(filter + len, sizeof filter - len, "%s%s", i ? "|" : "", kernels[i]);
        free(kernels[i]);
    }
    free(kernels);
    strncat(filter, ")(<.*>)?$", sizeof filter - strlen(filter) - 1);
    char dir[] = "/tmp/cudalab-ncu-XXXXXX";
    if (!mkdtemp(dir))
        return cl_err_set(err, "cannot make a temporary folder for ncu's report");
    char log[CL_PATH_MAX], seed[32], count[16];
    snprintf(log, sizeof log, "%s/ncu.csv", dir);
    snprintf(seed, sizeof seed, "%llu", o->seed);
    snprintf(count, sizeof count, "%d", o->launch_count > 0 ? o->launch_count : 5);
    char *argv[] = {ncu, "--csv", "--page", "raw", "--print-units", "base", "--target-processes", "all",
                    "--kernel-name-base", "function", "--kernel-name", filter, "--launch-count", count,
                    "--metrics", (char *)CL_NCU_METRICS, "--log-file", log,
                    (char *)o->runner, "--lab-yaml", (char *)o->lab_yaml, "--solution", (char *)o->solution_so,
                    "--mode", "bench", "--case", (char *)o->bench_case, "--profiled", "--verdict-fd", "1",
                    NULL};
    /* the judge takes its secrets on stdin only; this run is not graded, its verdict lines
     * go to the captured output */
    char stdin_line[64];
    snprintf(stdin_line, sizeof stdin_line, "profile %s\n", seed);
    cl_proc_opts po = {0};
    po.argv = argv;
    po.stdin_data = stdin_line;
    po.timeout_s = o->timeout_s > 0 ? o->timeout_s : 600;
    po.output_cap = 1u << 20;
    cl_proc_result pr;
    int rc = cl_proc_run(&po, &pr, err);
    char *csv = NULL;
    size_t len;
    cl_err ignore, why = {0};
    if (rc == 0) {
        int have = cl_read_file(log, 64u << 20, &csv, &len, &ignore) == 0;
        const char *all = pr.output ? pr.output : "";
        if (strstr(all, "ERR_NVGPUCTRPERM") || (have && strstr(csv, "ERR_NVGPUCTRPERM")))
            rc = cl_err_set(err, "%s", PERM_HELP);
        else if (!have || cl_ncu_parse_csv(csv, rep, &why)) {
            char how[128];
            cl_proc_describe(&pr, po.timeout_s, how, sizeof how);
            size_t n = strlen(all);
            rc = cl_err_set(err, "ncu (%s) gave no usable report (%s%s%.600s)%s%s", how,
                            have ? why.msg : "it wrote no log", have ? "; its log: " : "", have ? csv : "",
                            n ? ":\n" : "", n > 1200 ? all + n - 1200 : all);
        }
    }
    free(csv);
    cl_proc_result_free(&pr);
    cl_rmtree(dir, &ignore);
    return rc;
}
