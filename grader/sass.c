/* sass.c: see sass.h. */
#define _GNU_SOURCE
#include "sass.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decide.h"
#include "launch_trace.h"
#include "proc.h"
#include "toolkit.h"
#include "verdict.h"

void sass_free(sass_code *code)
{
    for (int i = 0; i < code->n; i++) {
        free(code->k[i].name);
        free(code->k[i].ops);
        free(code->k[i].ops_loaded);
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

/* The most of cuobjdump's listing read (a fat binary of every lab stage fits
 * many times over); a longer one is cut (sass_code.cut). */
#define SASS_MAX_MB 64

_Static_assert(LAUNCH_TRACE_MAX_NAMES == 8, "LAUNCH_TRACE_MAX_NAMES_TEXT says 8");

/* Adds opcode op (len bytes) to a set of opcodes (*ops). */
static int add_op(char **ops, const char *op, size_t len)
{
    char key[64];
    if (len == 0 || len + 3 > sizeof key)
        return 0;
    snprintf(key, sizeof key, " %.*s ", (int)len, op);
    if (strstr(*ops, key))
        return 0;
    size_t have = strlen(*ops);
    char *grown = realloc(*ops, have + len + 3);
    if (!grown)
        return -1;
    *ops = grown;
    snprintf(*ops + have, len + 3, "%.*s ", (int)len, op); /* ops always ends in a space */
    return 0;
}

/* Whether the operand at p (up to stop) is the zero register, RZ or -RZ,
 * perhaps with a lane selector (RZ.H0_H0). */
static int zero_operand(const char *p, const char *stop)
{
    while (p < stop && (isspace((unsigned char)*p) || *p == '-' || *p == '|'))
        p++;
    return stop - p >= 2 && p[0] == 'R' && p[1] == 'Z' &&
           (stop - p == 2 || !isalnum((unsigned char)p[2]));
}

/* Packed FP16 or BF16 arithmetic on the CUDA cores (HFMA2, HADD2, HMUL2)
 * with a zero factor or term among its first two sources multiplies or adds
 * nothing: it is ptxas's way of loading a constant (HFMA2.MMA R1, -RZ, RZ,
 * 1.5, 0) or of turning an FP16 value into an FP32 one (HADD2.F32 R0, -RZ,
 * R2.H0_H0). Such an instruction is recorded with a modifier of the
 * grader's own, .ZEROSRC (HFMA2.MMA.ZEROSRC: not a name cuobjdump prints;
 * .RZ would be, a rounding mode), so that a pattern can tell it from
 * arithmetic ("HFMA2!ZEROSRC"). op points at the opcode (n bytes), operands at
 * what follows it, up to stop. */
static int packed_half_move(const char *op, size_t n, const char *operands, const char *stop)
{
    static const char *const packed[] = {"HFMA2", "HADD2", "HMUL2"};
    int is_packed = 0;
    for (size_t i = 0; i < sizeof packed / sizeof packed[0]; i++) {
        size_t k = strlen(packed[i]);
        is_packed |= n >= k && memcmp(op, packed[i], k) == 0 && (n == k || op[k] == '.');
    }
    if (!is_packed)
        return 0;
    const char *semi = memchr(operands, ';', (size_t)(stop - operands));
    if (semi) /* the encoding's comment after it is not an operand */
        stop = semi;
    const char *src = memchr(operands, ',', (size_t)(stop - operands)); /* after the destination */
    for (int i = 0; src && i < 2; i++) {
        const char *start = src + 1;
        const char *end = memchr(start, ',', (size_t)(stop - start));
        if (zero_operand(start, end ? end : stop))
            return 1;
        src = end;
    }
    return 0;
}

/* The architecture of a "code for sm_90a" line (90), or -1 for another
 * line; *specific is 1 for an architecture-specific section ("a"), which
 * only a GPU of exactly that compute capability loads. */
static int section_arch(const char *line, size_t len, int *specific)
{
    const char *at = memmem(line, len, "code for sm_", 12);
    if (!at || at + 12 >= line + len || !isdigit((unsigned char)at[12]))
        return -1;
    const char *p = at + 12;
    while (p < line + len && isdigit((unsigned char)*p))
        p++;
    *specific = p < line + len && *p == 'a';
    return atoi(at + 12);
}

/* Whether a GPU of compute capability device_sm (10 major + minor) can run
 * a section built for arch: its major version, a minor not above its own,
 * and for an "a" section exactly its own. */
static int runs_on(int arch, int specific, int device_sm)
{
    return arch > 0 && arch / 10 == device_sm / 10 && arch <= device_sm &&
           (!specific || arch == device_sm);
}

/* The code a GPU of compute capability device_sm runs from a fat binary:
 * the section it can run with the highest minor; 0 when there is none (it
 * would compile the PTX). */
static int loaded_arch(const char *text, int device_sm)
{
    int best = 0, specific;
    for (const char *line = text; device_sm > 0 && line && *line;) {
        const char *end = strchr(line, '\n');
        int arch = section_arch(line, end ? (size_t)(end - line) : strlen(line), &specific);
        if (runs_on(arch, specific, device_sm) && arch > best)
            best = arch;
        line = end ? end + 1 : NULL;
    }
    return best;
}

/* The index of the entry named by the n bytes at name, made (with empty
 * opcode sets) when there is none yet; -1 when out of memory. */
static int kernel_entry(sass_code *code, const char *name, size_t n)
{
    char *copy = strndup(name, n);
    if (!copy)
        return -1;
    sass_kernel *k = find(code, copy);
    if (k) {
        free(copy);
        return (int)(k - code->k);
    }
    sass_kernel *grown = realloc(code->k, (size_t)(code->n + 1) * sizeof *grown);
    char *ops = strdup(" "), *ops_loaded = strdup(" ");
    if (!grown || !ops || !ops_loaded) {
        free(copy);
        free(ops);
        free(ops_loaded);
        if (grown)
            code->k = grown;
        return -1;
    }
    code->k = grown;
    code->k[code->n] = (sass_kernel){copy, ops, ops_loaded};
    return code->n++;
}

int sass_parse(const char *text, sass_code *code)
{
    return sass_parse_for(text, code, 0);
}

int sass_parse_for(const char *text, sass_code *code, int device_sm)
{
    code->k = NULL;
    code->n = 0;
    code->cut = 0;
    code->loaded_sm = loaded_arch(text, device_sm);
    code->device_sm = device_sm;
    code->last = -1;
    sass_kernel *cur = NULL;
    int also = -1; /* a callee's kernel, credited with its opcodes too */
    int in_loaded = 0; /* in the section of the code the GPU runs */
    int specific;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *fn = memmem(line, len, "Function : ", 11);
        const char *slash = memmem(line, len, "*/", 2);
        int arch = section_arch(line, len, &specific);
        if (arch > 0)
            in_loaded = code->loaded_sm > 0 && arch == code->loaded_sm &&
                        runs_on(arch, specific, device_sm);
        if (fn) {
            const char *name = fn + 11;
            size_t n = (size_t)(line + len - name);
            while (n > 0 && isspace((unsigned char)name[n - 1]))
                n--;
            /* A callee listed apart from its kernel ("$kernel$callee") is
             * part of that kernel too; the name itself stays an entry (an
             * extern "C" kernel may be named so). */
            const char *dollar = n > 1 && name[0] == '$' ? memchr(name + 1, '$', n - 1) : NULL;
            also = -1;
            code->last = kernel_entry(code, name, n);
            if (dollar && dollar > name + 1)
                also = kernel_entry(code, name + 1, (size_t)(dollar - name - 1));
            if (code->last < 0 || (dollar && dollar > name + 1 && also < 0))
                return -1;
            cur = &code->k[code->last];
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
            size_t n = (size_t)(p - op);
            char marked[64];
            if (n + sizeof ".ZEROSRC" <= sizeof marked && packed_half_move(op, n, p, stop)) {
                snprintf(marked, sizeof marked, "%.*s.ZEROSRC", (int)n, op);
                op = marked;
                n += sizeof ".ZEROSRC" - 1;
            }
            for (int i = 0; i < 2; i++) {
                sass_kernel *k = i ? (also >= 0 ? &code->k[also] : NULL) : cur;
                if (k && n > 0 && isupper((unsigned char)*op) &&
                    (add_op(&k->ops, op, n) != 0 ||
                     (in_loaded && add_op(&k->ops_loaded, op, n) != 0)))
                    return -1;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

/* Does opcode op (its first part and modifiers, "LDG.E.128.CONSTANT") carry
 * modifier m (".128", the dot included) after its first part (base bytes)? */
static int op_has(const char *op, size_t op_len, size_t base, const char *m, size_t mlen)
{
    for (const char *q = op + base; q < op + op_len; q++)
        if (*q == '.' && (size_t)(op + op_len - q) >= mlen && memcmp(q + 1, m + 1, mlen - 1) == 0 &&
            (q + mlen == op + op_len || q[mlen] == '.'))
            return 1;
    return 0;
}

/* Does opcode op match one alternative: "LDG.128" (each modifier after a dot
 * carried), "HMMA!TF32" (each one after a '!' absent)? */
static int op_matches(const char *op, size_t op_len, const char *alt, size_t alt_len)
{
    size_t base = strcspn(alt, ".!|");
    if (base > alt_len)
        base = alt_len;
    if (op_len < base || memcmp(op, alt, base) != 0 || (op_len > base && op[base] != '.'))
        return 0;
    for (const char *m = alt + base; m < alt + alt_len;) { /* each modifier, ".128" or "!TF32" */
        size_t mlen = 1;
        while (m + mlen < alt + alt_len && m[mlen] != '.' && m[mlen] != '!')
            mlen++;
        if (op_has(op, op_len, base, m, mlen) != (*m == '.'))
            return 0;
        m += mlen;
    }
    return 1;
}

/* The first opcode of a set (ops, " LDS FFMA ") matching pattern, its
 * length in *len; NULL when none does. */
static const char *first_match(const char *ops, const char *pattern, size_t *len)
{
    for (const char *op = ops + 1; *op;) {
        const char *sp = strchr(op, ' ');
        size_t op_len = (size_t)(sp - op);
        for (const char *alt = pattern; *alt;) {
            const char *bar = strchr(alt, '|');
            size_t alt_len = bar ? (size_t)(bar - alt) : strlen(alt);
            if (op_matches(op, op_len, alt, alt_len)) {
                *len = op_len;
                return op;
            }
            alt = bar ? bar + 1 : alt + alt_len;
        }
        op = sp + 1;
    }
    return NULL;
}

int sass_uses(const sass_code *code, const char *name, const char *pattern)
{
    const sass_kernel *k = find(code, name);
    size_t len;
    if (!k)
        return -1;
    return first_match(k->ops, pattern, &len) != NULL;
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
    p->device_sm = 0;
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
    size_t cap = (size_t)SASS_MAX_MB << 20; /* a fat binary of every lab stage fits */
    char *text = malloc(cap);
    char sink[1];
    int rc = proc_read(p->fd, p->pid, text ? text : sink, text ? cap : 0);
    int parsed = text && rc == 0 ? sass_parse_for(text, code, p->device_sm) : -1;
    if (parsed == 0)
        code->cut = strlen(text) + 1 >= cap;
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

/* Reports whether the kernels a correct stage s launched (in its checked
 * calls and in its timed ones, as sass_refuse reads them) show technique t;
 * 1 when they do not (the first such finding, lacking == 0, heads the list). */
static int technique_report(FILE *f, const lab_spec *spec, lab_results *res, const sass_code *code,
                            int stage, const lab_technique *t, int lacking,
                            const lab_technique **missing)
{
    test_record *rec = &res->t[stage][TEST_CORRECT];
    if (rec->v != V_PASS || !rec->kernels[0])
        return 0;
    char names[2 * sizeof rec->kernels + 2];
    snprintf(names, sizeof names, "%s", rec->kernels);
    results_merge_names(names, sizeof names, res->t[stage][TEST_PERF].kernels);
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

/* ---- instructions a stage must not hold (lab_stage.refused_ops) ---- */

/* The first kernel holding an opcode of pattern, in the code the GPU runs
 * (the section of its architecture, else every section): of the list, or
 * when list is NULL of the whole library. 1 with its short name and the
 * opcode, or 0. */
static int refused_in(const sass_code *code, const char *list, const char *pattern, char *kernel,
                      size_t kn, char *op, size_t on)
{
    for (int i = 0; i < code->n; i++) {
        const sass_kernel *k = &code->k[i];
        if (list && !results_names_has(list, k->name, strlen(k->name)))
            continue;
        size_t len;
        const char *ops = code->loaded_sm > 0 && k->ops_loaded[1] ? k->ops_loaded : k->ops;
        const char *hit = first_match(ops, pattern, &len);
        if (hit) {
            sass_short_name(k->name, kernel, kn);
            snprintf(op, on, "%.*s", (int)len, hit);
            return 1;
        }
    }
    return 0;
}

/* A kernel of the list that the listing does not hold at all: code the
 * library did not carry in its own machine code (a module it registered or
 * loaded at run time), which cannot be read. 1 with its short name; else 0. */
static int listed_missing(const sass_code *code, const char *list, char *kernel, size_t kn)
{
    char names[2 * sizeof ((test_record *)0)->kernels + 2];
    snprintf(names, sizeof names, "%s", list);
    for (char *save = NULL, *k = strtok_r(names, ",", &save); k; k = strtok_r(NULL, ",", &save))
        if (!find(code, k)) {
            sass_short_name(k, kernel, kn);
            return 1;
        }
    return 0;
}

/* A kernel of the list that a cut listing may not hold whole (missing, or
 * the last one, where the listing stopped): 1 with its short name; else 0. */
static int listed_unread(const sass_code *code, const char *list, char *kernel, size_t kn)
{
    char names[2 * sizeof ((test_record *)0)->kernels + 2];
    snprintf(names, sizeof names, "%s", list);
    for (char *save = NULL, *k = strtok_r(names, ",", &save); k; k = strtok_r(NULL, ",", &save))
    {
        const sass_kernel *f = find(code, k);
        /* missing, the last listed (where the listing stopped), or without
         * the code this GPU runs (a fat binary cut before its section) */
        if (!f || (code->last >= 0 && f == &code->k[code->last]) ||
            (code->device_sm > 0 && !f->ops_loaded[1])) {
            sass_short_name(k, kernel, kn);
            return 1;
        }
    }
    return 0;
}

int sass_refuse(const lab_spec *spec, lab_results *res, const sass_code *code)
{
    int refused = 0;
    for (int s = 0; s < spec->n_stages; s++) {
        const lab_stage *st = &spec->stages[s];
        test_record *corr = &res->t[s][TEST_CORRECT], *perf = &res->t[s][TEST_PERF];
        if (!st->refused_ops.pattern || corr->v != V_PASS)
            continue;
        /* The kernels of its checked calls and of its timed ones; when either
         * list is partial, every kernel of the library answers for it (in lab
         * 7 the BF16 stages' kernels too: the message says how to avoid it). */
        int partial = corr->kernels_partial || perf->kernels_partial;
        char list[2 * sizeof corr->kernels + 2];
        snprintf(list, sizeof list, "%s,%s", corr->kernels, perf->kernels);
        char kernel[96], op[64];
        const char *pattern = st->refused_ops.pattern;
        int from_list = refused_in(code, list, pattern, kernel, sizeof kernel, op, sizeof op);
        int from_rest = !from_list && partial &&
                        refused_in(code, NULL, pattern, kernel, sizeof kernel, op, sizeof op);
        /* A listing cut short may not hold what the stage launched. */
        int unread = !from_list && !from_rest && code->cut &&
                     (partial || listed_unread(code, list, kernel, sizeof kernel));
        /* A whole listing without a kernel the stage launched: code loaded
         * at run time, which nothing here can read. */
        int foreign = !from_list && !from_rest && !unread &&
                      listed_missing(code, list, kernel, sizeof kernel);
        if (!from_list && !from_rest && !unread && !foreign)
            continue;
        if (unread && partial)
            snprintf(kernel, sizeof kernel, "more kernels than the grader lists");
        results_open(); /* the grader's parent: the records stay writable for it */
        corr->v = V_REJECTED;
        int w;
        if (foreign)
            w = snprintf(corr->msg, sizeof corr->msg,
                         "stage %d (%.60s) launched %.80s, whose machine code is not in "
                         "build/lab%d.so (a module registered or loaded at run time?), so the "
                         "grader cannot tell whether it holds %s. Compile every kernel the "
                         "stage launches into your lab file.",
                         s, st->title, kernel, spec->number, st->refused_ops.text);
        else if (unread)
            w = snprintf(corr->msg, sizeof corr->msg,
                         "stage %d (%.60s) launched %.80s, and cuobjdump's listing of "
                         "build/lab%d.so is longer than the %d MB the grader reads, so it cannot "
                         "tell whether the stage's code holds %s. No lab needs a library that "
                         "large: look for a huge unrolled loop or a kernel the stage does not "
                         "need.",
                         s, st->title, kernel, spec->number, SASS_MAX_MB, st->refused_ops.text);
        else
            w = snprintf(corr->msg, sizeof corr->msg,
                         "stage %d (%.60s) %s%.80s%s holds %s, one of the %s: a stage must not "
                         "compute below the precision it teaches. %s (cuobjdump -sass "
                         "build/lab%d.so shows each kernel's code).",
                         s, st->title,
                         from_rest ? "launched more kernels than the grader lists (over "
                                     LAUNCH_TRACE_MAX_NAMES_TEXT ", or names too long to list), "
                                     "so every kernel of the library was read, and "
                                   : "launched ",
                         kernel, from_rest ? "" : ", which", op, st->refused_ops.text,
                         from_rest ? "If the stage uses no such kernel, let it launch fewer "
                                     "kernels, so that the grader can list them"
                                   : "If that instruction is on a path the stage never takes, "
                                     "move the path into a kernel of its own",
                         spec->number);
        (void)w; /* at most about 600 bytes with the texts of gemm_lab.h */
        if (perf->v == V_PASS || perf->v == V_SLOW) {
            perf->v = V_SKIPPED;
            snprintf(perf->msg, sizeof perf->msg,
                     "not counted: stage %d's machine code holds %s, which it must not "
                     "(its correctness test says where)",
                     s, unread || foreign ? "code the grader could not read" : op);
        }
        refused++;
    }
    return refused;
}

int sass_unchecked(FILE *f, const lab_spec *spec, const lab_results *res, const int *required,
                   const char *why)
{
    int lines = 0;
    for (int s = 0; s < spec->n_stages; s++) {
        const lab_stage *st = &spec->stages[s];
        if (!st->refused_ops.pattern || res->t[s][TEST_CORRECT].v != V_PASS)
            continue;
        fprintf(f,
                "\n  Instructions not checked: stage %d (%s) must not use %s, but its machine "
                "code could not be read (%s); it is graded on its results alone.\n",
                s, st->title, st->refused_ops.text, why);
        lines++;
    }
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
