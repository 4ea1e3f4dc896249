/* lang.h: which language to speak: --lang, else the locale (zh* -> zh), else en. */
#ifndef CUDALAB_LANG_H
#define CUDALAB_LANG_H

/* flag: the --lang value or NULL. Returns "en" or "zh"; NULL for an unknown flag. */
const char *cl_lang_pick(const char *flag);

#endif
