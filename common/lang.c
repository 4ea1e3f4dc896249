/* lang.c: language choice from the flag or the locale variables (POSIX precedence). */
#include "lang.h"

#include <stdlib.h>
#include <string.h>

const char *cl_lang_pick(const char *flag)
{
    if (flag && *flag) {
        if (!strcmp(flag, "en") || !strncmp(flag, "en_", 3)) return "en";
        if (!strcmp(flag, "zh") || !strncmp(flag, "zh_", 3) || !strncmp(flag, "zh-", 3)) return "zh";
        return NULL;
    }
    const char *vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return !strncmp(v, "zh", 2) ? "zh" : "en";
    }
    return "en";
}
