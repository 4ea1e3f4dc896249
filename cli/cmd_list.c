/* cmd_list.c: cudalab list [--json]: the labs, their difficulty and topics, your best. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "db.h"
#include "grader/labconf.h"
#include "grader/progress.h"
#include "paths.h"
#include "term.h"

int cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (ch == 'j') json = 1;
        else {
            fprintf(ch == 'h' ? stdout : stderr, "usage: cudalab list [--json]\n");
            return ch == 'h' ? 0 : 2;
        }
    }
    char **names;
    int n;
    cl_err err;
    if (cl_lab_names(cl_home_dir(), &names, &n, &err)) {
        fprintf(stderr, "cudalab list: %s\n", err.msg);
        return 2;
    }
    sqlite3 *db = NULL;
    if (cl_db_open(NULL, &db, &err))
        fprintf(stderr, "cudalab list: progress unavailable: %s\n", err.msg);
    json_t *arr = json_array();
    FILE *f = stdout;
    const char *B = cl_c(f, CL_BOLD), *D = cl_c(f, CL_DIM), *G = cl_c(f, CL_GREEN), *Z = cl_c0(f);
    if (!json)
        printf("%s%-16s %-36s %-6s %-34s %s%s\n", D, "lab", "title", "level", "topics", "your best", Z);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        cl_lab lab;
        if (cl_lab_load(cl_home_dir(), names[i], &lab, &err)) {
            fprintf(stderr, "cudalab list: %s\n", err.msg);
            rc = 1;
            continue;
        }
        cl_lab_best best;
        int have = db && cl_progress_best(db, lab.name, &best, &err) == 0;
        char topics[256] = "";
        for (int k = 0; k < lab.ntopics; k++) {
            strncat(topics, lab.topics[k], sizeof topics - strlen(topics) - 1);
            if (k + 1 < lab.ntopics) strncat(topics, ", ", sizeof topics - strlen(topics) - 1);
        }
        if (json) {
            json_t *o = json_pack("{s:s, s:s, s:s, s:i, s:s, s:f}", "lab", lab.name, "title", lab.title.en,
                                  "title_zh", lab.title.zh, "difficulty", lab.difficulty, "topics", topics,
                                  "max_score", cl_lab_max_score(&lab));
            if (have)
                json_object_set_new(o, "best", json_pack("{s:f, s:s, s:i}", "score", best.score, "verdict",
                                                         best.verdict, "attempts", best.attempts));
            json_array_append_new(arr, o);
        } else {
            char level[8] = "";
            for (int k = 0; k < 5; k++) level[k] = k < lab.difficulty ? '*' : '.';
            char bestbuf[96] = "-";
            if (have)
                snprintf(bestbuf, sizeof bestbuf, "%.0f/%.0f %s (%d tr%s)", best.score, best.max_score, best.verdict,
                         best.attempts, best.attempts == 1 ? "y" : "ies");
            printf("%s%-16s%s %-36.36s %-6s %-34.34s %s%s%s\n", B, lab.name, Z, lab.title.en, level, topics,
                   have ? G : "", bestbuf, Z);
        }
        cl_lab_free(&lab);
    }
    if (json) {
        char *s = json_dumps(arr, JSON_INDENT(2));
        puts(s);
        free(s);
    } else {
        printf("%sstart one with: cudalab fetch <lab>%s\n", D, Z);
    }
    json_decref(arr);
    cl_db_close(db);
    cl_lab_names_free(names, n);
    return rc;
}
