/* elfinfo.c: a small reader for 64-bit little-endian ELF shared objects: DT_NEEDED and
 * the dynamic symbol table. Every offset is bounds-checked: the file is untrusted. */
#include "grader/elfinfo.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

#define MAX_ELF_BYTES (512u << 20)

static int in_bounds(size_t size, uint64_t off, uint64_t len) { return off <= size && len <= size - off; }

static void push(char ***arr, int *n, const char *s)
{
    char **a = realloc(*arr, (size_t)(*n + 1) * sizeof **arr);
    if (!a)
        return;
    *arr = a;
    a[(*n)++] = strdup(s);
}

int cl_elf_inspect(const char *path, cl_elf_info *info, cl_err *err)
{
    memset(info, 0, sizeof *info);
    char *data;
    size_t size;
    if (cl_read_file(path, MAX_ELF_BYTES, &data, &size, err))
        return -1;
    const unsigned char *d = (const unsigned char *)data;
    int rc = -1;
    if (size < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64 ||
        d[EI_DATA] != ELFDATA2LSB) {
        cl_err_set(err, "%s is not a 64-bit ELF shared object", path);
        goto out;
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
    if (!in_bounds(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
        eh->e_shentsize != sizeof(Elf64_Shdr)) {
        cl_err_set(err, "%s: malformed section table", path);
        goto out;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNAMIC && sh[i].sh_type != SHT_DYNSYM)
            continue;
        if (sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (!in_bounds(size, sh[i].sh_offset, sh[i].sh_size) || !in_bounds(size, strs->sh_offset, strs->sh_size))
            continue;
        const char *strtab = (const char *)d + strs->sh_offset;
        size_t strsz = strs->sh_size;
        if (sh[i].sh_type == SHT_DYNAMIC) {
            const Elf64_Dyn *dyn = (const Elf64_Dyn *)(d + sh[i].sh_offset);
            size_t n = sh[i].sh_size / sizeof(Elf64_Dyn);
            for (size_t k = 0; k < n && dyn[k].d_tag != DT_NULL; k++)
                if (dyn[k].d_tag == DT_NEEDED && dyn[k].d_un.d_val < strsz &&
                    memchr(strtab + dyn[k].d_un.d_val, '\0', strsz - dyn[k].d_un.d_val))
                    push(&info->needed, &info->nneeded, strtab + dyn[k].d_un.d_val);
        } else {
            const Elf64_Sym *sym = (const Elf64_Sym *)(d + sh[i].sh_offset);
            size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
            for (size_t k = 1; k < n; k++) {
                if (sym[k].st_name >= strsz || !memchr(strtab + sym[k].st_name, '\0', strsz - sym[k].st_name))
                    continue;
                const char *name = strtab + sym[k].st_name;
                if (!*name)
                    continue;
                int type = ELF64_ST_TYPE(sym[k].st_info), bind = ELF64_ST_BIND(sym[k].st_info);
                if (sym[k].st_shndx == SHN_UNDEF)
                    push(&info->undefined, &info->nundefined, name);
                else if ((type == STT_FUNC || type == STT_OBJECT) && bind != STB_LOCAL)
                    push(&info->defined, &info->ndefined, name);
            }
        }
    }
    rc = 0;
out:
    free(data);
    return rc;
}

static void free_list(char **a, int n)
{
    for (int i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

void cl_elf_free(cl_elf_info *info)
{
    free_list(info->needed, info->nneeded);
    free_list(info->defined, info->ndefined);
    free_list(info->undefined, info->nundefined);
    memset(info, 0, sizeof *info);
}

int cl_elf_defines(const cl_elf_info *info, const char *symbol)
{
    for (int i = 0; i < info->ndefined; i++)
        if (!strcmp(info->defined[i], symbol))
            return 1;
    return 0;
}
