/* arena.c: the bump allocator behind banks and generated questions. */
#include "questions/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cl_arena_block {
    cl_arena_block *next;
    size_t used, cap;
    max_align_t data[];
};

#define BLOCK_MIN 16384

void cl_arena_init(cl_arena *a) { a->head = NULL; }

void cl_arena_free(cl_arena *a)
{
    cl_arena_block *b = a->head;
    while (b) {
        cl_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

void *cl_arena_alloc(cl_arena *a, size_t n)
{
    size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    if (n == 0)
        n = align;
    cl_arena_block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > BLOCK_MIN ? n : BLOCK_MIN;
        b = malloc(sizeof *b + cap);
        if (!b) {
            fputs("cudalab: out of memory\n", stderr);
            abort();
        }
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *cl_arena_strdup(cl_arena *a, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *p = cl_arena_alloc(a, n);
    memcpy(p, s, n);
    return p;
}

char *cl_arena_vprintf(cl_arena *a, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return cl_arena_strdup(a, "");
    char *p = cl_arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *cl_arena_printf(cl_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = cl_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}
