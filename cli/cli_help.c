/* cli_help.c: help, did-you-mean, completion scripts and the man page, all generated from
 * the command table (command_table.c), so none of them can disagree with the parser. */
#include "cli_help.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "i18n.h"
#include "term.h"

static const struct {
    int code;
    const char *meaning;
} exit_codes[] = {
    {CL_EXIT_OK, "success"},
    {CL_EXIT_FAILED, "the solution, answer or check failed"},
    {CL_EXIT_USAGE, "usage error: the command line was wrong"},
    {CL_EXIT_ENV, "environment problem: no GPU, no nvcc, a folder that cannot be written"},
    {CL_EXIT_INTERNAL, "cudalab's own failure (a bug, or broken data)"},
};
#define NEXIT ((int)(sizeof exit_codes / sizeof exit_codes[0]))

static int visible(const cl_command *c) { return !(c->caps & CL_CMD_HIDDEN); }

/* Word-wraps text at width columns after indent spaces; CJK text breaks between characters. */
static void wrap(FILE *f, const char *text, int indent, int width)
{
    int col = 0, spaces = 0;
    const char *p = text;
    while (*p) {
        if (*p == ' ') {
            spaces++;
            p++;
            continue;
        }
        /* the next piece: an ASCII word, or one non-ASCII character */
        const char *e = p;
        if ((unsigned char)*p < 0x80) {
            while (*e && (unsigned char)*e < 0x80 && *e != ' ')
                e++;
        } else {
            e++;
            while ((*e & 0xC0) == 0x80)
                e++;
        }
        char piece[512];
        snprintf(piece, sizeof piece, "%.*s", (int)(e - p), p);
        int w = cl_text_width(piece);
        if (col == 0 || col + spaces + w > width) {
            fprintf(f, "%s%*s", col ? "\n" : "", indent, "");
            col = indent;
        } else {
            fprintf(f, "%*s", spaces, "");
            col += spaces;
        }
        fputs(piece, f);
        col += w;
        spaces = 0;
        p = e;
    }
    if (col)
        fputc('\n', f);
}

static int term_width(void)
{
    const char *c = getenv("COLUMNS");
    int w = c ? atoi(c) : 0;
    return w >= 40 && w <= 200 ? w : 80;
}

static void print_exit_codes(FILE *f)
{
    fprintf(f, "%s%s%s\n", cl_c(f, CL_BOLD), CL_T("exit codes:"), cl_c0(f));
    for (int i = 0; i < NEXIT; i++)
        fprintf(f, "  %d  %s\n", exit_codes[i].code, CL_T(exit_codes[i].meaning));
}

void cl_help_print_main(FILE *f)
{
    const char *B = cl_c(f, CL_BOLD), *C = cl_c(f, CL_CYAN), *Z = cl_c0(f);
    fprintf(f, "%s%s%s cudalab [--lang en|zh] [--no-color] [--json] <command> [options]\n\n", B, CL_T("usage:"), Z);
    fprintf(f, "%s%s%s\n", B, CL_T("commands:"), Z);
    for (const cl_command *c = cl_commands; c->name; c++)
        if (visible(c)) {
            fprintf(f, "  %s%-11s%s ", C, c->name, Z);
            fputs(CL_T(c->summary), f);
            fputc('\n', f);
        }
    fprintf(f, "\n%s%s%s\n", B, CL_T("global options (before or after the command):"), Z);
    for (const cl_flag *g = cl_global_flags; g->name; g++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", g->name, g->arg ? " " : "", g->arg ? g->arg : "");
        fprintf(f, "  %-18s %s\n", left, CL_T(g->help));
    }
    fputc('\n', f);
    print_exit_codes(f);
    fprintf(f, "\n%s\n", CL_T("'cudalab help <command>' or 'cudalab <command> --help' describes a command."));
}

void cl_help_print_command(FILE *f, const cl_command *c)
{
    const char *B = cl_c(f, CL_BOLD), *Z = cl_c0(f);
    int width = term_width();
    fprintf(f, "%s%s%s cudalab %s%s%s [options]\n", B, CL_T("usage:"), Z, c->name, c->args[0] ? " " : "", c->args);
    wrap(f, CL_T(c->summary), 2, width);
    if (c->about) {
        fputc('\n', f);
        wrap(f, CL_T(c->about), 2, width);
    }
    int any = 0;
    for (const cl_flag *fl = c->flags; fl->name; fl++)
        any |= fl->help != NULL;
    if (any || (c->caps & CL_CMD_JSON)) {
        fprintf(f, "\n%s%s%s\n", B, CL_T("options:"), Z);
        for (const cl_flag *fl = c->flags; fl->name; fl++) {
            if (!fl->help)
                continue;
            char left[64];
            snprintf(left, sizeof left, "--%s%s%s", fl->name, fl->arg ? " " : "", fl->arg ? fl->arg : "");
            fprintf(f, "  %-20s ", left);
            fputs(CL_T(fl->help), f);
            fputc('\n', f);
        }
        if (c->caps & CL_CMD_JSON)
            fprintf(f, "  %-20s %s\n", "--json", CL_T("print a machine-readable report on stdout (docs/cli.md)"));
    }
    fprintf(f, "\n%s%s%s --lang en|zh, --no-color, -h/--help, -V/--version\n", B, CL_T("global options:"), Z);
    fputc('\n', f);
    print_exit_codes(f);
}

void cl_help_print_json(FILE *f)
{
    json_t *root = json_object(), *cmds = json_array(), *codes = json_array();
    json_object_set_new(root, "version", json_string(CUDALAB_VERSION));
    for (const cl_command *c = cl_commands; c->name; c++) {
        if (!visible(c))
            continue;
        json_t *flags = json_array();
        for (const cl_flag *fl = c->flags; fl->name; fl++)
            json_array_append_new(flags, json_pack("{s:s, s:s?, s:s?, s:b}", "name", fl->name, "arg", fl->arg, "help",
                                                   fl->help ? CL_T(fl->help) : NULL, "hidden", fl->help == NULL));
        if (c->caps & CL_CMD_JSON)
            json_array_append_new(flags, json_pack("{s:s, s:s, s:b}", "name", "json", "help",
                                                   CL_T("print a machine-readable report on stdout (docs/cli.md)"),
                                                   "hidden", 0));
        json_array_append_new(cmds, json_pack("{s:s, s:s, s:s, s:b, s:o}", "name", c->name, "args", c->args,
                                              "summary", CL_T(c->summary), "json", (c->caps & CL_CMD_JSON) != 0,
                                              "flags", flags));
    }
    json_t *globals = json_array();
    for (const cl_flag *g = cl_global_flags; g->name; g++)
        json_array_append_new(globals, json_pack("{s:s, s:s?, s:s}", "name", g->name, "arg", g->arg, "help", CL_T(g->help)));
    for (int i = 0; i < NEXIT; i++)
        json_array_append_new(codes, json_pack("{s:i, s:s}", "code", exit_codes[i].code, "meaning",
                                               CL_T(exit_codes[i].meaning)));
    json_object_set_new(root, "commands", cmds);
    json_object_set_new(root, "global_flags", globals);
    json_object_set_new(root, "exit_codes", codes);
    char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fprintf(f, "%s\n", s);
    free(s);
    json_decref(root);
}

/* Optimal string alignment distance (a swap of two neighbours counts 1). */
static int distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    int d[41][41];
    for (int i = 0; i <= la; i++)
        d[i][0] = i;
    for (int j = 0; j <= lb; j++)
        d[0][j] = j;
    for (int i = 1; i <= la; i++)
        for (int j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *cl_help_nearest(const char *name, const char *const *names, int n)
{
    const char *best = NULL;
    int best_d = 99, len = (int)strlen(name);
    int limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    for (int i = 0; i < n; i++) {
        int d = distance(name, names[i]);
        if (len >= 3 && !strncmp(names[i], name, (size_t)len)) /* a prefix of it */
            d = d < 1 ? d : 1;
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best_d <= limit ? best : NULL;
}

const char *cl_help_near_command(const char *name)
{
    const char *names[64];
    int n = 0;
    for (const cl_command *c = cl_commands; c->name && n < 64; c++)
        if (visible(c))
            names[n++] = c->name;
    return cl_help_nearest(name, names, n);
}

const char *cl_help_near_flag(const cl_command *c, const char *name)
{
    const char *names[64];
    int n = 0;
    for (const cl_flag *fl = c->flags; fl->name && n < 62; fl++)
        if (fl->help)
            names[n++] = fl->name;
    if (c->caps & CL_CMD_JSON)
        names[n++] = "json";
    return cl_help_nearest(name, names, n);
}

/* A description safe inside single quotes and zsh's [...] (English: completion menus are terse). */
static void put_desc(FILE *f, const char *s)
{
    for (; *s; s++)
        fputs(*s == '\'' ? "" : *s == '[' ? "(" : *s == ']' ? ")" : *s == ':' ? " -" : (char[]){*s, 0}, f);
}

static void bash_words(FILE *f, const cl_command *c)
{
    for (const cl_flag *fl = c->flags; fl->name; fl++)
        if (fl->help)
            fprintf(f, " --%s", fl->name);
    if (c->caps & CL_CMD_JSON)
        fprintf(f, " --json");
    fprintf(f, " --help --lang --no-color");
}

static void completion_bash(FILE *f)
{
    fprintf(f, "# bash completion for cudalab (generated by 'cudalab completion bash')\n"
               "_cudalab() {\n"
               "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" cmd= w\n"
               "  for w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n"
               "    case \"$w\" in -*) ;; *) cmd=\"$w\"; break ;; esac\n"
               "  done\n"
               "  case \"$prev\" in\n"
               "    --lang) COMPREPLY=($(compgen -W 'en zh' -- \"$cur\")); return ;;\n");
    /* flags that take a value: complete files */
    fprintf(f, "    ");
    int first = 1;
    for (const cl_command *c = cl_commands; c->name; c++)
        for (const cl_flag *fl = c->flags; fl->name; fl++)
            if (fl->arg && fl->help) {
                fprintf(f, "%s--%s", first ? "" : "|", fl->name);
                first = 0;
            }
    fprintf(f, ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n  esac\n  case \"$cmd\" in\n");
    fprintf(f, "    '') COMPREPLY=($(compgen -W '");
    for (const cl_command *c = cl_commands; c->name; c++)
        if (visible(c))
            fprintf(f, "%s ", c->name);
    fprintf(f, "--help --version --lang --no-color' -- \"$cur\")); return ;;\n");
    for (const cl_command *c = cl_commands; c->name; c++) {
        if (!visible(c))
            continue;
        fprintf(f, "    %s) w='", c->name);
        bash_words(f, c);
        if (!strcmp(c->name, "help"))
            for (const cl_command *d = cl_commands; d->name; d++)
                fprintf(f, " %s", d->name);
        if (!strcmp(c->name, "completion"))
            fprintf(f, " bash zsh fish");
        fprintf(f, "' ;;\n");
    }
    fprintf(f, "  esac\n"
               "  if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"$w\" -- \"$cur\"));\n"
               "  else COMPREPLY=($(compgen -W \"$w\" -- \"$cur\") $(compgen -f -- \"$cur\")); fi\n"
               "}\n"
               "complete -o filenames -F _cudalab cudalab\n");
}

static void completion_zsh(FILE *f)
{
    fprintf(f, "#compdef cudalab\n# zsh completion for cudalab (generated by 'cudalab completion zsh')\n"
               "_cudalab() {\n  local -a cmds\n  cmds=(\n");
    for (const cl_command *c = cl_commands; c->name; c++)
        if (visible(c)) {
            fprintf(f, "    '%s:", c->name);
            put_desc(f, c->summary);
            fprintf(f, "'\n");
        }
    fprintf(f, "  )\n  if (( CURRENT == 2 )); then _describe 'command' cmds; return; fi\n"
               "  local -a common=('--lang[language]:lang:(en zh)' '--no-color[no colours]' '(-h --help)'{-h,--help}'[help]')\n"
               "  case $words[2] in\n");
    for (const cl_command *c = cl_commands; c->name; c++) {
        if (!visible(c))
            continue;
        fprintf(f, "    %s) _arguments $common", c->name);
        for (const cl_flag *fl = c->flags; fl->name; fl++) {
            if (!fl->help)
                continue;
            fprintf(f, " '--%s[", fl->name);
            put_desc(f, fl->help);
            fprintf(f, "]%s%s%s'", fl->arg ? ":" : "", fl->arg ? fl->arg : "", fl->arg ? ":_files" : "");
        }
        if (c->caps & CL_CMD_JSON)
            fprintf(f, " '--json[machine-readable report]'");
        if (!strcmp(c->name, "completion"))
            fprintf(f, " '1:shell:(bash zsh fish)'");
        else if (!strcmp(c->name, "help"))
            fprintf(f, " '1:command:->cmds'");
        else
            fprintf(f, " '*:file:_files'");
        fprintf(f, " ;;\n");
    }
    fprintf(f, "  esac\n  [[ $state == cmds ]] && _describe 'command' cmds\n}\n_cudalab \"$@\"\n");
}

static void completion_fish(FILE *f)
{
    fprintf(f, "# fish completion for cudalab (generated by 'cudalab completion fish')\n"
               "complete -c cudalab -l lang -x -a 'en zh' -d 'language'\n"
               "complete -c cudalab -l no-color -d 'no colours'\n"
               "complete -c cudalab -s h -l help -d 'help'\n"
               "complete -c cudalab -s V -l version -d 'version'\n");
    for (const cl_command *c = cl_commands; c->name; c++) {
        if (!visible(c))
            continue;
        fprintf(f, "complete -c cudalab -n __fish_use_subcommand -f -a %s -d '", c->name);
        put_desc(f, c->summary);
        fprintf(f, "'\n");
        for (const cl_flag *fl = c->flags; fl->name; fl++) {
            if (!fl->help)
                continue;
            fprintf(f, "complete -c cudalab -n '__fish_seen_subcommand_from %s' -l %s%s -d '", c->name, fl->name,
                    fl->arg ? " -r" : "");
            put_desc(f, fl->help);
            fprintf(f, "'\n");
        }
        if (c->caps & CL_CMD_JSON)
            fprintf(f, "complete -c cudalab -n '__fish_seen_subcommand_from %s' -l json -d 'machine-readable report'\n",
                    c->name);
    }
    fprintf(f, "complete -c cudalab -n '__fish_seen_subcommand_from completion' -f -a 'bash zsh fish'\n");
}

int cl_help_completion(FILE *f, const char *shell)
{
    if (!strcmp(shell, "bash"))
        completion_bash(f);
    else if (!strcmp(shell, "zsh"))
        completion_zsh(f);
    else if (!strcmp(shell, "fish"))
        completion_fish(f);
    else
        return -1;
    return 0;
}

/* roff text: backslashes and dashes escaped, no line starting with . or '. */
static void roff(FILE *f, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", f);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
    }
}

/* ".TP / .B --name ARG / help" for one flag. */
static void man_flag(FILE *f, const cl_flag *fl)
{
    fputs(".TP\n.B \\-\\-", f);
    roff(f, fl->name);
    if (fl->arg) {
        fputs(" \\fI", f);
        roff(f, fl->arg);
        fputs("\\fR", f);
    }
    fputs("\n", f);
    roff(f, fl->help);
    fputs("\n", f);
}

void cl_help_man(FILE *f)
{
    fprintf(f, ".\\\" cudalab.1: generated by 'cudalab man' from the command table\n"
               ".TH CUDALAB 1 \"\" \"cudalab %s\" \"User Commands\"\n"
               ".SH NAME\ncudalab \\- a CUDA interview and training lab\n"
               ".SH SYNOPSIS\n.B cudalab\n[\\fB\\-\\-lang\\fR en|zh] [\\fB\\-\\-no\\-color\\fR] [\\fB\\-\\-json\\fR] "
               "\\fIcommand\\fR [\\fIoptions\\fR]\n"
               ".SH DESCRIPTION\nHands-on CUDA kernel labs graded automatically (correctness against a CPU "
               "reference, then speed as a fraction of this GPU's measured ceilings), and a bilingual question "
               "bank for quizzes, spaced review, mock interviews and classroom exams.\n"
               ".SH COMMANDS\n",
            CUDALAB_VERSION);
    for (const cl_command *c = cl_commands; c->name; c++) {
        if (!visible(c))
            continue;
        fprintf(f, ".TP\n.B cudalab %s", c->name);
        if (c->args[0]) {
            fputs(" ", f);
            roff(f, c->args);
        }
        fputs("\n", f);
        roff(f, c->summary);
        fputs(".\n", f);
        if (c->about) {
            roff(f, c->about);
            fputs("\n", f);
        }
        for (const cl_flag *fl = c->flags; fl->name; fl++)
            if (fl->help) {
                fputs(".RS\n", f);
                man_flag(f, fl);
                fputs(".RE\n", f);
            }
        if (c->caps & CL_CMD_JSON)
            fputs(".RS\n.TP\n.B \\-\\-json\nprint a machine\\-readable report on stdout\n.RE\n", f);
    }
    fputs(".SH GLOBAL OPTIONS\nAccepted before or after the command.\n", f);
    for (const cl_flag *g = cl_global_flags; g->name; g++)
        man_flag(f, g);
    fputs(".SH EXIT STATUS\n", f);
    for (int i = 0; i < NEXIT; i++) {
        fprintf(f, ".TP\n.B %d\n", exit_codes[i].code);
        roff(f, exit_codes[i].meaning);
        fputs("\n", f);
    }
    fputs(".SH ENVIRONMENT\n"
          ".TP\n.B CUDALAB_LANG\nen or zh; after \\-\\-lang, before the config file and the locale "
          "(LANGUAGE, LC_ALL, LC_MESSAGES, LANG; C and C.UTF\\-8 are skipped).\n"
          ".TP\n.B CUDALAB_HOME\nthe folder holding labs/, reference/ and questions/.\n"
          ".TP\n.B NO_COLOR\nno colours.\n"
          ".TP\n.B XDG_DATA_HOME, XDG_CACHE_HOME, XDG_CONFIG_HOME\nprogress, caches and the config file "
          "(cudalab/config.yaml, e.g. lang: zh); without HOME or write access, a temporary folder.\n"
          ".SH SEE ALSO\nThe README and docs/ of the cudalab source.\n",
          f);
}
