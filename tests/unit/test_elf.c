/* test_elf.c: reading what a shared object needs and exports. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grader/elfinfo.h"
#include "testutil.h"

START_TEST(exports_and_needs)
{
    cl_elf_info e;
    cl_err err;
    ck_assert_msg(cl_elf_inspect(TEST_SOLUTIONS "/good.so", &e, &err) == 0, "%s", err.msg);
    ck_assert(cl_elf_defines(&e, "selftest_scale"));
    ck_assert(!cl_elf_defines(&e, "selftest_scal"));
    cl_elf_free(&e);
    /* chatty calls printf: it needs libc and leaves printf undefined */
    ck_assert_int_eq(cl_elf_inspect(TEST_SOLUTIONS "/chatty.so", &e, &err), 0);
    int libc = 0, printf_undef = 0;
    for (int i = 0; i < e.nneeded; i++)
        libc |= strncmp(e.needed[i], "libc.so", 7) == 0;
    for (int i = 0; i < e.nundefined; i++)
        printf_undef |= strcmp(e.undefined[i], "printf") == 0;
    ck_assert(libc && printf_undef);
    cl_elf_free(&e);
    ck_assert_int_eq(cl_elf_inspect(TEST_SOLUTIONS "/misnamed.so", &e, &err), 0);
    ck_assert(!cl_elf_defines(&e, "selftest_scale"));
    ck_assert(cl_elf_defines(&e, "selftest_scal"));
    cl_elf_free(&e);
}
END_TEST

START_TEST(rejects_junk)
{
    char *dir = tu_tempdir("elf");
    const char *p = tu_write(dir, "junk.so", "this is not an ELF file at all, just text");
    cl_elf_info e;
    cl_err err;
    ck_assert_int_eq(cl_elf_inspect(p, &e, &err), -1);
    ck_assert(tu_contains(err.msg, "not a 64-bit ELF"));
    /* a truncated header */
    p = tu_write(dir, "short.so", "\177ELF\2\1");
    ck_assert_int_eq(cl_elf_inspect(p, &e, &err), -1);
    tu_rmtree(dir);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("elf");
    TCase *tc = tcase_create("elf");
    tcase_add_test(tc, exports_and_needs);
    tcase_add_test(tc, rejects_junk);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
