/* i18n.h: the message catalogue: every sentence cudalab's own code prints, in English and
 * Chinese, in one table (common/i18n.c).
 *
 * Code writes the English text: printf(CL_T("%d hints"), n). In Chinese the catalogue's
 * translation is printed instead; a sentence missing from the catalogue stays English
 * (tests/cli/check_catalogue.py fails the build's tests when one is missing). Formats are
 * checked by the compiler through the format_arg attribute. */
#ifndef CUDALAB_I18N_H
#define CUDALAB_I18N_H

#include "lang.h"

/* The text for the current language (cl_lang_current). */
const char *cl_tr(const char *en) __attribute__((format_arg(1)));
/* The text for lang. */
const char *cl_tr_lang(cl_lang lang, const char *en) __attribute__((format_arg(2)));
#define CL_T(en) cl_tr(en)
/* Marks a text for the catalogue where it is translated later, not here (a format that
 * travels with its arguments and is said again in the reader's language). */
#define CL_N(en) (en)

/* Display width of UTF-8 text on a terminal (CJK and full-width forms count 2). */
int cl_text_width(const char *s);
/* Prints s padded with spaces to width columns, or cut to width (never inside a
 * character; a cut ends with '…'). */
void cl_fput_padded(const char *s, int width, void *file);
/* Full-width forms (ＡＢ１２：) typed with a Chinese input method -> ASCII, and a trailing
 * 。 or ， dropped, in place. */
void cl_ascii_fold(char *s);

#endif
