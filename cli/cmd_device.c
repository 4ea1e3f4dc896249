/* cmd_device.c: cudalab device [--refresh] [--json]: this GPU and its measured ceilings
 * (copy, read-only and write-only bandwidth; cuBLAS fp16). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "grader/ceilings.h"
#include "term.h"

int cmd_device(int argc, char **argv)
{
    int refresh = 0, json = 0;
    for (int i = 1; i < argc; i++) {
        refresh |= !strcmp(argv[i], "--refresh");
        json |= !strcmp(argv[i], "--json");
    }
    cl_ceilings c;
    cl_err err;
    if (cl_ceilings_get(refresh, &c, cl_cli_progress, NULL, &err)) {
        cl_progress_clear();
        if (json) {
            json_t *o = json_pack("{s:n, s:s, s:s}", "gpu", "error", "no usable GPU", "detail", err.msg);
            char *s = json_dumps(o, JSON_INDENT(2));
            puts(s);
            free(s);
            json_decref(o);
        }
        cl_cli_error("device", CL_T("no usable GPU: %s — check 'nvidia-smi' and the driver"), err.msg);
        return CL_EXIT_ENV;
    }
    cl_progress_clear();
    if (json) {
        json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:f, s:f, s:f, s:f, "
                              "s:f, s:i, s:I, s:b, s:s}",
                              "name", c.name, "uuid", c.uuid, "cc_major", c.cc_major, "cc_minor", c.cc_minor, "sms",
                              c.sms, "clock_mhz", c.clock_mhz, "mem_clock_mhz", c.mem_clock_mhz, "bus_width_bits",
                              c.bus_width_bits, "l2_bytes", c.l2_bytes, "mem_total", (json_int_t)c.mem_total,
                              "driver_version", c.driver_version, "runtime_version", c.runtime_version, "copy_gbps",
                              c.copy_gbps, "copy_kernel_gbps", c.copy_kernel_gbps, "memcpy_gbps", c.memcpy_gbps, "dram_peak_gbps", c.dram_peak_gbps,
                              "fp16_tflops", c.fp16_tflops, "fp16_gemm_n", c.fp16_gemm_n, "measured_at",
                              (json_int_t)c.measured_at, "cached", c.from_cache, "cache_file", c.cache_path);
        json_object_set_new(o, "read_gbps", json_real(c.read_gbps));
        json_object_set_new(o, "write_gbps", json_real(c.write_gbps));
        json_object_set_new(o, "write_kernel_gbps", json_real(c.write_kernel_gbps));
        json_object_set_new(o, "memset_gbps", json_real(c.memset_gbps));
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
        puts(s);
        free(s);
        json_decref(o);
        return 0;
    }
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *Z = cl_c0(f);
    printf("%s%s%s   %s%s%s\n", B, c.name, Z, D, c.uuid, Z);
    printf(CL_T("  compute capability  %d.%d (sm_%d%d)\n"), c.cc_major, c.cc_minor, c.cc_major, c.cc_minor);
    printf(CL_T("  multiprocessors     %d at up to %d MHz\n"), c.sms, c.clock_mhz);
    printf(CL_T("  memory              %.1f GiB, %d-bit bus at %d MHz (%.0f GB/s on paper)\n"),
           (double)c.mem_total / 1073741824.0, c.bus_width_bits, c.mem_clock_mhz, c.dram_peak_gbps);
    printf(CL_T("  L2 cache            %.1f MiB\n"), c.l2_bytes / 1048576.0);
    printf(CL_T("  shared memory / SM  %d KiB\n"), c.smem_per_sm / 1024);
    printf(CL_T("  driver / runtime    %d.%d / %d.%d\n"), c.driver_version / 1000, (c.driver_version % 1000) / 10,
           c.runtime_version / 1000, (c.runtime_version % 1000) / 10);
    printf(CL_T("%s  measured ceilings%s\n"), B, Z);
    printf(CL_T("  copy bandwidth      %s%.0f GB/s%s  %s(bytes read + written: the best of three vectorised copy"
           " kernels, %.0f GB/s, and cudaMemcpy, %.0f GB/s)%s\n"), B, c.copy_gbps, Z, D, c.copy_kernel_gbps,
           c.memcpy_gbps, Z);
    printf(CL_T("  read-only           %s%.0f GB/s%s  %s(bytes read: the best of three vectorised read kernels,"
           " %.0f%% of copy)%s\n"), B, c.read_gbps, Z, D, c.copy_gbps > 0 ? 100 * c.read_gbps / c.copy_gbps : 0, Z);
    printf(CL_T("  write-only          %s%.0f GB/s%s  %s(bytes written: the best of three vectorised store kernels,"
           " %.0f GB/s, and cudaMemset, %.0f GB/s)%s\n"), B, c.write_gbps, Z, D, c.write_kernel_gbps, c.memset_gbps, Z);
    printf(CL_T("  fp16 Tensor Cores   %s%.0f TFLOP/s%s  %s(cuBLAS, %d^3, fp32 accumulate)%s\n"), B, c.fp16_tflops, Z, D,
           c.fp16_gemm_n, Z);
    printf(CL_T("%s  %s %s%s\n"), D, c.from_cache ? CL_T("cached in") : CL_T("saved to"), c.cache_path, Z);
    return 0;
}
