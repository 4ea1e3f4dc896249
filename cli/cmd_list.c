/* cmd_list.c: cudalab list [--json]: the labs, their difficulty and topics, your best.
 * The table fits the terminal: titles and topics share what the fixed columns leave, and a
 * cut ends with '…' (display width, so Chinese titles align too). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "db.h"
#include "grader/labconf.h"
#include "grader/progress.h"
#include "paths.h"
#include "term.h"

int cmd_list(int argc, char **argv)
{
    int json = argc > 1 && !strcmp(argv[1], "--json");
    if (argc > 1 + json) {
        cl_cli_error("list", CL_T("unexpected argument '%s' — cudalab list [--json]"), argv[1 + json]);
        return CL_EXIT_USAGE;
    }
    char **names;
    int n;
    cl_err err;
    if (cl_lab_names(cl_home_dir(), &names, &n, &err)) {
        cl_cli_error("list", CL_T("%s — is CUDALAB_HOME the cudalab folder?"), err.msg);
        return CL_EXIT_INTERNAL;
    }
    sqlite3 *db = NULL;
    if (cl_db_open(NULL, &db, &err))
        cl_cli_warn("list", CL_T("your results are not shown: %s"), err.msg);
    json_t *arr = json_array();
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *G = cl_c(f, CL_GREEN), *Z = cl_c0(f);
    int zh = cl_lang_current() == CL_LANG_ZH;
    /* name 16, level 5, best 22, four gaps: the rest is the title's and the topics' */
    int width = cl_term_width(f, 120), rest = width - 16 - 5 - 22 - 4;
    int title_w = rest >= 60 ? rest * 5 / 9 : rest > 20 ? rest - 1 : 20, topics_w = rest >= 60 ? rest - title_w - 1 : 0;
    if (!json) {
        fputs(D, f);
        cl_fput_padded(CL_T("lab"), 16, f);
        fputc(' ', f);
        cl_fput_padded(CL_T("title"), title_w, f);
        fputc(' ', f);
        cl_fput_padded(CL_T("level"), 5, f);
        fputc(' ', f);
        if (topics_w) {
            cl_fput_padded(CL_T("topics"), topics_w, f);
            fputc(' ', f);
        }
        fprintf(f, "%s%s\n", CL_T("your best"), Z);
    }
    int rc = CL_EXIT_OK;
    for (int i = 0; i < n; i++) {
        cl_lab lab;
        if (cl_lab_load(cl_home_dir(), names[i], &lab, &err)) {
            cl_cli_error("list", CL_T("%s — cudalab lint says more"), err.msg);
            rc = CL_EXIT_INTERNAL;
            continue;
        }
        cl_lab_best best;
        int have = db && cl_progress_best(db, lab.name, &best, &err) == 0;
        char topics[512] = "";
        json_t *jtopics = json_array();
        for (int k = 0; k < lab.ntopics; k++) {
            json_array_append_new(jtopics, json_string(lab.topics[k]));
            strncat(topics, lab.topics[k], sizeof topics - strlen(topics) - 1);
            if (k + 1 < lab.ntopics) strncat(topics, ", ", sizeof topics - strlen(topics) - 1);
        }
        const char *title = zh && lab.title.zh ? lab.title.zh : lab.title.en;
        if (json) {
            json_t *o = json_pack("{s:s, s:s, s:s?, s:i, s:o, s:f}", "lab", lab.name, "title", lab.title.en,
                                  "title_zh", lab.title.zh, "difficulty", lab.difficulty, "topics", jtopics,
                                  "max_score", cl_lab_max_score(&lab));
            json_object_set_new(o, "best", have ? json_pack("{s:f, s:s, s:i}", "score", best.score, "verdict",
                                                            best.verdict, "attempts", best.attempts)
                                                : json_null());
            json_array_append_new(arr, o);
        } else {
            json_decref(jtopics);
            char level[8] = "";
            for (int k = 0; k < 5; k++) level[k] = k < lab.difficulty ? '*' : '.';
            char bestbuf[96] = "-";
            if (have)
                snprintf(bestbuf, sizeof bestbuf, CL_T("%.0f/%.0f %s (%d tries)"), best.score, best.max_score,
                         CL_T(best.verdict), best.attempts);
            fputs(B, f);
            cl_fput_padded(lab.name, 16, f);
            fprintf(f, "%s ", Z);
            cl_fput_padded(title ? title : "", title_w, f);
            fprintf(f, " %-5s ", level);
            if (topics_w) {
                cl_fput_padded(topics, topics_w, f);
                fputc(' ', f);
            }
            fprintf(f, "%s%s%s\n", have ? G : "", bestbuf, Z);
        }
        cl_lab_free(&lab);
    }
    if (json) {
        char *s = json_dumps(arr, JSON_INDENT(2));
        puts(s);
        free(s);
    } else {
        printf("%s%s%s\n", D, CL_T("start one with: cudalab fetch <lab>"), Z);
    }
    json_decref(arr);
    cl_db_close(db);
    cl_lab_names_free(names, n);
    return rc;
}
