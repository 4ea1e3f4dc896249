/* sass.c: a solution's machine code (cuobjdump -sass) and which of its functions use the
 * Tensor Cores. The gemm lab asks for them: the grader looks in the kernels that ran (their
 * names come from the solution's process), or in the whole file when those are unknown. */
#include "grader/sass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grader/compile.h"
#include "grader/proc.h"
#include "paths.h"

#define SASS_MAX (64u << 20) /* bytes of listing read at most */

/* The listing is kept next to the shared object (so + ".sass"), as the build cache keeps
 * the object itself: cuobjdump takes about a second on a GEMM's object, and the same build
 * is inspected at its compile and again at every grading. A listing older than its object
 * is made again. */
static int sass_cached(const char *so, const char *sidecar, char **text)
{
    struct stat s_so, s_sass;
    if (stat(so, &s_so) || stat(sidecar, &s_sass) || s_sass.st_size == 0 ||
        s_sass.st_mtim.tv_sec < s_so.st_mtim.tv_sec ||
        (s_sass.st_mtim.tv_sec == s_so.st_mtim.tv_sec && s_sass.st_mtim.tv_nsec < s_so.st_mtim.tv_nsec))
        return -1;
    size_t len;
    cl_err err;
    return cl_read_file(sidecar, SASS_MAX, text, &len, &err) ? -1 : 0;
}

int cl_sass_read(const char *so, char **text)
{
    char tool[CL_PATH_MAX], sidecar[CL_PATH_MAX];
    cl_err err;
    *text = NULL;
    int keep = snprintf(sidecar, sizeof sidecar, "%s.sass", so) < (int)sizeof sidecar;
    if (keep && sass_cached(so, sidecar, text) == 0)
        return 0;
    if (cl_cuda_tool("cuobjdump", tool, sizeof tool))
        return -1;
    char *argv[] = {tool, "-sass", (char *)so, NULL};
    if (cl_proc_capture(argv, 120, SASS_MAX, text, &err) == 0 && *text) {
        if (keep) /* best effort: without it the next grading runs cuobjdump again */
            cl_write_file_atomic(sidecar, *text, strlen(*text), &err);
        return 0;
    }
    free(*text);
    *text = NULL;
    return -1;
}

/* An HMMA or HGMMA instruction in [from, to): the opcode of an instruction line (its
 * address in a comment, an optional predicate such as @P0, then the opcode, as in
 * "HMMA.16816.F32 R4, R12, R16, R4"), so a function or symbol named with those letters
 * counts for nothing. */
static int tensor_op_in(const char *from, const char *to)
{
    for (const char *line = from; line < to;) {
        const char *eol = memchr(line, '\n', (size_t)(to - line));
        if (!eol)
            eol = to;
        const char *op = line;
        while (op < eol && (*op == ' ' || *op == '\t'))
            op++;
        if (eol - op > 4 && !strncmp(op, "/*", 2) && (op = strstr(op, "*/")) && op < eol) {
            op += 2;
            while (op < eol && (*op == ' ' || *op == '\t'))
                op++;
            if (op < eol && *op == '@') /* a predicate: @P0, @!PT */
                while (op < eol && *op != ' ' && *op != '\t')
                    op++;
            while (op < eol && (*op == ' ' || *op == '\t'))
                op++;
            if ((eol - op >= 4 && !strncmp(op, "HMMA", 4)) || (eol - op >= 5 && !strncmp(op, "HGMMA", 5)))
                return 1;
        }
        line = eol + 1;
    }
    return 0;
}

static int named(const char *name, size_t len, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && !strncmp(names[i], name, len))
            return 1;
    return 0;
}

int cl_sass_tensor_cores(const char *text, const char *const *names, int n)
{
    static const char tag[] = "Function : ";
    if (!names)
        return tensor_op_in(text, text + strlen(text));
    for (const char *f = strstr(text, tag); f; ) {
        const char *name = f + sizeof tag - 1;
        size_t len = strcspn(name, " \t\r\n");
        const char *next = strstr(name, tag);
        const char *end = next ? next : name + strlen(name);
        if (named(name, len, names, n) && tensor_op_in(name + len, end))
            return 1;
        f = next;
    }
    return 0;
}
