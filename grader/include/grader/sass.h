/* sass.h: a solution's machine code as cuobjdump -sass prints it, and where in it the
 * Tensor Core instructions are (HMMA: mma.sync and WMMA; HGMMA: Hopper's wgmma). */
#ifndef CUDALAB_SASS_H
#define CUDALAB_SASS_H

/* The SASS of so into *text (malloc'd). 0, or -1 when cuobjdump is missing or fails. */
int cl_sass_read(const char *so, char **text);
/* 1 when a Tensor Core instruction is in the SASS: anywhere (names == NULL), or in one of
 * the n functions named (mangled, as cuobjdump's "Function : NAME" lines give them); else 0. */
int cl_sass_tensor_cores(const char *text, const char *const *names, int n);

#endif
