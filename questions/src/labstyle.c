/* labstyle.c: the Chinese house style (zhstyle.h) of the labs' Chinese text: the "## 中文"
 * half of every labs/<lab>/README.md (code fences skipped; a hard line break between two
 * Chinese characters renders as a stray space, so it is reported too) and every hint's zh
 * text in lab.yaml. `cudalab lint` runs it with the lab checks. */
#include <stdlib.h>
#include <string.h>

#include "bank_internal.h"
#include "grader/labconf.h"
#include "paths.h"
#include "questions/zhstyle.h"

/* The last UTF-8 character of s[0..len) is Chinese (a Han character or CJK punctuation)? */
static int ends_chinese(const char *s, size_t len)
{
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
        len--;
    if (len < 3)
        return 0;
    const unsigned char *c = (const unsigned char *)s + len - 3;
    unsigned cp = (unsigned)(c[0] & 0x0F) << 12 | (unsigned)(c[1] & 0x3F) << 6 | (c[2] & 0x3F);
    return (c[0] & 0xF0) == 0xE0 && ((cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3000 && cp <= 0x303F) ||
                                     (cp >= 0xFF00 && cp <= 0xFFEF));
}

static int starts_chinese(const char *s)
{
    while (*s == ' ')
        s++;
    return ends_chinese(s, (unsigned char)s[0] >= 0xE0 ? 3 : 0);
}

static int check_readme(const char *path, cl_report_fn report, void *ctx)
{
    char *text;
    size_t len;
    cl_err err;
    if (cl_read_file(path, 4u << 20, &text, &len, &err))
        return 0; /* a missing README is the lab lint's business */
    int problems = 0, line = 0, in_zh = 0, fence = 0;
    char prev[4096] = "";
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        line++;
        if (!strncmp(p, "## 中文", strlen("## 中文")))
            in_zh = 1;
        else if (!strncmp(p, "## ", 3) && in_zh && !strstr(p, "\xE3") && !strstr(p, "\xE4") &&
                 !strstr(p, "\xE5") && !strstr(p, "\xE6") && !strstr(p, "\xE7") && !strstr(p, "\xE8") &&
                 !strstr(p, "\xE9"))
            in_zh = 0; /* an English top-level section after the Chinese one */
        int is_fence = !strncmp(p + strspn(p, " "), "```", 3);
        if (is_fence)
            fence = !fence;
        if (in_zh && !fence && !is_fence) {
            char msg[512];
            if (cl_zh_style_check(p, msg, sizeof msg)) {
                cl_report_plain(report, ctx, "%s:%d: %s", path, line, msg);
                problems++;
            }
            const char *body = p + strspn(p, " ");
            if (*prev && *body && body[0] != '-' && body[0] != '|' && body[0] != '#' &&
                ends_chinese(prev, strlen(prev)) && starts_chinese(p)) {
                cl_report_plain(report, ctx, "%s:%d: a line break between Chinese characters (it renders as a "
                                             "space): join the lines", path, line);
                problems++;
            }
            snprintf(prev, sizeof prev, "%s", p);
        } else {
            prev[0] = '\0';
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    free(text);
    return problems;
}

int cl_labs_check_zh_style(const char *home, cl_report_fn report, void *ctx)
{
    char **names;
    int n, problems = 0;
    cl_err err;
    if (cl_lab_names(home, &names, &n, &err))
        return 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/labs/%s/README.md", home, names[i]);
        problems += check_readme(path, report, ctx);
        cl_lab lab;
        if (cl_lab_load(home, names[i], &lab, &err) == 0) {
            for (int h = 0; h < lab.nhints; h++) {
                char msg[512];
                if (lab.hints[h].zh && cl_zh_style_check(lab.hints[h].zh, msg, sizeof msg)) {
                    cl_report_plain(report, ctx, "%s/labs/%s/lab.yaml: hint %d: %s", home, names[i], h + 1, msg);
                    problems++;
                }
            }
            cl_lab_free(&lab);
        }
    }
    cl_lab_names_free(names, n);
    return problems;
}
