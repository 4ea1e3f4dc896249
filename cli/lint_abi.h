/* lint_abi.h: the lab ABI is declared once. Each lab.yaml's `signature:` must match the
 * declaration of its entry point in labs/include/cudalab_lab.h (the header spells
 * cudaStream_t as cudalab_stream and __half as CL_HALF, so C can include it too). */
#ifndef CUDALAB_LINT_ABI_H
#define CUDALAB_LINT_ABI_H

/* Reports one "file:line: message" per disagreement through report(ctx, msg); returns the
 * number of problems. A home without the header (a test fixture) is checked only if it
 * has labs. */
int cl_lint_abi(const char *home, void (*report)(void *ctx, const char *msg), void *ctx);

#endif
