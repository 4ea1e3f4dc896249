/* test_classroom.c: the classroom's library parts: course config (values and file:line
 * errors), dates, per-student seeds, intake and the roster, safe archive extraction,
 * the gradebook's key, transactions, NULL scores and migration, CSV quoting. End-to-end runs are in
 * classroom_test.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grader/classroom.h"
#include "strbuf.h"
#include "testutil.h"

static char *dir;

static void setup(void) { dir = tu_tempdir("classroom"); }
static void teardown(void)
{
    tu_rmtree(dir);
    free(dir);
}

static const char *write_private(const char *name, const char *text)
{
    const char *p = tu_write(dir, name, text);
    chmod(p, 0600);
    return p;
}

START_TEST(course_config_values)
{
    write_private("secret.txt", "0123456789abcdef-secret\n");
    char path[4096];
    snprintf(path, sizeof path, "%s", write_private("course.yaml",
        "course: GPU 101\n"
        "secret_file: secret.txt\n"
        "late: {penalty_per_day: 0.1, max_days: 3}\n"
        "sandbox: {mode: namespaces, uid: 70000}\n"
        "slurm: {partition: gpu, gres: \"gpu:h100:1\", options: [\"--account=cs101\"]}\n"
        "defaults:\n"
        "  deadline: 2026-12-01T23:59:00Z\n"
        "  headers: {banned: [cublas_v2.h]}\n"
        "  limits: {timeout_scale: 2, max_file_mb: 64, max_procs: 32}\n"
        "labs:\n"
        "  reduce:\n"
        "    deadline: 2026-12-08T12:00:00+02:00\n"
        "    weights: {correctness: 50, pass: 10, good: 30, excellent: 50}\n"
        "    tiers: {pass: 0.4, good: 0.6, excellent: 0.85}\n"
        "    headers: {allowed: [cuda_runtime.h], banned: [thrust/sort.h]}\n"
        "    libraries: {banned: [cublas]}\n"
        "    sanitizer: true\n"));
    cl_course c;
    cl_err err;
    ck_assert_msg(cl_course_load(path, &c, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(c.name, "GPU 101");
    ck_assert_str_eq((char *)c.secret, "0123456789abcdef-secret");
    ck_assert(c.late_penalty_per_day == 0.1 && c.late_max_days == 3);
    ck_assert(c.sandbox == CL_SANDBOX_NAMESPACES && c.sandbox_uid == 70000);
    ck_assert_str_eq(c.slurm_gres, "gpu:h100:1");
    ck_assert_int_eq(c.slurm_extra.n, 1);
    ck_assert_int_eq(strlen(c.hash), 64);
    cl_course_rules r;
    cl_course_rules_for(&c, "reduce", &r);
    ck_assert(r.have_deadline && r.deadline == 1796724000LL); /* 2026-12-08 10:00 UTC */
    ck_assert(r.have_weights && r.w_excellent == 50 && r.have_tiers && r.tier_good == 0.6);
    ck_assert(r.have_sanitize && r.sanitize);
    ck_assert(r.have_timeout_scale && r.timeout_scale == 2 && r.max_procs == 32);
    ck_assert_int_eq(r.banned_headers.n, 2); /* defaults' and the lab's add up */
    ck_assert(r.have_allowed_headers && r.allowed_headers.n == 1);
    cl_course_rules_for(&c, "transpose", &r);
    ck_assert(r.deadline == 1796169540LL && !r.have_weights && r.banned_headers.n == 1);
    cl_course_free(&c);
}
END_TEST

static void expect_error(const char *yaml, const char *where, const char *needle)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", write_private("bad.yaml", yaml));
    cl_course c;
    cl_err err;
    ck_assert_msg(cl_course_load(path, &c, &err) == -1, "accepted: %s", yaml);
    char want[4200];
    snprintf(want, sizeof want, "%s%s", path, where);
    ck_assert_msg(tu_contains(err.msg, want), "wanted '%s' in: %s", want, err.msg);
    ck_assert_msg(tu_contains(err.msg, needle), "wanted '%s' in: %s", needle, err.msg);
}

START_TEST(course_config_errors)
{
    expect_error("course: x\nlimits: {}\n", ":2:", "limits");
    expect_error("course: x\ndefaults:\n  tiers: {pass: 0.9, good: 0.5, excellent: 1}\n", ":3:", "grow");
    expect_error("course: x\ndefaults:\n  deadline: tomorrow\n", ":3:", "not a date");
    expect_error("course: x\nlabs:\n  reduce:\n    weights: {correctness: -1, pass: 1, good: 2, excellent: 3}\n",
                 ":4:", "correctness");
    expect_error("course: x\nsecret: short\n", ":2:", "16 characters");
    expect_error("course: x\nsecret_file: nowhere.txt\n", ":2:", "nowhere.txt");
    expect_error("course: x\nsandbox: {mode: docker}\n", ":2:", "sandbox.mode");
    expect_error("course: x\nslurm: {options: [\"rm -rf /\"]}\n", ":2:", "sbatch option");
    expect_error("course: [x\n", ":", "");
    /* a secret others can read */
    write_private("s2.txt", "0123456789abcdef0123");
    char p[4096];
    cl_path_join(p, sizeof p, dir, "s2.txt");
    chmod(p, 0644);
    expect_error("course: x\nsecret_file: s2.txt\n", ":2:", "chmod 600");
}
END_TEST

START_TEST(times)
{
    long long t;
    ck_assert(cl_parse_time("2026-12-01T23:59:00Z", &t) == 0 && t == 1796169540LL);
    ck_assert(cl_parse_time("2026-12-02T01:59:00+02:00", &t) == 0 && t == 1796169540LL);
    /* RFC 3339 as Gradescope writes it: fractional seconds and an offset */
    ck_assert(cl_parse_time("2026-11-20T14:22:32.365935-08:00", &t) == 0 && t == 1795213352LL);
    /* no zone, or a date alone: refused, never guessed */
    ck_assert(cl_parse_time("2026-12-01 23:59", &t) == -1);
    ck_assert(cl_parse_time("2026-12-01", &t) == -1);
    ck_assert(cl_parse_time("2026-02-30T10:00:00Z", &t) == -1);
    ck_assert(cl_parse_time("2028-02-29T10:00:00Z", &t) == 0);
    ck_assert(cl_parse_time("2026-12-01T24:00:00Z", &t) == -1);
    ck_assert(cl_parse_time("2026-12-01T23:59:00+25:00", &t) == -1);
    ck_assert(cl_parse_time("2026-12-01T23:59:00.Z", &t) == -1);
    ck_assert(cl_parse_time("2026-13-01", &t) == -1);
    ck_assert(cl_parse_time("soon", &t) == -1);
    ck_assert(cl_parse_time("2026-12-01T23:59:00Zjunk", &t) == -1);
}
END_TEST

START_TEST(deadlines)
{
    long long t;
    char why[400];
    /* a date is the end of that day in the course's zone: 2026-11-20 23:59:59 PST */
    ck_assert(cl_parse_deadline("2026-11-20", "America/Los_Angeles", &t, why, sizeof why) == 0 && t == 1795247999LL);
    ck_assert(cl_parse_deadline("2026-11-20T12:00", "UTC", &t, why, sizeof why) == 0 && t == 1795176000LL);
    ck_assert(cl_parse_deadline("2026-11-20T12:00:00+01:00", NULL, &t, why, sizeof why) == 0 && t == 1795172400LL);
    ck_assert(cl_parse_deadline("2026-11-20", NULL, &t, why, sizeof why) == -1);
    ck_assert_msg(tu_contains(why, "timezone"), "%s", why);
    ck_assert(cl_parse_deadline("2026-02-30", "UTC", &t, why, sizeof why) == -1);
    ck_assert(cl_timezone_valid("Europe/Berlin") && !cl_timezone_valid("Mars/Olympus") &&
              !cl_timezone_valid("../etc/passwd"));
}
END_TEST

START_TEST(student_ids)
{
    char id[128], k1[512], k2[512];
    ck_assert(cl_student_id("张伟", id, sizeof id) == 0);
    ck_assert_str_eq(id, "张伟");
    ck_assert(cl_student_id("Jose\xcc\x81", id, sizeof id) == 0); /* NFD -> NFC */
    ck_assert_str_eq(id, "Jos\xc3\xa9");
    ck_assert(cl_student_id("=HYPERLINK(\"x\")", id, sizeof id) == 1);
    ck_assert_str_eq(id, "_HYPERLINK__x__");
    ck_assert(cl_student_id("../..", id, sizeof id) == 1 && !strchr(id, '/') && id[0] != '.');
    ck_assert(cl_student_id("a\xff\xfe", id, sizeof id) == 1); /* not UTF-8 */
    ck_assert_str_eq(id, "a__");
    ck_assert(cl_student_id("\xe2\x80\xae" "evil", id, sizeof id) == 1); /* a bidi override */
    ck_assert_str_eq(id, "_evil");
    char longname[400];
    memset(longname, 'x', 300);
    longname[300] = '\0';
    ck_assert(cl_student_id(longname, id, sizeof id) == 1 && strlen(id) == 100);
    cl_student_key("ALICE", k1, sizeof k1);
    cl_student_key("alice", k2, sizeof k2);
    ck_assert_str_eq(k1, k2);
}
END_TEST

START_TEST(seeds)
{
    const unsigned char *k = (const unsigned char *)"course secret one";
    uint64_t a = cl_student_seed(k, 17, "reduce", "alice", "00ff");
    ck_assert(a == cl_student_seed(k, 17, "reduce", "alice", "00ff"));
    ck_assert(a != cl_student_seed(k, 17, "reduce", "bob", "00ff"));
    ck_assert(a != cl_student_seed(k, 17, "gemm", "alice", "00ff"));
    ck_assert(a != cl_student_seed(k, 17, "reduce", "alice", "00fe"));
    ck_assert(a != cl_student_seed((const unsigned char *)"course secret two", 17, "reduce", "alice", "00ff"));
    /* fields are separated: ("ab", "c") is not ("a", "bc") */
    ck_assert(cl_student_seed(k, 17, "ab", "c", "x") != cl_student_seed(k, 17, "a", "bc", "x"));
    ck_assert(a > 0 && a < (1ull << 48));
    char hex[CL_SHA256_HEX];
    cl_sha256_hex("abc", 3, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
END_TEST

static void notes(void *ctx, const char *msg)
{
    int *n = ctx;
    (*n)++;
    (void)msg;
}

START_TEST(intake_and_roster)
{
    char subs[4096], p[4096];
    cl_path_join(subs, sizeof subs, dir, "subs");
    mkdir(subs, 0755);
    tu_write(subs, "alice.cu", "// a\n");
    tu_write(subs, "bob smith.zip", "not really");
    tu_write(subs, ".hidden", "x");
    cl_path_join(p, sizeof p, subs, "carol");
    mkdir(p, 0755);
    tu_write(p, "reduce.cu", "// c\n");
    cl_path_join(p, sizeof p, subs, "out");
    mkdir(p, 0755);
    const char *roster = tu_write(dir, "roster.csv",
                                  "\xEF\xBB\xBFStudent_ID,Name,Email\r\nalice,\"Liddell, Alice\",a@x\r\n"
                                  "dave,Dave,d@x\r\n\r\nalice,Again,z@x\r\n");
    char roster_path[4096];
    snprintf(roster_path, sizeof roster_path, "%s", roster);
    cl_submission *s;
    int n, nn = 0;
    cl_err err;
    ck_assert_msg(cl_intake_scan(subs, p, roster_path, &s, &n, notes, &nn, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(n, 4); /* alice, bob_smith, carol, dave (missing); out skipped */
    ck_assert_str_eq(s[0].student, "alice");
    ck_assert_str_eq(s[0].name, "Liddell, Alice");
    ck_assert(s[0].kind == CL_SUB_FILE && s[0].in_roster);
    ck_assert_str_eq(s[1].student, "bob_smith");
    ck_assert(s[1].kind == CL_SUB_ARCHIVE && !s[1].in_roster);
    ck_assert(s[2].kind == CL_SUB_DIR && strlen(s[2].sha256) == 64);
    ck_assert_str_eq(s[3].student, "dave");
    ck_assert(s[3].kind == CL_SUB_NONE);
    ck_assert_int_ge(nn, 3); /* renamed id, two not in the roster, a duplicate row */
    /* a folder's hash changes with its contents */
    char h1[CL_SHA256_HEX];
    snprintf(h1, sizeof h1, "%s", s[2].sha256);
    free(s);
    cl_path_join(p, sizeof p, subs, "carol");
    tu_write(p, "reduce.cu", "// changed\n");
    ck_assert(cl_intake_scan(subs, NULL, NULL, &s, &n, NULL, NULL, &err) == 0);
    ck_assert_str_ne(s[2].sha256, h1);
    free(s);
    /* two submissions for one student */
    tu_write(subs, "alice.zip", "x");
    ck_assert(cl_intake_scan(subs, NULL, NULL, &s, &n, NULL, NULL, &err) == -1);
    ck_assert(tu_contains(err.msg, "two submissions for student 'alice'"));
}
END_TEST

/* ---- archives: a minimal ustar writer (the test must not depend on libarchive's
 * writer, which a static build does not carry) ---- */

typedef struct member {
    const char *name;
    char type; /* '0' file, '5' folder, '2' symbolic link, '1' hard link */
    const char *data;
    const char *link;
} member;

static void octal(char *field, size_t n, unsigned long long v) { snprintf(field, n, "%0*llo", (int)n - 1, v); }

static const char *make_tar(const char *name, const member *m, int n)
{
    static char path[4096];
    cl_path_join(path, sizeof path, dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    for (int i = 0; i < n; i++) {
        unsigned char h[512];
        memset(h, 0, sizeof h);
        size_t len = m[i].data ? strlen(m[i].data) : 0;
        snprintf((char *)h, 100, "%s", m[i].name);
        octal((char *)h + 100, 8, 0644);
        octal((char *)h + 108, 8, 0);
        octal((char *)h + 116, 8, 0);
        octal((char *)h + 124, 12, len);
        octal((char *)h + 136, 12, 1700000000);
        h[156] = (unsigned char)m[i].type;
        if (m[i].link)
            snprintf((char *)h + 157, 100, "%s", m[i].link);
        memcpy(h + 257, "ustar", 6);
        memcpy(h + 263, "00", 2);
        memset(h + 148, ' ', 8);
        unsigned sum = 0;
        for (int k = 0; k < 512; k++)
            sum += h[k];
        snprintf((char *)h + 148, 8, "%06o", sum);
        fwrite(h, 1, 512, f);
        if (len) {
            fwrite(m[i].data, 1, len, f);
            static const char zero[512];
            fwrite(zero, 1, (512 - len % 512) % 512, f);
        }
    }
    static const char end[1024];
    fwrite(end, 1, sizeof end, f);
    fclose(f);
    return path;
}

static int extract(const char *arc, char *why, size_t n)
{
    char out[4096];
    cl_path_join(out, sizeof out, dir, "x");
    tu_rmtree(out);
    mkdir(out, 0755);
    cl_err err;
    int rc = cl_archive_extract(arc, out, why, n, &err);
    ck_assert_msg(rc >= 0, "%s", err.msg);
    return rc;
}

START_TEST(archives)
{
    char why[512], p[4096];
    member ok[] = {{"lab/", '5', NULL, NULL}, {"lab/reduce.cu", '0', "// ok\n", NULL},
                   {"./lab/notes/readme.txt", '0', "hi", NULL}};
    ck_assert_int_eq(extract(make_tar("ok.tar", ok, 3), why, sizeof why), 0);
    cl_path_join(p, sizeof p, dir, "x/lab/notes/readme.txt");
    ck_assert(cl_file_exists(p));
    member dotdot[] = {{"lab/../../escape.txt", '0', "x", NULL}};
    ck_assert_int_eq(extract(make_tar("dd.tar", dotdot, 1), why, sizeof why), 1);
    ck_assert(tu_contains(why, "'..'"));
    cl_path_join(p, sizeof p, dir, "escape.txt");
    ck_assert(!cl_file_exists(p));
    member abs_[] = {{"/tmp/cudalab-abs-escape", '0', "x", NULL}};
    ck_assert_int_eq(extract(make_tar("abs.tar", abs_, 1), why, sizeof why), 1);
    ck_assert(tu_contains(why, "absolute path"));
    member sym[] = {{"reduce.cu", '2', NULL, "/etc/shadow"}};
    ck_assert_int_eq(extract(make_tar("sym.tar", sym, 1), why, sizeof why), 1);
    ck_assert(tu_contains(why, "symbolic link"));
    member hard[] = {{"a.cu", '0', "x", NULL}, {"reduce.cu", '1', NULL, "a.cu"}};
    ck_assert_int_eq(extract(make_tar("hard.tar", hard, 2), why, sizeof why), 1);
    ck_assert(tu_contains(why, "hard link"));
    /* a refused archive leaves nothing behind */
    cl_path_join(p, sizeof p, dir, "x/a.cu");
    ck_assert(!cl_file_exists(p));
    member twice[] = {{"reduce.cu", '0', "1", NULL}, {"reduce.cu", '0', "2", NULL}};
    ck_assert_int_eq(extract(make_tar("twice.tar", twice, 2), why, sizeof why), 1);
    ck_assert(tu_contains(why, "appears twice"));
    member dev[] = {{"reduce.cu", '0', "x", NULL}, {"null", '3', NULL, NULL}};
    ck_assert_int_eq(extract(make_tar("dev.tar", dev, 2), why, sizeof why), 1);
    ck_assert(tu_contains(why, "device"));
    const char *junk = tu_write(dir, "junk.zip", "PK this is not a zip at all");
    char jp[4096];
    snprintf(jp, sizeof jp, "%s", junk);
    ck_assert_int_eq(extract(jp, why, sizeof why), 1);
    ck_assert(tu_contains(why, "not a readable"));
    ck_assert_int_eq(cl_is_archive_name("a.tar.gz") + cl_is_archive_name("a.ZIP") + cl_is_archive_name("a.cu"), 2);
}
END_TEST

/* ---- the gradebook ---- */

static json_t *result_json(const char *verdict, double score)
{
    json_t *r = json_pack("{s:s, s:s, s:f, s:f, s:I, s:[]}", "lab", "selftest", "verdict", verdict, "score", score,
                          "max_score", 100.0, "seed", (json_int_t)42, "cases");
    json_t *j = json_pack("{s:o, s:s}", "result", r, "config_hash", "c0ffee");
    return j;
}

START_TEST(gradebook_key_and_transactions)
{
    char path[4096];
    cl_path_join(path, sizeof path, dir, "gb.sqlite");
    sqlite3 *db;
    cl_err err;
    ck_assert(cl_gradebook_open(path, &db, &err) == 0);
    long long run = cl_gradebook_run_begin(db, "selftest", "local", &err);
    ck_assert(run > 0);
    cl_submission s;
    memset(&s, 0, sizeof s);
    snprintf(s.student, sizeof s.student, "alice");
    snprintf(s.sha256, sizeof s.sha256, "aa");
    snprintf(s.entry, sizeof s.entry, "alice.cu");
    cl_course c;
    cl_course_init(&c);
    c.late_penalty_per_day = 0.25;
    cl_course_rules rules;
    memset(&rules, 0, sizeof rules);
    rules.have_deadline = 1;
    rules.deadline = 1000000;
    s.submitted_at = 1000000 + 86400 + 5; /* two days started */
    json_t *j = result_json("pass", 80);
    ck_assert_int_eq(cl_gradebook_has(db, "alice", "selftest", "aa", "c0ffee", &err), 0);
    ck_assert_int_eq(cl_gradebook_record(db, run, &s, &c, &rules, j, &err), 0);
    ck_assert_int_eq(cl_gradebook_has(db, "alice", "selftest", "aa", "c0ffee", &err), 1);
    /* the same key again is kept, not replaced */
    json_t *j2 = result_json("wrong", 0);
    ck_assert_int_eq(cl_gradebook_record(db, run, &s, &c, &rules, j2, &err), 1);
    cl_grade_row row;
    ck_assert_int_eq(cl_gradebook_get(db, "alice", "selftest", "aa", "c0ffee", &row, &err), 0);
    ck_assert_str_eq(row.verdict, "pass");
    ck_assert_int_eq(row.late_days, 2);
    ck_assert(row.raw_score == 80 && row.score == 40 && row.penalty == 0.5);
    ck_assert(row.report && json_integer_value(json_object_get(row.report, "seed")) == 42);
    cl_grade_row_free(&row);
    /* another submission of the same student is another key */
    snprintf(s.sha256, sizeof s.sha256, "bb");
    ck_assert_int_eq(cl_gradebook_record(db, run, &s, &c, &rules, j2, &err), 0);
    int n;
    ck_assert(cl_gradebook_count(db, "selftest", &n, &err) == 0 && n == 2);
    /* a transaction left open by a crash does not block or corrupt the next writer */
    sqlite3 *other;
    ck_assert(cl_gradebook_open(path, &other, &err) == 0);
    ck_assert(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO runs (lab, mode, started_at) VALUES ('x','y',1);",
                           NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(other); /* closed without COMMIT: rolled back */
    snprintf(s.sha256, sizeof s.sha256, "cc");
    ck_assert_int_eq(cl_gradebook_record(db, run, &s, &c, &rules, j, &err), 0);
    ck_assert(cl_gradebook_count(db, "selftest", &n, &err) == 0 && n == 3);
    /* error and no_device are not final: graded again, the row replaced */
    snprintf(s.sha256, sizeof s.sha256, "dd");
    json_t *je = result_json("error", 0);
    ck_assert_int_eq(cl_gradebook_record(db, run, &s, &c, &rules, je, &err), 0);
    ck_assert_int_eq(cl_gradebook_has(db, "alice", "selftest", "dd", "c0ffee", &err), 0);
    ck_assert_int_eq(cl_gradebook_record(db, run, &s, &c, &rules, j, &err), 0);
    ck_assert_int_eq(cl_gradebook_has(db, "alice", "selftest", "dd", "c0ffee", &err), 1);
    ck_assert(cl_gradebook_count(db, "selftest", &n, &err) == 0 && n == 4);
    json_decref(je);
    json_decref(j);
    json_decref(j2);
    ck_assert(cl_gradebook_run_end(db, run, 3, 0, NULL, &err) == 0);
    sqlite3_close(db);
}
END_TEST

/* The value of one SQL query's first column as text ("NULL" for NULL). */
static void sql_text(const char *path, const char *sql, char *out, size_t n)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    snprintf(out, n, "?");
    ck_assert(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(db));
    if (sqlite3_step(st) == SQLITE_ROW)
        snprintf(out, n, "%s",
                 sqlite3_column_type(st, 0) == SQLITE_NULL ? "NULL" : (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* A result that holds no grade (no GPU, cudalab's error) is stored without a score, not 0;
 * a late penalty recomputed on it keeps it without one. */
START_TEST(gradebook_no_score_is_null)
{
    char path[4096], got[64];
    cl_path_join(path, sizeof path, dir, "null.sqlite");
    sqlite3 *db;
    cl_err err;
    ck_assert(cl_gradebook_open(path, &db, &err) == 0);
    long long run = cl_gradebook_run_begin(db, "selftest", "local", &err);
    cl_submission s;
    memset(&s, 0, sizeof s);
    snprintf(s.student, sizeof s.student, "nina");
    snprintf(s.sha256, sizeof s.sha256, "ee");
    cl_course c;
    cl_course_init(&c);
    cl_course_rules rules;
    memset(&rules, 0, sizeof rules);
    const char *ungraded[] = {"no_device", "error"};
    for (int i = 0; i < 2; i++) {
        s.sha256[0] = (char)('a' + i);
        json_t *j = result_json(ungraded[i], 0);
        ck_assert_int_eq(cl_gradebook_record(db, run, &s, &c, &rules, j, &err), 0);
        json_decref(j);
        cl_grade_row row;
        ck_assert_int_eq(cl_gradebook_get(db, "nina", "selftest", s.sha256, "c0ffee", &row, &err), 0);
        ck_assert_msg(!cl_grade_row_scored(&row), "%s holds a score", ungraded[i]);
        rules.have_deadline = 1; /* handed in late: the penalty is recomputed, the score stays NULL */
        cl_grade_row_late(&row, 1000, &rules, &c);
        ck_assert(cl_gradebook_update_late(db, &row, &err) == 0);
        rules.have_deadline = 0;
        cl_grade_row_free(&row);
        ck_assert_int_eq(cl_gradebook_has(db, "nina", "selftest", s.sha256, "c0ffee", &err), 0);
    }
    json_t *j = result_json("wrong", 0); /* a grade of 0 is a grade */
    snprintf(s.sha256, sizeof s.sha256, "ff");
    ck_assert_int_eq(cl_gradebook_record(db, run, &s, &c, &rules, j, &err), 0);
    json_decref(j);
    sqlite3_close(db);
    sql_text(path, "SELECT COUNT(*) FROM results WHERE score IS NULL AND raw_score IS NULL", got, sizeof got);
    ck_assert_str_eq(got, "2");
    sql_text(path, "SELECT score FROM results WHERE verdict='wrong'", got, sizeof got);
    ck_assert_str_eq(got, "0.0");
}
END_TEST

/* The results table as gradebooks made before NULL scores had it. */
static const char *const old_schema =
    "PRAGMA journal_mode=WAL;"
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, lab TEXT NOT NULL, mode TEXT NOT NULL, host TEXT, started_at INTEGER "
    "NOT NULL, finished_at INTEGER, graded INTEGER, skipped INTEGER, slurm_job TEXT);"
    "CREATE TABLE results (student TEXT NOT NULL, lab TEXT NOT NULL, sha256 TEXT NOT NULL, config_hash TEXT NOT "
    "NULL, run_id INTEGER REFERENCES runs(id), name TEXT, email TEXT, submission TEXT, submitted_at INTEGER, verdict "
    "TEXT NOT NULL, raw_score REAL NOT NULL, score REAL NOT NULL, max_score REAL NOT NULL, late_days INTEGER NOT NULL "
    "DEFAULT 0, penalty REAL NOT NULL DEFAULT 0, tier TEXT, seed INTEGER, gpu TEXT, graded_at INTEGER NOT NULL, "
    "seconds REAL, metric REAL, fraction REAL, metric_unit TEXT, message TEXT, report TEXT NOT NULL, PRIMARY KEY "
    "(student, lab, sha256, config_hash));"
    "CREATE INDEX results_lab ON results(lab, student);"
    "INSERT INTO runs (lab, mode, started_at) VALUES ('selftest', 'local', 1);"
    "INSERT INTO results VALUES ('nina','selftest','aa','c0ffee',1,'','','nina.cu',5,'no_device',0,0,100,0,0,NULL,"
    "42,'',7,0,0,0,'ms','no GPU','{}');"
    "INSERT INTO results VALUES ('omar','selftest','bb','c0ffee',1,'','','omar.cu',5,'error',0,0,100,0,0,NULL,42,'',"
    "7,0,0,0,'ms','judge failed','{}');"
    "INSERT INTO results VALUES ('alice','selftest','cc','c0ffee',1,'','','alice.cu',5,'pass',80,40,100,2,0.5,"
    "'pass',42,'',7,0,0,0,'ms','','{}');";

static void make_old_gradebook(const char *path, int rows)
{
    sqlite3 *db;
    ck_assert(sqlite3_open(path, &db) == SQLITE_OK);
    ck_assert(sqlite3_exec(db, old_schema, NULL, NULL, NULL) == SQLITE_OK);
    for (int i = 0; i < rows; i++) { /* enough rows for several pages */
        char sql[512];
        snprintf(sql, sizeof sql,
                 "INSERT INTO results VALUES ('s%d','selftest','%064d','c0ffee',1,'','','s.cu',5,'wrong',20,20,100,"
                 "0,0,NULL,42,'',7,0,0,0,'ms','%0200d','{}');",
                 i, i, i);
        ck_assert(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
    }
    ck_assert(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE);", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
}

/* An older gradebook (scores NOT NULL, 0 for what was not graded) is brought to NULL
 * scores once, every row and grade kept. */
START_TEST(gradebook_migrates_old_scores)
{
    char path[4096], got[64];
    cl_path_join(path, sizeof path, dir, "old.sqlite");
    make_old_gradebook(path, 0);
    sqlite3 *db;
    cl_err err;
    for (int again = 0; again < 2; again++) { /* the second open finds nothing to do */
        ck_assert_msg(cl_gradebook_open(path, &db, &err) == 0, "%s", err.msg);
        ck_assert_int_eq(cl_gradebook_has(db, "nina", "selftest", "aa", "c0ffee", &err), 0);
        ck_assert_int_eq(cl_gradebook_has(db, "alice", "selftest", "cc", "c0ffee", &err), 1);
        cl_grade_row row;
        ck_assert_int_eq(cl_gradebook_get(db, "alice", "selftest", "cc", "c0ffee", &row, &err), 0);
        ck_assert(cl_grade_row_scored(&row) && row.raw_score == 80 && row.score == 40 && row.late_days == 2);
        cl_grade_row_free(&row);
        sqlite3_close(db);
        sql_text(path, "SELECT group_concat(student) FROM (SELECT student FROM results WHERE score IS NULL AND "
                       "raw_score IS NULL ORDER BY student)", got, sizeof got);
        ck_assert_str_eq(got, "nina,omar");
        sql_text(path, "SELECT COUNT(*) FROM results", got, sizeof got);
        ck_assert_str_eq(got, "3");
        sql_text(path, "SELECT \"notnull\" FROM pragma_table_info('results') WHERE name='score'", got, sizeof got);
        ck_assert_str_eq(got, "0");
    }
}
END_TEST

static char *slurp(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert(f);
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)*n + 1);
    ck_assert(fread(b, 1, (size_t)*n, f) == (size_t)*n);
    fclose(f);
    return b;
}

/* A damaged gradebook is reported as such, named, and left byte for byte as it was: not a
 * database at all, and an older one whose pages are damaged (found before migrating). */
START_TEST(gradebook_damaged_left_untouched)
{
    char junk[4096], old[4096];
    cl_path_join(junk, sizeof junk, dir, "junk.sqlite");
    FILE *f = fopen(junk, "wb");
    for (int i = 0; i < 4096; i++)
        fputc("not a database "[i % 15], f);
    fclose(f);
    cl_path_join(old, sizeof old, dir, "torn.sqlite");
    make_old_gradebook(old, 200);
    long n;
    char *b = slurp(old, &n);
    ck_assert(n > 8 * 4096);
    memset(b + 4 * 4096, 0x5a, 2 * 4096); /* two pages of the results table overwritten */
    f = fopen(old, "wb");
    fwrite(b, 1, (size_t)n, f);
    fclose(f);
    const char *paths[] = {junk, old};
    for (int i = 0; i < 2; i++) {
        long before_n, after_n;
        char *before = slurp(paths[i], &before_n);
        sqlite3 *db = NULL;
        cl_err err;
        ck_assert_int_eq(cl_gradebook_open(paths[i], &db, &err), -1);
        ck_assert(db == NULL);
        ck_assert_msg(tu_contains(err.msg, "damaged") && tu_contains(err.msg, paths[i]) &&
                          tu_contains(err.msg, "left untouched"),
                      "%s", err.msg);
        char *after = slurp(paths[i], &after_n);
        ck_assert_msg(before_n == after_n && !memcmp(before, after, (size_t)before_n), "%s was changed", paths[i]);
        free(before);
        free(after);
    }
    free(b);
}
END_TEST

START_TEST(csv_quoting)
{
    cl_grade_row r[2];
    memset(r, 0, sizeof r);
    snprintf(r[0].student, sizeof r[0].student, "alice");
    snprintf(r[0].name, sizeof r[0].name, "=cmd|' /C calc'!A0");
    snprintf(r[0].verdict, sizeof r[0].verdict, "wrong");
    r[0].message = "case 'n=1': \"bad\", very bad\nline 2";
    snprintf(r[1].student, sizeof r[1].student, "bob");
    snprintf(r[1].name, sizeof r[1].name, "@SUM(1+1)");
    r[1].message = "-2+3";
    cl_class_report rep = {0};
    rep.lab = "selftest";
    rep.rows = r;
    rep.nrows = 2;
    char path[4096];
    cl_path_join(path, sizeof path, dir, "g.csv");
    cl_err err;
    ck_assert(cl_class_csv(&rep, path, &err) == 0);
    char *text;
    size_t n;
    ck_assert(cl_read_file(path, 1 << 20, &text, &n, &err) == 0);
    ck_assert(tu_contains(text, "\"'=cmd|' /C calc'!A0\""));
    ck_assert(tu_contains(text, "\"'@SUM(1+1)\""));
    ck_assert(tu_contains(text, "\"'-2+3\""));
    ck_assert(tu_contains(text, "\"case 'n=1': \"\"bad\"\", very bad\nline 2\""));
    free(text);
}
END_TEST

START_TEST(roofline)
{
    cl_roof_point pts[] = {{"alice: 1 GiB", "students/alice.html", 268435456.0, 1073741828.0, 0.4e-3, 0},
                           {"bob: 1 GiB", NULL, 268435456.0, 1073741828.0, 1.2e-3, 1},
                           {"carol: no flops", NULL, 0, 1e9, 1e-3, 0}};
    cl_strbuf sb;
    cl_sb_init(&sb);
    cl_roofline_svg(&sb, pts, 3, 3000, 800, "reduce <class>");
    const char *svg = cl_sb_str(&sb);
    ck_assert(tu_contains(svg, "<polyline class=\"roof\""));
    ck_assert(tu_contains(svg, "memory roof: copy 3000 GB/s"));
    ck_assert(tu_contains(svg, "fp16 Tensor Core (cuBLAS) 800 TFLOP/s"));
    ck_assert(tu_contains(svg, "reduce &lt;class&gt;"));
    int circles = 0;
    for (const char *p = svg; (p = strstr(p, "<circle")); p++)
        circles++;
    ck_assert_int_eq(circles, 2); /* no FLOPs counted: not on a roofline */
    ck_assert(tu_contains(svg, "href=\"students/alice.html\""));
    /* alice at 2684 GB/s sits on the roof's slanted part, bob under it */
    ck_assert(tu_contains(svg, "2684 GB/s") || tu_contains(svg, "2.684e+03 GB/s") || tu_contains(svg, "2684"));
    const char *out = tu_write(dir, "roofline.svg", svg);
    (void)out;
    cl_sb_clear(&sb);
    cl_roofline_svg(&sb, pts + 2, 1, 3000, 0, "empty");
    ck_assert(tu_contains(cl_sb_str(&sb), "no timed runs with counted FLOPs"));
    cl_sb_free(&sb);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("classroom");
    TCase *tc = tcase_create("classroom");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, course_config_values);
    tcase_add_test(tc, course_config_errors);
    tcase_add_test(tc, times);
    tcase_add_test(tc, deadlines);
    tcase_add_test(tc, student_ids);
    tcase_add_test(tc, seeds);
    tcase_add_test(tc, intake_and_roster);
    tcase_add_test(tc, archives);
    tcase_add_test(tc, gradebook_key_and_transactions);
    tcase_add_test(tc, gradebook_no_score_is_null);
    tcase_add_test(tc, gradebook_migrates_old_scores);
    tcase_add_test(tc, gradebook_damaged_left_untouched);
    tcase_add_test(tc, csv_quoting);
    tcase_add_test(tc, roofline);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
