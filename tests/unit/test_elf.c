/* test_elf.c: reading what a shared object needs and exports, and where its machine code
 * (cuobjdump -sass, as cudalab reads it) has Tensor Core instructions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "grader/elfinfo.h"
#include "grader/sass.h"
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

/* cuobjdump -sass's shape (sm_90, abridged): a decoy kernel with HMMA, a kernel that ran
 * without, one whose name holds the letters, and one with Hopper's HGMMA */
static const char SASS[] =
    "\n\tcode for sm_90\n"
    "\t\tFunction : _Z16tensor_core_gemmPK6__halfS1_PS_iii\n"
    "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90\"\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
    "        /*0a70*/                   HMMA.16816.F32 R4, R12, R16, R4 ;\n"
    "        /*0a80*/                   EXIT ;\n"
    "\t\t..........\n\n"
    "\t\tFunction : _Z14cuda_core_gemmPK6__halfS1_PS_iii\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
    "        /*0090*/              @!P0 FFMA R4, R5, R6, R4 ;\n"
    "        /*00a0*/                   CALL.REL.NOINC `(_Z4HMMAv) ;\n"
    "        /*00b0*/                   EXIT ;\n"
    "\t\tFunction : _Z4HMMAv\n"
    "        /*0000*/                   RET.REL.NODEC R20 `(_Z14cuda_core_gemmPK6__halfS1_PS_iii) ;\n"
    "\t\tFunction : _ZN4sm9015gemm_sm90_kernelILi2EEEvv\n"
    "        /*1200*/               @P1 HGMMA.64x256x16.F32 R24, gdesc[UR4], R24 ;\n";

START_TEST(tensor_cores_in_the_kernels_that_ran)
{
    const char *tc[] = {"_Z16tensor_core_gemmPK6__halfS1_PS_iii"}, *cc[] = {"_Z14cuda_core_gemmPK6__halfS1_PS_iii"},
               *fake[] = {"_Z4HMMAv", "_Z14cuda_core_gemmPK6__halfS1_PS_iii"},
               *wg[] = {"_ZN4sm9015gemm_sm90_kernelILi2EEEvv"}, *prefix[] = {"_Z16tensor_core_gemm"};
    ck_assert_int_eq(cl_sass_tensor_cores(SASS, NULL, 0), 1);
    ck_assert_int_eq(cl_sass_tensor_cores(SASS, tc, 1), 1);
    ck_assert_int_eq(cl_sass_tensor_cores(SASS, cc, 1), 0);   /* the decoy never ran */
    ck_assert_int_eq(cl_sass_tensor_cores(SASS, fake, 2), 0); /* a name is not an instruction */
    ck_assert_int_eq(cl_sass_tensor_cores(SASS, wg, 1), 1);   /* predicated HGMMA */
    ck_assert_int_eq(cl_sass_tensor_cores(SASS, prefix, 1), 0); /* whole names only */
    ck_assert_int_eq(cl_sass_tensor_cores(SASS, cc, 0), 0);   /* no kernel ran */
    /* without the two Tensor Core kernels, the whole file has none: the symbol names and
     * the call's operand do not count */
    const char *cut = strstr(SASS, "\t\tFunction : _Z14cuda_core_gemm");
    char head_less[sizeof SASS];
    snprintf(head_less, sizeof head_less, "%.*s", (int)(strstr(SASS, "\t\tFunction : _ZN4sm90") - cut), cut);
    ck_assert_int_eq(cl_sass_tensor_cores(head_less, NULL, 0), 0);
}
END_TEST

/* The listing is read from the build cache's sidecar (so + ".sass") while it is at least
 * as new as the object; an older one is not trusted (the object was rebuilt): cuobjdump
 * runs, and on an object that is no ELF (or with no cuobjdump) there is no listing. */
START_TEST(sass_listing_from_the_sidecar)
{
    char *dir = tu_tempdir("sass");
    char so[4096], sidecar[4096];
    snprintf(so, sizeof so, "%s", tu_write(dir, "solution.so", "not a real object"));
    snprintf(sidecar, sizeof sidecar, "%s.sass", so);
    tu_write(dir, "solution.so.sass", SASS);
    char *text = NULL;
    ck_assert_int_eq(cl_sass_read(so, &text), 0);
    ck_assert_str_eq(text, SASS);
    ck_assert_int_eq(cl_sass_tensor_cores(text, NULL, 0), 1);
    free(text);
    /* the object rebuilt after the listing was kept */
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, sidecar, old, 0), 0);
    text = NULL;
    ck_assert_int_eq(cl_sass_read(so, &text), -1);
    ck_assert_ptr_null(text);
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
    tcase_add_test(tc, tensor_cores_in_the_kernels_that_ran);
    tcase_add_test(tc, sass_listing_from_the_sidecar);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
