/* zhstyle.h: the house style of Chinese text, checked by `cudalab lint` on every zh
 * string of the bank (and of generated questions) so it stays fixed:
 *
 *  - no ASCII , ; : ? ! ( directly after a Chinese character (use ，；：？！（ );
 *  - no space between two Chinese characters (a YAML folding or line-break artefact);
 *  - no English unit after a number (16 bytes -> 16 字节; sectors, blocks, threads ...);
 *  - no doubled Chinese punctuation (：：, 。。, ，，).
 *
 * Inline code (`...`) and indented code lines are left alone. */
#ifndef CUDALAB_Q_ZHSTYLE_H
#define CUDALAB_Q_ZHSTYLE_H

#include <stddef.h>

/* Checks one zh text. Returns the number of problems; the first is described in msg
 * (with a few characters of context). */
int cl_zh_style_check(const char *text, char *msg, size_t n);

/* Checks the Chinese half of every labs/<lab>/README.md and every lab hint's zh text under
 * home; reports "file:line: message". Returns the number of problems. */
#include "questions/bank.h"
int cl_labs_check_zh_style(const char *home, cl_report_fn report, void *ctx);

#endif
