/* sass.c: a solution's machine code (cuobjdump -sass) and which of its functions use the
 * Tensor Cores. The gemm lab asks for them: the grader looks in the kernels that ran (their
 * names come from the solution's process), or in the whole file when those are unknown. */
#include "grader/sass.h"

#include <stdlib.h>
#include <string.h>

#include "grader/compile.h"
#include "grader/proc.h"
#include "paths.h"

int cl_sass_read(const char *so, char **text)
{
    char tool[CL_PATH_MAX];
    cl_err err;
    *text = NULL;
    if (cl_cuda_tool("cuobjdump", tool, sizeof tool))
        return -1;
    char *argv[] = {tool, "-sass", (char *)so, NULL};
    if (cl_proc_capture(argv, 120, 64u << 20, text, &err) == 0 && *text)
        return 0;
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
