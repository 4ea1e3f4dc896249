/* lang.c: the language setting: flag, CUDALAB_LANG, config file, then the locale. */
#include "lang.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_lang = -1;

int cl_lang_parse(const char *s, cl_lang *out)
{
    if (!s)
        return -1;
    if (!strncmp(s, "zh", 2) && (s[2] == '\0' || s[2] == '_' || s[2] == '-' || s[2] == '.')) {
        *out = CL_LANG_ZH;
        return 0;
    }
    if (!strncmp(s, "en", 2) && (s[2] == '\0' || s[2] == '_' || s[2] == '-' || s[2] == '.')) {
        *out = CL_LANG_EN;
        return 0;
    }
    return -1;
}

/* C, POSIX, C.UTF-8, C.utf8: no language preference. */
static int neutral_locale(const char *v)
{
    return !strcmp(v, "C") || !strcmp(v, "POSIX") || !strncmp(v, "C.", 2);
}

/* `lang: zh` (or `lang = zh`) in $XDG_CONFIG_HOME/cudalab/config.yaml. */
static int from_config(cl_lang *out)
{
    char path[4096];
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        snprintf(path, sizeof path, "%s/cudalab/config.yaml", xdg);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.config/cudalab/config.yaml", home);
    else
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256], value[64];
    int rc = -1;
    while (rc && fgets(line, sizeof line, f))
        if (sscanf(line, " lang %*[:=] %63s", value) == 1)
            rc = cl_lang_parse(value, out);
    fclose(f);
    return rc;
}

int cl_lang_pick(const char *flag, cl_lang *out)
{
    *out = CL_LANG_EN;
    if (flag && *flag)
        return cl_lang_parse(flag, out);
    const char *env = getenv("CUDALAB_LANG");
    if (env && *env && cl_lang_parse(env, out) == 0)
        return 0;
    if (from_config(out) == 0)
        return 0;
    static const char *const vars[] = {"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"};
    for (int i = 0; i < 4; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v || neutral_locale(v))
            continue;
        *out = !strncmp(v, "zh", 2) ? CL_LANG_ZH : CL_LANG_EN; /* LANGUAGE=zh_CN:en: its first entry */
        return 0;
    }
    return 0;
}

void cl_lang_set(cl_lang lang) { g_lang = lang; }

cl_lang cl_lang_current(void)
{
    if (g_lang < 0) {
        cl_lang l;
        cl_lang_pick(NULL, &l);
        g_lang = l;
    }
    return (cl_lang)g_lang;
}

const char *cl_lang_code(cl_lang lang) { return lang == CL_LANG_ZH ? "zh" : "en"; }
