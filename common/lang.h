/* lang.h: the one language setting of cudalab (English or Chinese).
 *
 * Precedence, first that decides wins: the --lang flag, $CUDALAB_LANG, `lang:` in the
 * config file ($XDG_CONFIG_HOME/cudalab/config.yaml), then the locale: LANGUAGE, LC_ALL,
 * LC_MESSAGES, LANG. A neutral locale (C, POSIX, C.UTF-8) decides nothing, so a container's
 * LC_ALL=C.UTF-8 does not hide LANG=zh_CN.UTF-8. zh* means Chinese; anything else English. */
#ifndef CUDALAB_LANG_H
#define CUDALAB_LANG_H

typedef enum { CL_LANG_EN = 0, CL_LANG_ZH = 1 } cl_lang;

/* "en", "zh", "zh_CN.UTF-8", "en-US"... -> 0 and *out; -1 when s names neither language. */
int cl_lang_parse(const char *s, cl_lang *out);
/* flag: the --lang value or NULL. 0 and *out, or -1 when flag is neither en nor zh. */
int cl_lang_pick(const char *flag, cl_lang *out);
/* The language of this run, set once by main (cl_lang_set) and read everywhere else. */
void cl_lang_set(cl_lang lang);
cl_lang cl_lang_current(void);
const char *cl_lang_code(cl_lang lang);

/* Picks the en or zh string literal: CL_TR(lang, "Correct", "正确"). */
#define CL_TR(lang, en, zh) ((lang) == CL_LANG_ZH ? (zh) : (en))

#endif
