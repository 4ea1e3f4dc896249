/* zstd_absent.c: linked only into fully static builds (CUDALAB_STATIC_DEPS), where Debian
 * ships libarchive.a but no libzstd.a. libarchive's zip reader is the only user of these;
 * here they fail, so a zip member compressed with zstd (rare; zip tools use deflate) is
 * refused as unreadable instead of the whole binary needing libzstd.so on the GPU box. */
#include <stddef.h>

size_t ZSTD_DStreamOutSize(void) { return 1 << 17; }
void *ZSTD_createDStream(void) { return NULL; }
size_t ZSTD_freeDStream(void *ds) { (void)ds; return 0; }
size_t ZSTD_initDStream(void *ds) { (void)ds; return (size_t)-1; }
size_t ZSTD_decompressStream(void *ds, void *out, void *in)
{
    (void)ds; (void)out; (void)in;
    return (size_t)-1;
}
unsigned ZSTD_isError(size_t code) { return code == (size_t)-1; }
const char *ZSTD_getErrorName(size_t code)
{
    (void)code;
    return "zstd-compressed members are not supported by this build of cudalab";
}
