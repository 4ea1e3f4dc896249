/* main.c: the cudalab entry point: global flags anywhere on the line, the language, flag
 * validation against the command table, then dispatch to the command. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_help.h"
#include "cli_util.h"
#include "commands.h"
#include "i18n.h"
#include "paths.h"
#include "term.h"

/* "--lang=zh" -> "lang" and value "zh"; "--json" -> "json", NULL. */
static void split_flag(const char *arg, char *name, size_t n, const char **value)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg) - 2;
    snprintf(name, n, "%.*s", (int)(len < n ? len : n - 1), arg + 2);
    *value = eq ? eq + 1 : NULL;
}

/* Checks each flag after the command against its table row: known, with a value when it
 * takes one. Returns 0, or prints the problem and returns CL_EXIT_USAGE. */
static int validate(const cl_command *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--"))
            break;
        if (a[0] != '-' || !strcmp(a, "-"))
            continue;
        if (a[1] != '-') {
            cl_cli_error(c->name, CL_T("unknown option '%s' — see 'cudalab %s --help'"), a, c->name);
            return CL_EXIT_USAGE;
        }
        char name[64];
        const char *value;
        split_flag(a, name, sizeof name, &value);
        if (!strcmp(name, "json") && (c->caps & CL_CMD_JSON))
            continue;
        const cl_flag *f = cl_command_flag(c, name);
        if (!f) {
            const char *near = cl_help_near_flag(c, name);
            if (near)
                cl_cli_error(c->name, CL_T("unknown option '--%s' — did you mean --%s?"), name, near);
            else if (!strcmp(name, "json"))
                cl_cli_error(c->name, CL_T("--json is not available here — see 'cudalab %s --help'"), c->name);
            else
                cl_cli_error(c->name, CL_T("unknown option '--%s' — see 'cudalab %s --help'"), name, c->name);
            return CL_EXIT_USAGE;
        }
        if (f->arg && !value) {
            if (i + 1 >= argc) {
                cl_cli_error(c->name, CL_T("--%s needs a value (%s) — see 'cudalab %s --help'"), name, f->arg,
                             c->name);
                return CL_EXIT_USAGE;
            }
            i++;
        } else if (!f->arg && value) {
            cl_cli_error(c->name, CL_T("--%s takes no value — write --%s alone"), name, name);
            return CL_EXIT_USAGE;
        }
    }
    return 0;
}

/* HOME unset or read-only: one line, then carry on in a temporary folder. */
static void paths_warning(const char *why, const char *dir)
{
    cl_cli_warn(cl_cli_command(), CL_T("%s — progress and caches go to %s for now (set XDG_DATA_HOME and "
                                       "XDG_CACHE_HOME to keep them)"),
                why, dir);
}

int main(int argc, char **argv)
{
    /* UTF-8 character classes for display widths; numbers and messages stay as they are */
    if (!setlocale(LC_CTYPE, "") || !strstr(setlocale(LC_CTYPE, NULL), "UTF-8"))
        setlocale(LC_CTYPE, "C.UTF-8");
    cl_paths_set_exe(argv[0]);
    cl_paths_set_warn(paths_warning);

    /* global flags, before or after the command; the rest keeps its order */
    char **rest = calloc((size_t)argc + 2, sizeof *rest);
    if (!rest)
        return CL_EXIT_INTERNAL;
    int n = 0, no_color = 0, json = 0, help = 0, version = 0, dashdash = 0;
    const char *lang_flag = NULL, *cmd_name = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (dashdash) {
            rest[n++] = argv[i];
            continue;
        }
        if (!strcmp(a, "--")) {
            dashdash = 1;
            rest[n++] = argv[i];
        } else if (!strcmp(a, "--no-color") || !strcmp(a, "--no-colour")) {
            no_color = 1;
        } else if (!strcmp(a, "--lang")) {
            lang_flag = i + 1 < argc ? argv[++i] : "";
        } else if (!strncmp(a, "--lang=", 7)) {
            lang_flag = a + 7;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help = 1;
        } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            version = 1;
        } else {
            if (!cmd_name && a[0] != '-')
                cmd_name = a;
            rest[n++] = argv[i];
        }
    }
    cl_term_init(no_color);
    cl_lang lang;
    if (cl_lang_pick(lang_flag, &lang) || (lang_flag && !*lang_flag)) {
        cl_lang_set(CL_LANG_EN);
        cl_cli_error(NULL, CL_T("--lang is en or zh, not '%s' — write --lang en or --lang zh"), lang_flag);
        free(rest);
        return CL_EXIT_USAGE;
    }
    cl_lang_set(lang);
    int rc;
    if (version) {
        printf("cudalab %s\n", CUDALAB_VERSION);
        rc = CL_EXIT_OK;
    } else if (!cmd_name || (n && rest[0] != cmd_name)) {
        if (help && !cmd_name) {
            cl_help_print_main(stdout);
            rc = CL_EXIT_OK;
        } else if (!cmd_name && n == 0) {
            cl_help_print_main(stderr);
            rc = CL_EXIT_USAGE;
        } else {
            cl_cli_error(NULL, CL_T("'%s' comes before the command — write cudalab <command> [options]"), rest[0]);
            rc = CL_EXIT_USAGE;
        }
    } else {
        const cl_command *c = cl_command_find(cmd_name);
        if (!c) {
            const char *near = cl_help_near_command(cmd_name);
            if (near)
                cl_cli_error(NULL, CL_T("unknown command '%s' — did you mean 'cudalab %s'?"), cmd_name, near);
            else
                cl_cli_error(NULL, CL_T("unknown command '%s' — 'cudalab help' lists the commands"), cmd_name);
            rc = CL_EXIT_USAGE;
        } else if (help) {
            cl_help_print_command(stdout, c);
            rc = CL_EXIT_OK;
        } else if ((rc = validate(c, n, rest)) == 0) {
            if (json && (c->caps & CL_CMD_JSON)) { /* right after the command, before any "--" */
                memmove(rest + 2, rest + 1, (size_t)(n - 1) * sizeof *rest);
                rest[1] = "--json";
                n++;
            } else if (json) {
                cl_cli_error(c->name, CL_T("--json is not available here — see 'cudalab %s --help'"), c->name);
                free(rest);
                return CL_EXIT_USAGE;
            }
            rest[n] = NULL;
            cl_cli_set_command(c->name);
            rc = c->run(n, rest);
        }
    }
    free(rest);
    return rc;
}
