/* exec_main.c: cudalab-exec, the process a solution runs in. It holds nothing worth
 * stealing: no seed, no inputs of its own, no checker, no verdict channel, no clock of
 * record. The judge (cudalab-run) starts it with a socket as descriptor 3 and drives it:
 *
 *   1. the device comes up, the judge's shared buffers are mapped (inputs read-only), and
 *      the judge calibrates its clock against calls of the exec's own copy kernel;
 *   2. LM_LOAD: the jail is entered (jail.c) and only then is the solution dlopen'ed;
 *   3. for each call: LM_CALL describes the arguments (callargs.h), the exec rebuilds them
 *      against its own mappings and calls the entry point through libffi, between its own
 *      timing marks, gated by the judge (the go word on the GPU, LM_GO on the host backend),
 *      and reports LM_DONE with its own time, which the judge only ever uses as bounded by
 *      its bracket.
 *
 *   cudalab-exec --solution SO --entry NAME [--sanitized | --name-kernels]
 *
 * It also exports cudalab_scratch to solutions. */
#include <dlfcn.h>
#include <ffi.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "exec_backend.h"
#include "jail.h"
#include "link_proto.h"

typedef struct mapped {
    void *ptr;
    size_t bytes;
    int readonly;
} mapped;

static mapped g_bufs[CL_MAX_SHARED];
static int g_sock = CL_EXEC_FD;
static volatile uint64_t g_k; /* the call in progress */

/* A write into a read-only input faults here (host backend): say which buffer before dying,
 * so the verdict names the input rather than a bare signal. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    static cl_lmsg m;
    for (int i = 0; i < CL_MAX_SHARED; i++) {
        const char *p = g_bufs[i].ptr, *a = si->si_addr;
        if (p && g_bufs[i].readonly && a >= p && a < p + g_bufs[i].bytes) {
            m.type = LM_DONE;
            m.status = CL_DS_READONLY;
            m.k = g_k;
            m.id = i;
            cl_lm_send(g_sock, &m, -1);
            break;
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- cudalab_scratch, exported to solutions (lives in the exec's own context) ---- */

void *cudalab_scratch(size_t bytes)
{
    static void *scratch;
    static size_t have;
    if (scratch && bytes <= have)
        return scratch;
    if (scratch)
        xb_scratch_free(scratch);
    size_t want = bytes + bytes / 4; /* headroom, to avoid reallocating each call */
    scratch = xb_scratch_alloc(want ? want : 256);
    have = scratch ? want : 0;
    return scratch;
}

/* ---- one call, rebuilt from its description ---- */

typedef struct call {
    void *entry;
    int builtin;
    ffi_cif cif;
    ffi_type *types[CL_MAX_ARGS + 1];
    void *values[CL_MAX_ARGS + 1];
    union {
        void *p;
        int32_t i32;
        int64_t i64;
        float f;
    } store[CL_MAX_ARGS + 1];
    unsigned char blob[CL_MAX_BLOB] __attribute__((aligned(16)));
    void *copy_dst;
    const void *copy_src;
    size_t copy_bytes;
} call;

static int resolve(int32_t buf, uint64_t off, void **out, char *err, size_t n)
{
    if (buf == -1) {
        *out = NULL;
        return 0;
    }
    if (buf < 0 || buf >= CL_MAX_SHARED || !g_bufs[buf].ptr || off > g_bufs[buf].bytes) {
        snprintf(err, n, "argument refers to buffer %d + %llu, which is not mapped", (int)buf,
                 (unsigned long long)off);
        return -1;
    }
    *out = (char *)g_bufs[buf].ptr + off;
    return 0;
}

static int build_call(call *c, const cl_args *a, char *err, size_t n)
{
    if (a->n < 0 || a->n > CL_MAX_ARGS || a->blob_len > CL_MAX_BLOB || a->nptr < 0 ||
        a->nptr > CL_MAX_BLOB_PTRS || a->overflow) {
        snprintf(err, n, "malformed call description");
        return -1;
    }
    if (c->builtin) { /* calibration: copy args 1 -> 0, args 2 bytes */
        if (a->n != 3 || a->a[0].kind != CL_ARG_PTR || a->a[1].kind != CL_ARG_PTR || a->a[2].kind != CL_ARG_I64 ||
            resolve(a->a[0].buf, a->a[0].off, &c->copy_dst, err, n) ||
            resolve(a->a[1].buf, a->a[1].off, (void **)&c->copy_src, err, n)) {
            if (!err[0])
                snprintf(err, n, "malformed calibration call");
            return -1;
        }
        c->copy_bytes = (size_t)a->a[2].i;
        return 0;
    }
    memcpy(c->blob, a->blob, a->blob_len);
    for (int i = 0; i < a->nptr; i++) {
        void *p;
        if (a->ptr[i].at + sizeof p > a->blob_len || resolve(a->ptr[i].buf, a->ptr[i].off, &p, err, n)) {
            if (!err[0])
                snprintf(err, n, "malformed pointer field in the call's struct");
            return -1;
        }
        memcpy(c->blob + a->ptr[i].at, &p, sizeof p);
    }
    int k;
    for (k = 0; k < a->n; k++) {
        const cl_arg *x = &a->a[k];
        switch (x->kind) {
        case CL_ARG_PTR:
            if (resolve(x->buf, x->off, &c->store[k].p, err, n))
                return -1;
            c->types[k] = &ffi_type_pointer;
            break;
        case CL_ARG_BLOB: c->store[k].p = c->blob; c->types[k] = &ffi_type_pointer; break;
        case CL_ARG_I32: c->store[k].i32 = (int32_t)x->i; c->types[k] = &ffi_type_sint32; break;
        case CL_ARG_I64: c->store[k].i64 = x->i; c->types[k] = &ffi_type_sint64; break;
        case CL_ARG_F32: c->store[k].f = x->f; c->types[k] = &ffi_type_float; break;
        default: snprintf(err, n, "unknown argument kind %d", (int)x->kind); return -1;
        }
        c->values[k] = &c->store[k];
    }
    c->store[k].p = xb_stream(); /* every entry point takes the stream last */
    c->types[k] = &ffi_type_pointer;
    c->values[k] = &c->store[k];
    if (ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, (unsigned)k + 1, &ffi_type_void, c->types) != FFI_OK) {
        snprintf(err, n, "libffi could not prepare the call");
        return -1;
    }
    return 0;
}

static void do_call(void *vc)
{
    call *c = vc;
    if (c->builtin)
        xb_builtin_copy(c->copy_dst, c->copy_src, c->copy_bytes);
    else
        ffi_call(&c->cif, FFI_FN(c->entry), NULL, c->values);
}

/* ---- the loop ---- */

static void reply(uint32_t type, int status, uint64_t k, double ev, const char *text)
{
    cl_lmsg m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.status = status;
    m.k = k;
    m.ev_ms = ev;
    if (text)
        snprintf(m.text, sizeof m.text, "%s", text);
    if (cl_lm_send(g_sock, &m, -1))
        _exit(3); /* the judge is gone */
}

static void unmap_all(void)
{
    for (int i = 0; i < CL_MAX_SHARED; i++)
        if (g_bufs[i].ptr) {
            xb_unmap(g_bufs[i].ptr, g_bufs[i].bytes);
            memset(&g_bufs[i], 0, sizeof g_bufs[i]);
        }
}

static int load(const char *solution, const char *entry_name, int sanitized, void **entry)
{
    char note[512], err[512];
    const char *home = getenv("HOME");
    char nv[4096] = "";
    if (home)
        snprintf(nv, sizeof nv, "%s/.nv", home); /* the driver's JIT cache */
    const char *writable[] = {"/dev", "/tmp", "/var/tmp", nv, NULL};
    cl_jail_opts jo = {sanitized, writable, xb_foreign_devices()};
    if (cl_jail_enter(&jo, note, sizeof note, err, sizeof err)) {
        reply(LM_LOADED, CL_LS_JAIL, 0, 0, err);
        return -1;
    }
    if (note[0])
        fprintf(stderr, "cudalab-exec: note: %s\n", note);
    /* jailed: from here on the solution's code runs (its constructors, in dlopen), and the
     * judge blames whatever it hears next on the solution */
    reply(LM_ACK, 0, 0, 0, NULL);
    void *so = dlopen(solution, RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        const char *e = dlerror();
        reply(LM_LOADED, CL_LS_LOAD_ERROR, 0, 0, e ? e : "dlopen failed");
        return -1;
    }
    *entry = dlsym(so, entry_name);
    if (!*entry) {
        snprintf(err, sizeof err,
                 "the solution does not export '%s' (is it declared extern \"C\" with the lab's signature?)",
                 entry_name);
        reply(LM_LOADED, CL_LS_MISSING_SYMBOL, 0, 0, err);
        return -1;
    }
    if (xb_loaded(err, sizeof err)) {
        reply(LM_LOADED, CL_LS_LOAD_ERROR, 0, 0, err);
        return -1;
    }
    reply(LM_LOADED, CL_LS_OK, 0, 0, NULL);
    return 0;
}

/* LM_MAP: a shared buffer of the judge's (inputs read-only), or the go/done words. */
static void on_map(const cl_lmsg *m, int fd)
{
    char err[1024];
    err[0] = '\0';
    int rc = -1;
    if (m->id >= 0 && m->id < CL_MAX_SHARED && fd >= 0 && !g_bufs[m->id].ptr) {
        void *p;
        rc = xb_map(fd, (size_t)m->bytes, m->readonly, &p, err, sizeof err);
        if (!rc)
            g_bufs[m->id] = (mapped){p, (size_t)m->bytes, m->readonly};
    } else if ((m->id == CL_MAP_GO || m->id == CL_MAP_DONE) && fd >= 0) {
        rc = xb_map_word(m->id, fd, (size_t)m->bytes, err, sizeof err);
    } else {
        snprintf(err, sizeof err, "bad map request %d", (int)m->id);
    }
    if (fd >= 0)
        close(fd);
    reply(LM_ACK, rc ? 1 : 0, 0, 0, err);
}

/* LM_UNMAP_ALL: the case is over. */
static void on_unmap_all(void)
{
    unmap_all();
    reply(LM_ACK, 0, 0, 0, NULL);
}

/* LM_CALL: rebuild the arguments, arm, wait for the go (LM_GO on the host backend; the go
 * word on the GPU), make the call between the exec's own marks, and report LM_DONE. The
 * exec's own copy kernel (builtin) before the load, the solution's entry after it. */
static void on_call(const cl_lmsg *m, void *entry)
{
    static call c;
    char err[1024];
    err[0] = '\0';
    memset(&c, 0, sizeof c);
    g_k = m->k;
    c.entry = entry;
    c.builtin = m->builtin;
    if ((!c.builtin && !entry) || (c.builtin && entry)) { /* calibration only before the load */
        reply(LM_DONE, CL_DS_BAD_CALL, m->k, 0, "call out of order");
        return;
    }
    if (build_call(&c, &m->args, err, sizeof err)) {
        reply(LM_DONE, CL_DS_BAD_CALL, m->k, 0, err);
        return;
    }
    /* armed before the solution's code runs: a solution that synchronises inside its
     * call waits for the judge's go, which comes once the judge has seen "armed" */
    if (xb_arm(m->k, err, sizeof err)) {
        reply(LM_DONE, CL_DS_CUDA_ERROR, m->k, 0, err);
        return;
    }
    reply(LM_ARMED, 0, m->k, 0, NULL);
    if (!xb_gated()) {
        cl_lmsg go;
        if (cl_lm_recv(g_sock, &go, NULL, -1) || go.type != LM_GO || go.k != m->k)
            _exit(0);
    }
    cl_lm_trace("exec", "call %llu armed", (unsigned long long)m->k);
    int rc = xb_call(m->k, do_call, &c, err, sizeof err);
    cl_lm_trace("exec", "call %llu made (%d)", (unsigned long long)m->k, rc);
    if (rc) {
        reply(LM_DONE, CL_DS_CUDA_ERROR, m->k, 0, err);
        return;
    }
    double ev = 0;
    int st = xb_finish(&ev, err, sizeof err);
    cl_lm_trace("exec", "call %llu finished (%d) %.4f ms %s", (unsigned long long)m->k, st, ev, err);
    reply(LM_DONE, st, m->k, ev, err);
    if (st == CL_DS_FATAL)
        _exit(5);
}

/* LM_KERNELS: the k-th kernel launched inside the solution's calls, the end of the list,
 * or that they were not all named. */
static void on_kernels(const cl_lmsg *m)
{
    const char *name = xb_kernels_tracked() ? xb_kernel_ran((int)m->k) : NULL;
    reply(LM_KERNEL, !xb_kernels_tracked() ? CL_KS_UNTRACKED : name ? CL_KS_NAME : CL_KS_END, m->k, 0, name);
}

/* The judge's messages, one at a time, until it closes the link. */
_Noreturn static void serve(const char *solution, const char *entry_name, int sanitized)
{
    void *entry = NULL;
    for (;;) {
        cl_lmsg m;
        int fd = -1;
        if (cl_lm_recv(g_sock, &m, &fd, -1))
            _exit(0); /* the judge closed the link: done */
        switch (m.type) {
        case LM_MAP: on_map(&m, fd); break;
        case LM_UNMAP_ALL: on_unmap_all(); break;
        case LM_LOAD: /* once: the jail, then the solution */
            if (entry || load(solution, entry_name, sanitized, &entry))
                _exit(4);
            break;
        case LM_CALL: on_call(&m, entry); break;
        case LM_KERNELS: on_kernels(&m); break;
        default: reply(LM_DONE, CL_DS_BAD_CALL, m.k, 0, "unknown message"); break;
        }
    }
}

/* ---- start ---- */

/* Reads the options (--file-limit takes effect at once). 0, or 2 (the exit status). */
static int parse_options(int argc, char **argv, const char **solution, const char **entry_name, int *sanitized,
                         int *name_kernels)
{
    static const struct option opts[] = {{"solution", required_argument, 0, 's'},
                                         {"entry", required_argument, 0, 'e'},
                                         {"sanitized", no_argument, 0, 'z'},
                                         {"name-kernels", no_argument, 0, 'k'},
                                         {"file-limit", required_argument, 0, 'F'},
                                         {0, 0, 0, 0}};
    int ch;
    while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (ch == 's') *solution = optarg;
        else if (ch == 'e') *entry_name = optarg;
        else if (ch == 'z') *sanitized = 1;
        else if (ch == 'k') *name_kernels = 1;
        else if (ch == 'F') {
            struct rlimit rl;
            rl.rlim_cur = rl.rlim_max = (rlim_t)strtoull(optarg, NULL, 10);
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        else return 2;
    }
    if (!*solution || !*entry_name) {
        fprintf(stderr, "cudalab-exec: started by cudalab-run, not by hand\n");
        return 2;
    }
    return 0;
}

/* The device comes up, and LM_HELLO tells the judge its name (or why not). 0 or -1. */
static int hello(void)
{
    char name[256], err[1024] = "";
    if (xb_init(name, sizeof name, err, sizeof err)) {
        reply(LM_HELLO, 1, 0, 0, err);
        return -1;
    }
    reply(LM_HELLO, 0, 0, 0, name);
    return 0;
}

/* A write into a read-only input names the input (on_fault) before the process dies. */
static void catch_faults(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

int main(int argc, char **argv)
{
    const char *solution = NULL, *entry_name = NULL;
    int sanitized = 0, name_kernels = 0;
    if (parse_options(argc, argv, &solution, &entry_name, &sanitized, &name_kernels))
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the judge gone, the solution goes too */
    if (getppid() == 1)
        return 3;
    if (hello())
        return 3;
    char why[256];
    if (name_kernels && xb_track_kernels(why, sizeof why))
        cl_lm_trace("exec", "kernels not named: %s", why);
    catch_faults();
    serve(solution, entry_name, sanitized);
}
