/* sass.c: see sass.h. */
#define _GNU_SOURCE
#include "sass.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decide.h"
#include "proc.h"
#include "toolkit.h"
#include "verdict.h"

void sass_free(sass_code *code)
{
    for (int i = 0; i < code->n; i++) {
        free(code->k[i].name);
        free(code->k[i].ops);
    }
    free(code->k);
    code->k = NULL;
    code->n = 0;
}

static sass_kernel *find(const sass_code *code, const char *name)
{
    for (int i = 0; i < code->n; i++)
        if (strcmp(code->k[i].name, name) == 0)
            return &code->k[i];
    return NULL;
}

/* Adds opcode op (len bytes) to k's set. */
static int add_op(sass_kernel *k, const char *op, size_t len)
{
    char key[64];
    if (len == 0 || len + 3 > sizeof key)
        return 0;
    snprintf(key, sizeof key, " %.*s ", (int)len, op);
    if (strstr(k->ops, key))
        return 0;
    size_t have = strlen(k->ops);
    char *grown = realloc(k->ops, have + len + 3);
    if (!grown)
        return -1;
    k->ops = grown;
    snprintf(k->ops + have, len + 3, "%.*s ", (int)len, op); /* ops always ends in a space */
    return 0;
}

int sass_parse(const char *text, sass_code *code)
{
    code->k = NULL;
    code->n = 0;
    sass_kernel *cur = NULL;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *fn = memmem(line, len, "Function : ", 11);
        const char *slash = memmem(line, len, "*/", 2);
        if (fn) {
            const char *name = fn + 11;
            size_t n = (size_t)(line + len - name);
            while (n > 0 && isspace((unsigned char)name[n - 1]))
                n--;
            char *copy = strndup(name, n);
            if (!copy)
                return -1;
            cur = find(code, copy);
            if (cur) {
                free(copy);
            } else {
                sass_kernel *grown = realloc(code->k, (size_t)(code->n + 1) * sizeof *grown);
                char *ops = strdup(" ");
                if (!grown || !ops) {
                    free(copy);
                    free(ops);
                    if (grown)
                        code->k = grown;
                    return -1;
                }
                code->k = grown;
                cur = &code->k[code->n++];
                cur->name = copy;
                cur->ops = ops;
            }
        } else if (cur && slash && memmem(line, (size_t)(slash - line), "/*", 2)) {
            /* an instruction: an address in a comment, a predicate (@!P0) perhaps,
             * the opcode (LDG.E.128), its operands */
            const char *p = slash + 2, *stop = line + len;
            while (p < stop && isspace((unsigned char)*p))
                p++;
            if (p < stop && *p == '@') { /* a predicate */
                while (p < stop && !isspace((unsigned char)*p))
                    p++;
                while (p < stop && isspace((unsigned char)*p))
                    p++;
            }
            const char *op = p; /* letters of either case: HGMMA.64x256x8.F32.TF32 */
            while (p < stop && (isalnum((unsigned char)*p) || *p == '.' || *p == '_'))
                p++;
            if (p > op && isupper((unsigned char)*op) && add_op(cur, op, (size_t)(p - op)) != 0)
                return -1;
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

/* Does opcode op (its first part and modifiers, "LDG.E.128.CONSTANT") match
 * one alternative ("LDG.128")? */
static int op_matches(const char *op, size_t op_len, const char *alt, size_t alt_len)
{
    const char *dot = memchr(alt, '.', alt_len);
    size_t base = dot ? (size_t)(dot - alt) : alt_len;
    if (op_len < base || memcmp(op, alt, base) != 0 || (op_len > base && op[base] != '.'))
        return 0;
    for (const char *m = dot; m && m < alt + alt_len;) { /* each required modifier */
        const char *next = memchr(m + 1, '.', (size_t)(alt + alt_len - m - 1));
        size_t mlen = (size_t)((next ? next : alt + alt_len) - m); /* ".128" */
        int found = 0;
        for (const char *q = op + base; q < op + op_len && !found; q++)
            found = *q == '.' && (size_t)(op + op_len - q) >= mlen && memcmp(q, m, mlen) == 0 &&
                    (q + mlen == op + op_len || q[mlen] == '.');
        if (!found)
            return 0;
        m = next;
    }
    return 1;
}

int sass_uses(const sass_code *code, const char *name, const char *pattern)
{
    const sass_kernel *k = find(code, name);
    if (!k)
        return -1;
    for (const char *op = k->ops + 1; *op;) {
        const char *sp = strchr(op, ' ');
        size_t op_len = (size_t)(sp - op);
        for (const char *alt = pattern; *alt;) {
            const char *bar = strchr(alt, '|');
            size_t alt_len = bar ? (size_t)(bar - alt) : strlen(alt);
            if (op_matches(op, op_len, alt, alt_len))
                return 1;
            alt = bar ? bar + 1 : alt + alt_len;
        }
        op = sp + 1;
    }
    return 0;
}

void sass_short_name(const char *mangled, char *buf, size_t n)
{
    if (strncmp(mangled, "_Z", 2) == 0 && isdigit((unsigned char)mangled[2])) {
        char *end;
        long len = strtol(mangled + 2, &end, 10);
        if (len > 0 && (size_t)len <= strlen(end)) {
            snprintf(buf, n, "%.*s", (int)len, end);
            return;
        }
    }
    snprintf(buf, n, "%s", mangled);
}

int sass_start(const char *lib, sass_pending *p, char *err, size_t errn)
{
    char tool[1024];
    p->fd = -1;
    p->lib = lib;
    if (toolkit_find("cuobjdump", tool, sizeof tool) != 0) {
        snprintf(err, errn, "cuobjdump was not found in %s/bin or on the PATH",
                 CUDA_LABS_CUDA_HOME);
        return -1;
    }
    char *argv[] = {tool, "-sass", (char *)lib, NULL};
    p->fd = proc_spawn(argv, NULL, &p->pid);
    if (p->fd < 0) {
        snprintf(err, errn, "cuobjdump could not be started");
        return -1;
    }
    return 0;
}

int sass_finish(sass_pending *p, sass_code *code, char *err, size_t errn)
{
    memset(code, 0, sizeof *code);
    size_t cap = (size_t)64 << 20; /* a fat binary of every lab stage fits */
    char *text = malloc(cap);
    char sink[1];
    int rc = proc_read(p->fd, p->pid, text ? text : sink, text ? cap : 0);
    int parsed = text && rc == 0 ? sass_parse(text, code) : -1;
    free(text);
    if (rc != 0 || parsed != 0 || code->n == 0) {
        snprintf(err, errn, "cuobjdump -sass %s %s", p->lib,
                 rc != 0 ? "failed" : parsed != 0 ? "ran out of memory" : "found no kernels");
        sass_free(code);
        return -1;
    }
    return 0;
}

void sass_close(sass_pending *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

int sass_read_library(const char *lib, sass_code *code, char *err, size_t errn)
{
    sass_pending p;
    if (sass_start(lib, &p, err, errn) != 0)
        return -1;
    int rc = sass_finish(&p, code, err, errn);
    sass_close(&p);
    return rc;
}

/* Reports whether stage s's correct kernels show technique t; 1 when they
 * do not (the first such finding, lacking == 0, heads the list). */
static int technique_report(FILE *f, const lab_spec *spec, lab_results *res, const sass_code *code,
                            int stage, const lab_technique *t, int lacking,
                            const lab_technique **missing)
{
    test_record *rec = &res->t[stage][TEST_CORRECT];
    if (rec->v != V_PASS || !rec->kernels[0])
        return 0;
    char names[sizeof rec->kernels];
    snprintf(names, sizeof names, "%s", rec->kernels);
    int used = 0, seen = 0;
    char shown[256] = "";
    size_t len = 0;
    for (char *save = NULL, *k = strtok_r(names, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        int u = sass_uses(code, k, t->pattern);
        if (u < 0)
            continue; /* not in this library's code (a library of the grader's) */
        seen = 1;
        used |= u;
        char s[96];
        sass_short_name(k, s, sizeof s);
        len += (size_t)snprintf(shown + len, len < sizeof shown ? sizeof shown - len : 0, "%s%s",
                                len ? ", " : "", s);
        if (len >= sizeof shown)
            len = sizeof shown - 1;
    }
    if (!seen || used)
        return 0;
    if (missing && !missing[stage])
        missing[stage] = t;
    if (!rec->missing_technique[0])
        snprintf(rec->missing_technique, sizeof rec->missing_technique, "%s", t->text);
    if (!lacking)
        fprintf(f, "\n  Techniques (read from the machine code of each stage's kernels):\n");
    fprintf(f,
            "  - stage %d (%s): no %s in %s. The stage is correct; this is the technique "
            "it is meant to use (cuobjdump -sass build/lab%d.so shows the code).\n",
            stage, spec->stages[stage].title, t->text, shown, spec->number);
    return 1;
}

int sass_report(FILE *f, const lab_spec *spec, lab_results *res, const sass_code *code,
                const lab_technique **missing)
{
    int lacking = 0;
    for (int s = 0; missing && s < spec->n_stages; s++)
        missing[s] = NULL;
    results_open(); /* the grader's parent: the records stay writable for it */
    for (int s = 0; s < spec->n_stages; s++)
        if (lab_stage_techniques(&spec->stages[s]))
            res->t[s][TEST_CORRECT].missing_technique[0] = '\0';
    for (int s = 0; s < spec->n_stages; s++)
        for (int j = 0; j < lab_stage_techniques(&spec->stages[s]); j++)
            lacking += technique_report(f, spec, res, code, s, &spec->stages[s].technique[j],
                                        lacking, missing);
    return lacking;
}

int sass_require(const lab_spec *spec, lab_results *res, const lab_technique *const *missing,
                 const int *required)
{
    int failed = 0;
    for (int s = 0; s < spec->n_stages; s++) {
        if (!required || !required[s] || !missing[s])
            continue;
        int kind = spec->stages[s].points_speed > 0 ? TEST_PERF : TEST_CORRECT;
        test_record *rec = &res->t[s][kind];
        if (rec->v != V_PASS)
            continue;
        results_open(); /* the grader's parent: the records stay writable for it */
        failed += decide_no_technique(rec, spec->number, missing[s]->text);
    }
    return failed;
}

int sass_unchecked(FILE *f, const lab_spec *spec, const lab_results *res, const int *required,
                   const char *why)
{
    int lines = 0;
    for (int s = 0; required && s < spec->n_stages; s++) {
        const lab_stage *st = &spec->stages[s];
        int kind = st->points_speed > 0 ? TEST_PERF : TEST_CORRECT;
        if (!required[s] || !lab_stage_techniques(st) || res->t[s][kind].v != V_PASS)
            continue;
        fprintf(f,
                "\n  Technique not checked: stage %d (%s) must use %s, but its machine code "
                "could not be read (%s). No points are lost for it.\n",
                s, st->title, st->technique[0].text, why);
        lines++;
    }
    return lines;
}
