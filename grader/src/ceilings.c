/* ceilings.c: running cudalab-probe and caching what it measured. */
#include "grader/ceilings.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "i18n.h"
#include "grader/compile.h"
#include "grader/proc.h"
#include "paths.h"

int cl_probe_json(const char *const *args, int nargs, double timeout_s, json_t **out, cl_err *err)
{
    char probe[CL_PATH_MAX];
    snprintf(probe, sizeof probe, "%s/cudalab-probe", cl_exe_dir());
    if (access(probe, X_OK) != 0)
        return cl_err_set(err, "%s is missing (this build has no CUDA support)", probe);
    char *argv[16];
    int argc = 0;
    argv[argc++] = probe;
    for (int i = 0; i < nargs && argc < 15; i++)
        argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    char *text;
    if (cl_proc_capture(argv, timeout_s, 1u << 20, &text, err) < 0)
        return -1;
    /* the JSON is the last line that starts with '{' (a library may print before it) */
    char *line = NULL;
    for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (*p == '{')
            line = p;
    json_error_t je;
    json_t *j = line ? json_loads(line, JSON_DISABLE_EOF_CHECK, &je) : NULL;
    if (!j) {
        cl_err_set(err, "cudalab-probe failed: %.300s", text ? text : "");
        free(text);
        return -1;
    }
    free(text);
    const char *e = json_string_value(json_object_get(j, "error"));
    if (e) {
        const char *detail = json_string_value(json_object_get(j, "detail"));
        cl_err_set(err, "%s%s%s", e, detail ? ": " : "", detail ? detail : "");
        json_decref(j);
        return -1;
    }
    *out = j;
    return 0;
}

static void from_json(json_t *j, cl_ceilings *c)
{
    const char *s;
    if ((s = json_string_value(json_object_get(j, "name")))) snprintf(c->name, sizeof c->name, "%s", s);
    if ((s = json_string_value(json_object_get(j, "uuid")))) snprintf(c->uuid, sizeof c->uuid, "%s", s);
#define GETI(k) c->k = (int)json_integer_value(json_object_get(j, #k))
#define GETF(k) c->k = json_number_value(json_object_get(j, #k))
    GETI(driver_version); GETI(runtime_version); GETI(cc_major); GETI(cc_minor); GETI(sms); GETI(clock_mhz);
    GETI(mem_clock_mhz); GETI(bus_width_bits); GETI(l2_bytes); GETI(smem_per_sm); GETI(fp16_gemm_n);
    GETF(copy_gbps); GETF(copy_kernel_gbps); GETF(memcpy_gbps); GETF(fp16_tflops); GETF(dram_peak_gbps);
    GETF(read_gbps); GETF(write_gbps); GETF(write_kernel_gbps); GETF(memset_gbps);
#undef GETI
#undef GETF
    c->mem_total = (long long)json_integer_value(json_object_get(j, "mem_total"));
    c->measured_at = (long long)json_integer_value(json_object_get(j, "measured_at"));
}

int cl_ceilings_get(int refresh, cl_ceilings *c, void (*progress)(void *, const char *), void *ctx, cl_err *err)
{
    memset(c, 0, sizeof *c);
    char dir[CL_PATH_MAX];
    if (cl_cache_dir(dir, sizeof dir, err))
        return -1;
    /* the cache is kept per GPU and driver: named by nvidia-smi (a few ms), else by the
     * probe (a CUDA process, a few hundred ms) */
    char uuid[80], driver[64];
    if (cl_gpu_identity(uuid, sizeof uuid, driver, sizeof driver) == 0) {
        snprintf(c->cache_path, sizeof c->cache_path, "%s/device-%s-%s.json", dir, uuid, driver);
    } else {
        json_t *id;
        const char *args_id[] = {"--identify"};
        if (cl_probe_json(args_id, 1, 120, &id, err))
            return -1;
        from_json(id, c);
        json_decref(id);
        snprintf(c->cache_path, sizeof c->cache_path, "%s/device-%s-%d.json", dir, c->uuid, c->driver_version);
    }
    if (!refresh && cl_file_exists(c->cache_path)) {
        json_error_t je;
        json_t *j = json_load_file(c->cache_path, 0, &je);
        /* a cache written before the read-only and write-only ceilings existed is stale */
        if (j && json_number_value(json_object_get(j, "copy_gbps")) > 0 &&
            json_number_value(json_object_get(j, "read_gbps")) > 0 &&
            json_number_value(json_object_get(j, "write_gbps")) > 0) {
            from_json(j, c);
            c->from_cache = 1;
            json_decref(j);
            return 0;
        }
        json_decref(j); /* unreadable cache: measure again */
    }
    if (progress)
        progress(ctx, CL_T("measuring this GPU's ceilings (copy, read and write bandwidth, cuBLAS fp16) - once per GPU and "
                           "driver"));
    json_t *j;
    const char *args[] = {"--ceilings"};
    if (cl_probe_json(args, 1, 600, &j, err))
        return -1;
    json_object_set_new(j, "measured_at", json_integer((json_int_t)time(NULL)));
    from_json(j, c);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(j);
    int rc = text ? cl_write_file_atomic(c->cache_path, text, strlen(text), err) : 0;
    free(text);
    return rc;
}

int cl_cublas_tflops(int n, const long long (*shapes)[3], double *tflops, cl_err *err)
{
    const char *args[16];
    char bufs[15][64];
    int na = 0;
    args[na++] = "--cublas";
    for (int i = 0; i < n && i < 14; i++) {
        snprintf(bufs[i], sizeof bufs[i], "%lld,%lld,%lld", shapes[i][0], shapes[i][1], shapes[i][2]);
        args[na++] = bufs[i];
    }
    json_t *j;
    if (cl_probe_json(args, na, 600, &j, err))
        return -1;
    json_t *arr = json_object_get(j, "cublas");
    for (int i = 0; i < n; i++)
        tflops[i] = json_number_value(json_object_get(json_array_get(arr, (size_t)i), "tflops"));
    json_decref(j);
    return 0;
}
