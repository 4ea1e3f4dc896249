/* arena.h: a bump allocator for the strings and arrays of a question bank.
 *
 * A bank (or one generated question) owns an arena; everything it points to lives there
 * and is released at once by cl_arena_free. No individual frees, no ownership puzzles. */
#ifndef CUDALAB_Q_ARENA_H
#define CUDALAB_Q_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct cl_arena_block cl_arena_block;

typedef struct cl_arena {
    cl_arena_block *head;
} cl_arena;

void cl_arena_init(cl_arena *a);
void cl_arena_free(cl_arena *a);
/* Zeroed memory, aligned for any type. Aborts on out-of-memory (a bank is small). */
void *cl_arena_alloc(cl_arena *a, size_t n);
char *cl_arena_strdup(cl_arena *a, const char *s);
char *cl_arena_printf(cl_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *cl_arena_vprintf(cl_arena *a, const char *fmt, va_list ap);

#endif
