/* elfinfo.h: what a compiled solution links against and exports, read from its ELF
 * dynamic section (no binutils needed). Used before running anything: a missing entry
 * point, a banned library in DT_NEEDED, or calls into a banned library's symbols. */
#ifndef CUDALAB_ELFINFO_H
#define CUDALAB_ELFINFO_H

#include <stddef.h>

#include "err.h"

typedef struct cl_elf_info {
    int nneeded;
    char **needed;    /* DT_NEEDED sonames */
    int ndefined;
    char **defined;   /* exported function/object symbols */
    int nundefined;
    char **undefined; /* symbols it expects from elsewhere */
} cl_elf_info;

int cl_elf_inspect(const char *path, cl_elf_info *info, cl_err *err);
void cl_elf_free(cl_elf_info *info);
int cl_elf_defines(const cl_elf_info *info, const char *symbol);

#endif
