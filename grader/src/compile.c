/* compile.c: nvcc invocation, architecture choice, and the build cache. */
#include "grader/compile.h"

#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grader/ceilings.h"
#include "grader/proc.h"
#include "paths.h"
#include "strbuf.h"

#define NVCC_TIMEOUT_S 300
#define MAX_SOURCE_BYTES (4u << 20)

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

const char *cl_nvcc_path(void)
{
    static char path[CL_PATH_MAX];
    if (path[0])
        return path;
    const char *env = getenv("CUDALAB_NVCC");
    if (env && *env && access(env, X_OK) == 0) {
        snprintf(path, sizeof path, "%s", env);
        return path;
    }
    const char *p = getenv("PATH");
    if (p) {
        char *copy = strdup(p), *save = NULL;
        for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
            char cand[CL_PATH_MAX];
            snprintf(cand, sizeof cand, "%s/nvcc", dir);
            if (access(cand, X_OK) == 0) {
                snprintf(path, sizeof path, "%s", cand);
                break;
            }
        }
        free(copy);
        if (path[0])
            return path;
    }
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0) {
        snprintf(path, sizeof path, "/usr/local/cuda/bin/nvcc");
        return path;
    }
    return NULL;
}

int cl_cuda_tool(const char *name, char *out, size_t n)
{
    const char *nvcc = cl_nvcc_path();
    const char *slash = nvcc ? strrchr(nvcc, '/') : NULL;
    if (!slash)
        return -1;
    snprintf(out, n, "%.*s/%s", (int)(slash - nvcc), nvcc, name);
    return access(out, X_OK) == 0 ? 0 : -1;
}

/* nvidia-smi's answer to a --query-gpu for the first visible GPU (nvidia-smi numbers GPUs
 * its own way: it is passed the first CUDA_VISIBLE_DEVICES entry); NULL when none is
 * visible or nvidia-smi is missing or fails. The caller frees it. An answer is kept for
 * the life of the process (a ladder grades many steps; each asked nvidia-smi twice, 20 to
 * 80 ms a time on an H100 host). */
static char *smi_query(const char *fields)
{
    char sel[128] = "0";
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (cvd) {
        if (!*cvd || !strcmp(cvd, "-1") || !strcmp(cvd, "none"))
            return NULL; /* no device visible */
        snprintf(sel, sizeof sel, "%.*s", (int)strcspn(cvd, ","), cvd);
    }
    static struct {
        char fields[64], sel[128], *answer;
    } seen[4];
    for (size_t i = 0; i < sizeof seen / sizeof seen[0] && seen[i].answer; i++)
        if (!strcmp(seen[i].fields, fields) && !strcmp(seen[i].sel, sel))
            return strdup(seen[i].answer);
    char query[128];
    snprintf(query, sizeof query, "--query-gpu=%s", fields);
    char *argv[] = {"nvidia-smi", query, "--format=csv,noheader", "-i", sel, NULL};
    char *out = NULL;
    cl_err err;
    if (cl_proc_capture(argv, 20, 1u << 20, &out, &err) != 0) {
        free(out);
        return NULL;
    }
    for (size_t i = 0; i < sizeof seen / sizeof seen[0]; i++)
        if (out && !seen[i].answer && strlen(fields) < sizeof seen[i].fields) {
            snprintf(seen[i].fields, sizeof seen[i].fields, "%s", fields);
            snprintf(seen[i].sel, sizeof seen[i].sel, "%s", sel);
            seen[i].answer = strdup(out);
            break;
        }
    return out;
}

int cl_gpu_identity(char *uuid, size_t uuid_n, char *driver, size_t driver_n)
{
    char *out = smi_query("uuid,driver_version");
    char u[80] = "", d[64] = "";
    int ok = out && sscanf(out, "%79[^,], %63[0-9.]", u, d) == 2 && !strncmp(u, "GPU-", 4) && d[0];
    free(out);
    if (!ok)
        return -1;
    snprintf(uuid, uuid_n, "%s", u);
    snprintf(driver, driver_n, "%s", d);
    return 0;
}

void cl_detect_gpu(cl_gpu_info *gpu)
{
    memset(gpu, 0, sizeof *gpu);
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    if (cvd && (!*cvd || !strcmp(cvd, "-1") || !strcmp(cvd, "none")))
        return; /* no device visible */
    char *out = smi_query("compute_cap,name");
    cl_err err;
    if (out) {
        int ma, mi;
        char name[128] = "";
        if (sscanf(out, "%d.%d, %127[^\n]", &ma, &mi, name) >= 2) {
            gpu->present = 1;
            gpu->cc_major = ma;
            gpu->cc_minor = mi;
            snprintf(gpu->name, sizeof gpu->name, "%s", name);
        }
    }
    free(out);
    if (gpu->present)
        return;
    /* no nvidia-smi (some containers): ask our probe, which uses the CUDA runtime */
    const char *args[] = {"--identify"};
    json_t *id;
    if (cl_probe_json(args, 1, 60, &id, &err) == 0) {
        const char *name = json_string_value(json_object_get(id, "name"));
        gpu->present = 1;
        gpu->cc_major = (int)json_integer_value(json_object_get(id, "cc_major"));
        gpu->cc_minor = (int)json_integer_value(json_object_get(id, "cc_minor"));
        snprintf(gpu->name, sizeof gpu->name, "%s", name ? name : "");
        json_decref(id);
    }
}

static const char *nvcc_version(void)
{
    static char *ver;
    if (ver)
        return ver;
    const char *nvcc = cl_nvcc_path();
    char *argv[] = {(char *)nvcc, "--version", NULL};
    char *out = NULL;
    cl_err err;
    if (!nvcc || cl_proc_capture(argv, 30, 1u << 20, &out, &err) != 0) {
        free(out);
        out = strdup("unknown");
    }
    ver = out;
    return ver;
}

/* "90", "sm_90", "sm_90a", "compute_90" -> digits and suffix. */
static int parse_arch(const char *s, char *digits, size_t n, char *suffix)
{
    if (!strncmp(s, "sm_", 3))
        s += 3;
    else if (!strncmp(s, "compute_", 8))
        s += 8;
    size_t i = 0;
    while (isdigit((unsigned char)s[i]) && i + 1 < n) {
        digits[i] = s[i];
        i++;
    }
    digits[i] = '\0';
    *suffix = (s[i] == 'a' || s[i] == 'f') ? s[i] : '\0';
    if (i < 2 || (s[i] && !(s[i + 1] == '\0' && *suffix)))
        return -1;
    return 0;
}

/* The source, read whole into *src, and its absolute path; a file with NUL bytes is not
 * source. */
static int read_source(const char *path, char *abs_src, char **src, size_t *len, cl_err *err)
{
    if (!realpath(path, abs_src))
        return cl_err_set(err, "%s: no such file", path);
    if (cl_read_file(abs_src, MAX_SOURCE_BYTES, src, len, err))
        return -1;
    if (memchr(*src, '\0', *len)) {
        free(*src);
        return cl_err_set(err, "%s is not a text file (it contains NUL bytes)", path);
    }
    return 0;
}

/* The architecture: --arch, or this GPU's (sm_80 without one) with the lab's suffix on
 * sm_90 and newer. Sets res->arch (and res->note without a GPU) and the -gencode value. */
static int choose_arch(const cl_compile_opts *o, cl_compile_result *res, char *gencode, size_t n, cl_err *err)
{
    char digits[8] = "80", suffix = '\0';
    if (o->arch && *o->arch) {
        if (parse_arch(o->arch, digits, sizeof digits, &suffix))
            return cl_err_set(err, "--arch '%s' is not an architecture (e.g. sm_90, sm_86)", o->arch);
    } else {
        cl_gpu_info detected;
        const cl_gpu_info *gpu = o->gpu;
        if (!gpu) {
            cl_detect_gpu(&detected);
            gpu = &detected;
        }
        if (gpu->present) {
            snprintf(digits, sizeof digits, "%d%d", gpu->cc_major, gpu->cc_minor);
        } else {
            snprintf(res->note, sizeof res->note, "no GPU found: compiled for sm_80 (choose with --arch)");
        }
        if (o->arch_suffix && *o->arch_suffix && atoi(digits) >= 90)
            suffix = o->arch_suffix[0];
    }
    /* --arch compute_XX: PTX only, which the driver JIT-compiles for the GPU it runs on (the
     * GPU suite runs older architectures' code paths this way) */
    const char *code = o->arch && !strncmp(o->arch, "compute_", 8) ? "compute" : "sm";
    snprintf(res->arch, sizeof res->arch, "%s_%s%s", code, digits, suffix ? (char[]){suffix, 0} : "");
    snprintf(gencode, n, "arch=compute_%s%s,code=%s_%s%s", digits, suffix ? (char[]){suffix, 0} : "", code, digits,
             suffix ? (char[]){suffix, 0} : "");
    return 0;
}

/* The cache key: everything that changes the output (the source, the ABI header, the
 * flags, the architecture, -lineinfo, the compiler's version). */
static int cache_key(const char *src, size_t src_len, const char *include_dir, const char *flags, const char *gencode,
                     int lineinfo, uint64_t *key, cl_err *err)
{
    char header[CL_PATH_MAX];
    snprintf(header, sizeof header, "%s/cudalab_lab.h", include_dir);
    char *hdr = NULL;
    size_t hdr_len = 0;
    if (cl_read_file(header, 1u << 20, &hdr, &hdr_len, err))
        return -1;
    uint64_t h = 0xCBF29CE484222325ull;
    h = fnv1a(h, src, src_len);
    h = fnv1a(h, hdr, hdr_len);
    h = fnv1a(h, flags, strlen(flags));
    h = fnv1a(h, gencode, strlen(gencode));
    h = fnv1a(h, lineinfo ? "L" : "-", 1);
    const char *ver = nvcc_version();
    h = fnv1a(h, ver, strlen(ver));
    free(hdr);
    *key = h;
    return 0;
}

/* nvcc's command line: fixed flags, the lab's flags split on spaces, then the source. */
typedef struct nvcc_cmd {
    char *argv[64];
    char inc1[CL_PATH_MAX + 2], inc2[CL_PATH_MAX + 2];
    char *flags_copy; /* what argv's lab flags point into */
} nvcc_cmd;

static void nvcc_command(nvcc_cmd *c, const char *nvcc, const char *gencode, const char *include_dir,
                         const char *src_dir, int lineinfo, const char *flags, const char *out, const char *src)
{
    int argc = 0;
    snprintf(c->inc1, sizeof c->inc1, "-I%s", include_dir);
    snprintf(c->inc2, sizeof c->inc2, "-I%s", src_dir);
    const char *fixed[] = {nvcc, "-O3", "-std=c++17", "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared",
                           "-gencode", gencode, c->inc1, c->inc2};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        c->argv[argc++] = (char *)fixed[i];
    if (lineinfo)
        c->argv[argc++] = "-lineinfo";
    char *save = NULL;
    c->flags_copy = strdup(flags);
    for (char *t = strtok_r(c->flags_copy, " \t", &save); t && argc < 56; t = strtok_r(NULL, " \t", &save))
        c->argv[argc++] = t;
    c->argv[argc++] = "-o";
    c->argv[argc++] = (char *)out;
    c->argv[argc++] = (char *)src;
    c->argv[argc] = NULL;
}

/* Runs nvcc in the source's folder; res gets the time, the log (with a note when nvcc ran
 * out of time) and ok when it made tmp_so. */
static int run_nvcc(char **argv, const char *src_dir, const char *tmp_so, cl_compile_result *res, cl_err *err)
{
    cl_proc_opts po = {0};
    po.argv = argv;
    po.timeout_s = NVCC_TIMEOUT_S;
    po.output_cap = 256u << 10;
    po.cwd = src_dir;
    cl_proc_result pr;
    if (cl_proc_run(&po, &pr, err))
        return -1;
    res->seconds = pr.seconds;
    if (pr.output_len)
        res->log = strdup(pr.output);
    if (pr.timed_out) {
        char *old = res->log;
        cl_strbuf sb;
        cl_sb_init(&sb);
        cl_sb_printf(&sb, "%snvcc did not finish within %d s", old ? old : "", NVCC_TIMEOUT_S);
        free(old);
        res->log = cl_sb_take(&sb);
    }
    res->ok = pr.exited && pr.exit_code == 0 && cl_file_exists(tmp_so);
    cl_proc_result_free(&pr);
    return 0;
}

/* Source -> architecture -> cache key; a hit is done, a miss runs nvcc into a temporary
 * file and moves it into the cache, so a half-written solution.so is never seen. */
int cl_compile(const cl_compile_opts *o, cl_compile_result *res, cl_err *err)
{
    memset(res, 0, sizeof *res);
    const char *nvcc = cl_nvcc_path();
    if (!nvcc)
        return cl_err_set(err, "nvcc was not found (install the CUDA toolkit, or set CUDALAB_NVCC)");
    char abs_src[CL_PATH_MAX];
    char *src;
    size_t src_len;
    if (read_source(o->source, abs_src, &src, &src_len, err))
        return -1;
    char gencode[96];
    if (choose_arch(o, res, gencode, sizeof gencode, err)) {
        free(src);
        return -1;
    }
    char include_dir[CL_PATH_MAX];
    snprintf(include_dir, sizeof include_dir, "%s/labs/include", cl_home_dir());
    const char *flags = o->extra_flags ? o->extra_flags : "";
    uint64_t h;
    int rc = cache_key(src, src_len, include_dir, flags, gencode, o->lineinfo, &h, err);
    free(src);
    if (rc)
        return -1;

    char cache[CL_PATH_MAX], dir[CL_PATH_MAX];
    if (cl_cache_dir(cache, sizeof cache, err))
        return -1;
    snprintf(dir, sizeof dir, "%s/build/%016llx", cache, (unsigned long long)h);
    snprintf(res->so_path, sizeof res->so_path, "%s/solution.so", dir);
    if (cl_file_exists(res->so_path)) {
        res->ok = 1;
        res->cached = 1;
        return 0;
    }
    if (cl_mkdirs(dir, err))
        return -1;

    char src_dir[CL_PATH_MAX], tmp_so[CL_PATH_MAX];
    snprintf(src_dir, sizeof src_dir, "%s", abs_src);
    *strrchr(src_dir, '/') = '\0';
    snprintf(tmp_so, sizeof tmp_so, "%s/solution.so.%d.tmp", dir, (int)getpid());
    nvcc_cmd cmd;
    nvcc_command(&cmd, nvcc, gencode, include_dir, src_dir, o->lineinfo, flags, tmp_so, abs_src);
    cl_strbuf line;
    cl_sb_init(&line);
    for (int i = 0; cmd.argv[i]; i++)
        cl_sb_printf(&line, "%s%s", i ? " " : "", cmd.argv[i]);
    snprintf(res->command, sizeof res->command, "%s", cl_sb_str(&line));
    cl_sb_free(&line);
    rc = run_nvcc(cmd.argv, src_dir, tmp_so, res, err);
    free(cmd.flags_copy);
    if (rc)
        return -1;
    if (res->ok && rename(tmp_so, res->so_path) != 0)
        return cl_err_set(err, "cannot move %s into the build cache", tmp_so);
    if (!res->ok)
        unlink(tmp_so);
    return 0;
}

void cl_compile_result_free(cl_compile_result *res)
{
    free(res->log);
    res->log = NULL;
}
