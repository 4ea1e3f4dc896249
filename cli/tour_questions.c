/* tour_questions.c: counts the question bank per topic for the tour. */
#include "tour_questions.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "term.h"
#include "yamlutil.h"

void cl_tour_questions(FILE *f)
{
    char dir[CL_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/questions", cl_home_dir());
    DIR *d = opendir(dir);
    int total = 0, topics = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml"))
            continue;
        char path[CL_PATH_MAX];
        cl_path_join(path, sizeof path, dir, e->d_name);
        cl_yaml y;
        cl_err err;
        if (cl_yaml_load_file(&y, path, &err)) {
            fprintf(f, "  %s\n", err.msg);
            continue;
        }
        cl_ynode *root = cl_yaml_root(&y);
        size_t n = cl_yaml_seq_len(cl_yaml_get(&y, root, "questions"));
        const char *title = cl_yaml_str(cl_yaml_get(&y, cl_yaml_get(&y, root, "title"), "en"));
        fprintf(f, "  %-16.*s %3zu questions  %s\n", (int)(len - 5), e->d_name, n, title ? title : "");
        total += (int)n;
        topics++;
        cl_yaml_free(&y);
    }
    if (d)
        closedir(d);
    if (!topics)
        fprintf(f, "  (no question files under %s)\n", dir);
    else
        fprintf(f, "  %d questions in %d topics: %scudalab quiz%s, %scudalab interview%s\n", total, topics,
                cl_c(f, CL_BOLD), cl_c0(f), cl_c(f, CL_BOLD), cl_c0(f));
}
