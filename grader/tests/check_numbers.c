/* check_numbers.c: one set of numbers. Every threshold and every figure of the
 * reference solution that a skeleton (labs/<lab>/<name>.cu), a header
 * (labs/<lab>/<name>.h) or a handout (handouts/<lab>.md) quotes is checked
 * against the grader's stage table (grader/labs/<name>.c) and the handout's
 * measured table; the measured table is checked against the stage table and
 * against the reference figures the charts draw (each stage's .reference).
 *
 * The grammar, applied to prose (comments and paragraphs; code fences and
 * table rows are not prose):
 *  - A quoted number is a number with a unit written right after it: "1.40x"
 *    or "1.40×" (a speedup; "32 × 8" with a digit after the sign is a size),
 *    "80%" (a share), "3272 GB/s" or "43.9 TFLOP/s" (a rate); "40-47%" and
 *    "125–136" are ranges.
 *  - The stage a sentence speaks of: the last stage a heading (`#...`) names,
 *    or the N of a paragraph that starts `**Stage N` or a comment line that
 *    starts `/​* Stage N`; a heading that names no stage ends it.
 *  - A threshold is the first quoted number, within four words and the same
 *    sentence, after "asks for", "threshold" or "needs", or right after
 *    "Expect:" (or "Expect: at least"); "Expect: at least as fast as stage
 *    S" is a threshold of 1.0x over stage S. A speedup must equal the stage's
 *    min_speedup; "over stage S" or "of stage S" after it must name one of
 *    the stage's bases; a share ("80% of CUB") must equal its min_ceiling,
 *    and "and N%" later in the sentence is the same stage's min_ceiling.
 *    After "needs", a share counts only when "of" and a ceiling follow
 *    ("needs 25% of its copy time hidden" is about overlap, not the table).
 *    Outside any stage, a threshold must equal some stage's.
 *  - A measured figure is a quoted number after the word "reference" (or
 *    "this gains", "this reaches") in the same sentence, inside a stage: a rate must match the table's rate, a
 *    share its share, a speedup its speedup (or, when the figure names a
 *    stage the table's speedup is not over, or the table has none, the ratio
 *    of the two rates within 1%). Numbers match at the precision of the less
 *    precise of the two; a quoted range must hold the table's value. A
 *    sentence with "benchmark", "without", "slower", "Nsight" or "tried"
 *    reports other measurements (a variant, a separate benchmark, a profile)
 *    and is skipped.
 *  - The measured table is the first table of the handout whose header has a
 *    "stage" column and a "threshold" or "needs" column.
 * Every quote found is listed, with the entry it matched, in build/numbers.log,
 * and so is every number with a unit in a stage's text that is not a quote. */
#define _GNU_SOURCE
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lab.h"
#include "tests.h"

extern const lab_spec *const lab_table[];
extern const int lab_count;
extern const lab_spec lab_transpose;

#define TEXT_MAX (512 * 1024)
#define MAX_TOKENS 65536
#define LOG_PATH "build/numbers.log"

/* A decimal number as written: m / 10^dec. */
typedef struct num {
    long m;
    int dec;
} num;

enum { U_NONE, U_X, U_PCT, U_RATE };
enum { T_WORD, T_NUM, T_END };

typedef struct token {
    int kind;
    char word[24]; /* lower case */
    num v, hi;     /* hi = v unless a range */
    int unit;
    int line, stage;
} token;

/* One row of the measured table; a field's unit is U_NONE when it is absent. */
typedef struct row {
    int present, line;
    token rate, share, speedup, thr_speedup, thr_share;
    int speedup_base; /* -1: not named */
} row;

typedef struct table {
    int found;
    row rows[LAB_MAX_STAGES];
    int extra_line; /* a row for a stage the lab does not have; 0: none */
} table;

/* What a scan found: the listing and the failures, each a line. */
typedef struct findings {
    char *log, *fail;
    size_t log_n, fail_n;
    int quotes, failures;
} findings;

static void add(char *buf, size_t n, const char *fmt, va_list ap)
{
    size_t used = strlen(buf);
    if (used + 1 < n)
        vsnprintf(buf + used, n - used, fmt, ap);
}

static void note(findings *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(f->log, f->log_n, fmt, ap);
    va_end(ap);
    f->quotes++;
}

/* A line of the listing that is not a quote (a number left unchecked, and why). */
static void add_log(findings *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(f->log, f->log_n, fmt, ap);
    va_end(ap);
}

static void mismatch(findings *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    add(f->fail, f->fail_n, fmt, ap);
    va_end(ap);
    va_start(ap, fmt);
    add(f->log, f->log_n, fmt, ap);
    va_end(ap);
    f->failures++;
}

/* ---- numbers ---- */

static long pow10l_(int e)
{
    long p = 1;
    while (e-- > 0)
        p *= 10;
    return p;
}

/* n rounded (half up) to d decimals, as an integer count of 10^-d. */
static long num_at(num n, int d)
{
    if (n.dec <= d)
        return n.m * pow10l_(d - n.dec);
    long p = pow10l_(n.dec - d);
    return (n.m + p / 2) / p;
}

static double num_val(num n)
{
    return (double)n.m / (double)pow10l_(n.dec);
}

/* Equal at the precision of the less precise of the two. */
static int num_same(num a, num b)
{
    int d = a.dec < b.dec ? a.dec : b.dec;
    return num_at(a, d) == num_at(b, d);
}

static void num_text(const token *t, char *buf, size_t n)
{
    char a[24], b[24];
    snprintf(a, sizeof a, "%.*f", t->v.dec, num_val(t->v));
    snprintf(b, sizeof b, "%.*f", t->hi.dec, num_val(t->hi));
    const char *u = t->unit == U_X ? "x" : t->unit == U_PCT ? "%" : "";
    if (t->v.m != t->hi.m || t->v.dec != t->hi.dec)
        snprintf(buf, n, "%s-%s%s", a, b, u);
    else
        snprintf(buf, n, "%s%s", a, u);
}

/* A quoted value (or range) matches a table value (or range): equal at the
 * coarser precision, or inside the table's range, or the same range. */
static int quote_matches(const token *q, const token *t)
{
    int q_range = q->v.m != q->hi.m || q->v.dec != q->hi.dec;
    int t_range = t->v.m != t->hi.m || t->v.dec != t->hi.dec;
    if (q_range && t_range)
        return num_same(q->v, t->v) && num_same(q->hi, t->hi);
    if (q_range) { /* several runs quoted, the table's one inside */
        double x = num_val(t->v);
        return num_same(q->v, t->v) || num_same(q->hi, t->v) ||
               (x >= num_val(q->v) && x <= num_val(q->hi));
    }
    if (!t_range)
        return num_same(q->v, t->v);
    double x = num_val(q->v);
    return num_same(q->v, t->v) || num_same(q->v, t->hi) ||
           (x >= num_val(t->v) && x <= num_val(t->hi));
}

/* ---- tokens ---- */

typedef struct tokens {
    token *t;
    int n;
} tokens;

static void push(tokens *ts, token t)
{
    if (ts->n < MAX_TOKENS)
        ts->t[ts->n++] = t;
}

static void push_end(tokens *ts, int line, int stage)
{
    if (ts->n > 0 && ts->t[ts->n - 1].kind == T_END)
        return;
    token t = {.kind = T_END, .line = line, .stage = stage};
    push(ts, t);
}

static int is_word_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '\'';
}

static const char *parse_num(const char *p, num *n)
{
    n->m = 0;
    n->dec = 0;
    while (isdigit((unsigned char)*p) && n->m < 100000000L)
        n->m = n->m * 10 + (*p++ - '0');
    if (*p == '.' && isdigit((unsigned char)p[1])) {
        p++;
        while (isdigit((unsigned char)*p) && n->dec < 6) {
            n->m = n->m * 10 + (*p++ - '0');
            n->dec++;
        }
    }
    return p;
}

/* The unit right after a number at p; advances p past it. */
static int parse_unit(const char **pp)
{
    const char *p = *pp;
    if (*p == '%') {
        *pp = p + 1;
        return U_PCT;
    }
    if (*p == 'x' && !is_word_char((unsigned char)p[1])) {
        *pp = p + 1;
        return U_X;
    }
    const char *q = *p == ' ' ? p + 1 : p;
    if ((unsigned char)q[0] == 0xc3 && (unsigned char)q[1] == 0x97) { /* × */
        const char *r = q + 2;
        if (*r == ' ')
            r++;
        if (isdigit((unsigned char)*r)) /* 32 × 8: a size */
            return U_NONE;
        *pp = q + 2;
        return U_X;
    }
    if (strncmp(p, " GB/s", 5) == 0) {
        *pp = p + 5;
        return U_RATE;
    }
    if (strncmp(p, " TFLOP/s", 8) == 0) {
        *pp = p + 8;
        return U_RATE;
    }
    return U_NONE;
}

/* The words and numbers of one line of prose, appended to ts. */
static void tokenize_line(const char *s, const char *end, int line, int stage, tokens *ts)
{
    const char *p = s;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (isalpha(c) || c == '_') {
            token t = {.kind = T_WORD, .line = line, .stage = stage};
            size_t k = 0;
            while (p < end && is_word_char((unsigned char)*p)) {
                if (k + 1 < sizeof t.word)
                    t.word[k++] = (char)tolower((unsigned char)*p);
                p++;
            }
            push(ts, t);
        } else if (isdigit(c)) {
            token t = {.kind = T_NUM, .line = line, .stage = stage};
            p = parse_num(p, &t.v);
            t.hi = t.v;
            if (isalpha((unsigned char)*p) && !(*p == 'x' && !is_word_char((unsigned char)p[1]))) {
                while (p < end && is_word_char((unsigned char)*p)) /* 2D, 0xff: a name */
                    p++;
                continue;
            }
            t.unit = parse_unit(&p);
            int dash = *p == '-' ? 1 : ((unsigned char)p[0] == 0xe2 && (unsigned char)p[1] == 0x80 &&
                                         (unsigned char)p[2] == 0x93) ? 3 : 0;
            if (t.unit == U_NONE && dash && isdigit((unsigned char)p[dash])) {
                p = parse_num(p + dash, &t.hi);
                t.unit = parse_unit(&p);
            }
            push(ts, t);
        } else if ((c == '.' || c == '?' || c == '!') &&
                   (p + 1 >= end || isspace((unsigned char)p[1]) || p[1] == '*' || p[1] == ')')) {
            push_end(ts, line, stage);
            p++;
        } else {
            p++;
        }
    }
}

/* The last stage a line names ("## Stage 1 (given) and stage 2": 2), or -1. */
static int stage_named(const char *s, const char *end)
{
    int st = -1;
    for (const char *p = s; p + 6 < end; p++)
        if (strncasecmp(p, "stage ", 6) == 0 && isdigit((unsigned char)p[6]) &&
            (p == s || !is_word_char((unsigned char)p[-1])))
            st = atoi(p + 6);
    return st;
}

/* Cuts text into tokens, with the stage each sentence speaks of. */
static void tokenize(const char *text, tokens *ts)
{
    int line = 0, stage = -1, fence = 0;
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s);
        line++;
        const char *p = s;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (strncmp(p, "```", 3) == 0) {
            fence = !fence;
            push_end(ts, line, stage);
        } else if (fence || *p == '|') {
            push_end(ts, line, stage);
        } else {
            if (*p == '#') {
                stage = stage_named(p, e);
                push_end(ts, line, stage);
            } else if (strncmp(p, "**Stage ", 8) == 0 && isdigit((unsigned char)p[8])) {
                stage = atoi(p + 8);
                push_end(ts, line, stage);
            } else if (strncmp(p, "/* Stage ", 9) == 0 && isdigit((unsigned char)p[9])) {
                stage = atoi(p + 9);
                push_end(ts, line, stage);
            }
            /* Comment marks are not prose; a line left empty ends a sentence. */
            const char *q = p;
            while (q < e && (*q == '/' || *q == '*' || *q == ' '))
                q++;
            if (q >= e || strncmp(q, "*/", 2) == 0)
                push_end(ts, line, stage);
            else
                tokenize_line(p, e, line, stage, ts);
        }
        s = *e ? e + 1 : e;
    }
    push_end(ts, line, stage);
}

static int is_word(const tokens *ts, int i, const char *w)
{
    return i >= 0 && i < ts->n && ts->t[i].kind == T_WORD && strcmp(ts->t[i].word, w) == 0;
}

/* ---- the measured table ---- */

static int cell_tokens(const char *s, const char *e, tokens *ts)
{
    ts->n = 0;
    tokenize_line(s, e, 0, -1, ts);
    return ts->n;
}

/* The first number of a cell with unit u (U_NONE: any bare number). */
static int first_num(const tokens *ts, int unit, token *out)
{
    for (int i = 0; i < ts->n; i++)
        if (ts->t[i].kind == T_NUM && ts->t[i].unit == unit) {
            *out = ts->t[i];
            return i;
        }
    return -1;
}

static void parse_table(const char *text, const lab_spec *l, table *tb)
{
    memset(tb, 0, sizeof *tb);
    token buf[64];
    tokens ts = {buf, 0};
    int col_rate = -1, col_share = -1, col_speed = -1, col_thr = -1, in_table = 0, line = 0;
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        if (!e)
            e = s + strlen(s);
        line++;
        if (*s != '|') {
            if (in_table)
                return; /* the first such table only */
            s = *e ? e + 1 : e;
            continue;
        }
        /* the cells of this row */
        const char *cell[16], *cell_end[16];
        int nc = 0;
        for (const char *p = s + 1; p < e && nc < 16;) {
            const char *b = memchr(p, '|', (size_t)(e - p));
            if (!b)
                break;
            cell[nc] = p;
            cell_end[nc++] = b;
            p = b + 1;
        }
        if (!in_table) {
            int stage_col = 0;
            col_rate = col_share = col_speed = col_thr = -1;
            for (int c = 0; c < nc; c++) {
                char h[128];
                size_t len = (size_t)(cell_end[c] - cell[c]);
                snprintf(h, sizeof h, "%.*s", (int)(len < sizeof h ? len : sizeof h - 1), cell[c]);
                if (c == 0 && strstr(h, "stage"))
                    stage_col = 1;
                else if (col_thr < 0 && (strstr(h, "threshold") || strstr(h, "needs")))
                    col_thr = c;
                else if (col_speed < 0 && (strstr(h, "speedup") || strstr(h, "over")))
                    col_speed = c;
                else if (col_share < 0 && (strchr(h, '%') || strstr(h, "share")))
                    col_share = c;
                else if (col_rate < 0 && strstr(h, l->unit))
                    col_rate = c;
            }
            if (stage_col && col_thr >= 0) {
                in_table = 1;
                tb->found = line;
            }
        } else if (nc > 0) {
            const char *p = cell[0];
            while (p < cell_end[0] && *p == ' ')
                p++;
            if (isdigit((unsigned char)*p)) {
                int st = atoi(p);
                if (st < 0 || st >= l->n_stages || st >= LAB_MAX_STAGES) {
                    tb->extra_line = line;
                } else {
                    row *r = &tb->rows[st];
                    r->present = 1;
                    r->line = line;
                    r->speedup_base = -1;
                    if (col_rate >= 0 && col_rate < nc && cell_tokens(cell[col_rate], cell_end[col_rate], &ts))
                        if (first_num(&ts, U_NONE, &r->rate) < 0)
                            first_num(&ts, U_RATE, &r->rate);
                    if (col_share >= 0 && col_share < nc &&
                        cell_tokens(cell[col_share], cell_end[col_share], &ts))
                        first_num(&ts, U_PCT, &r->share);
                    if (col_speed >= 0 && col_speed < nc &&
                        cell_tokens(cell[col_speed], cell_end[col_speed], &ts)) {
                        int i = first_num(&ts, U_X, &r->speedup);
                        for (int k = i + 1; i >= 0 && k < ts.n; k++)
                            if (ts.t[k].kind == T_NUM) {
                                if (ts.t[k].unit == U_NONE)
                                    r->speedup_base = (int)num_val(ts.t[k].v);
                                break;
                            }
                    }
                    if (col_thr < nc && cell_tokens(cell[col_thr], cell_end[col_thr], &ts)) {
                        first_num(&ts, U_X, &r->thr_speedup);
                        first_num(&ts, U_PCT, &r->thr_share);
                    }
                }
            }
        }
        s = *e ? e + 1 : e;
    }
}

/* The stage the speedup cell of stage s is over: the one it names, else the
 * grader's base (the stage before for a stage with none). */
static int table_base(const lab_spec *l, const table *tb, int s)
{
    if (tb->rows[s].speedup_base >= 0)
        return tb->rows[s].speedup_base;
    return l->stages[s].n_base > 0 ? l->stages[s].base[0] : s - 1;
}

/* ---- quotes in prose ---- */

static int is_ceiling_word(const tokens *ts, int i)
{
    static const char *const w[] = {"cub", "cub's", "cublas", "cublas's", "cudamemcpy", "the", "its"};
    if (!is_word(ts, i, "of"))
        return 0;
    if (is_word(ts, i + 1, "the") || is_word(ts, i + 1, "its"))
        return is_word(ts, i + 2, "ceiling") || is_word(ts, i + 2, "speed");
    for (size_t k = 0; k < sizeof w / sizeof w[0]; k++)
        if (is_word(ts, i + 1, w[k]))
            return 1;
    return 0;
}

static void check_ceiling(const lab_spec *l, const char *file, const token *q, int s, findings *f)
{
    char v[64];
    num_text(q, v, sizeof v);
    double want = s >= 0 ? l->stages[s].min_ceiling : -1;
    if (s >= 0 && fabs(num_val(q->v) / 100.0 - want) < 1e-9) {
        note(f, "%s:%d: threshold %s -> lab %d stage %d min_ceiling %.2f\n", file, q->line, v,
             l->number, s, want);
        return;
    }
    if (s >= 0) {
        mismatch(f, "%s:%d: threshold %s for stage %d, but grader/labs/%s.c has min_ceiling %.2f\n", file,
             q->line, v, s, l->name, want);
        return;
    }
    for (int k = 0; k < l->n_stages; k++)
        if (fabs(num_val(q->v) / 100.0 - l->stages[k].min_ceiling) < 1e-9) {
            note(f, "%s:%d: threshold %s -> lab %d stage %d min_ceiling %.2f\n", file, q->line, v,
                 l->number, k, l->stages[k].min_ceiling);
            return;
        }
    mismatch(f, "%s:%d: threshold %s matches no min_ceiling of grader/labs/%s.c\n", file, q->line, v,
         l->name);
}

/* A threshold quoted at token i; returns the token after its quote. */
static int check_threshold(const lab_spec *l, const char *file, const tokens *ts, int i, int needs,
                           findings *f)
{
    const token *q = &ts->t[i];
    int s = q->stage >= 0 && q->stage < l->n_stages ? q->stage : -1;
    char v[64];
    num_text(q, v, sizeof v);
    if (q->unit == U_PCT) {
        if (needs && !is_ceiling_word(ts, i + 1))
            return i + 1;
        check_ceiling(l, file, q, s, f);
        return i + 1;
    }
    int matched = -1;
    /* "0.07x per SM": a threshold that follows the SM count (min_speedup_per_sm) */
    if (is_word(ts, i + 1, "per") && is_word(ts, i + 2, "sm")) {
        for (int k = 0; k < l->n_stages && matched < 0; k++)
            if ((s < 0 || k == s) && l->stages[k].min_speedup_per_sm > 0 &&
                fabs(num_val(q->v) - l->stages[k].min_speedup_per_sm) < 1e-9)
                matched = k;
        if (matched < 0)
            mismatch(f, "%s:%d: threshold %s per SM matches no min_speedup_per_sm of grader/labs/%s.c\n",
                     file, q->line, v, l->name);
        else
            note(f, "%s:%d: threshold %s per SM -> lab %d stage %d min_speedup_per_sm %.2f\n", file,
                 q->line, v, l->number, matched, l->stages[matched].min_speedup_per_sm);
        return i + 3;
    }
    if (s >= 0 && fabs(num_val(q->v) - l->stages[s].min_speedup) < 1e-9)
        matched = s;
    for (int k = 0; s < 0 && k < l->n_stages && matched < 0; k++)
        if (l->stages[k].points_speed > 0 && fabs(num_val(q->v) - l->stages[k].min_speedup) < 1e-9)
            matched = k;
    if (matched < 0) {
        if (s >= 0)
            mismatch(f, "%s:%d: threshold %s for stage %d, but grader/labs/%s.c has min_speedup %.2f\n", file,
                 q->line, v, s, l->name, l->stages[s].min_speedup);
        else
            mismatch(f, "%s:%d: threshold %s matches no min_speedup of grader/labs/%s.c\n", file, q->line, v,
                 l->name);
        return i + 1;
    }
    note(f, "%s:%d: threshold %s -> lab %d stage %d min_speedup %.2f\n", file, q->line, v, l->number,
         matched, l->stages[matched].min_speedup);
    int j = i + 1;
    /* "over stage S", "of stage S", "over your stage S", "stage S" */
    int k = j;
    while (k < ts->n && k < j + 2 && (is_word(ts, k, "over") || is_word(ts, k, "of") || is_word(ts, k, "your")))
        k++;
    if (is_word(ts, k, "stage") && k + 1 < ts->n && ts->t[k + 1].kind == T_NUM &&
        ts->t[k + 1].unit == U_NONE) {
        int b = (int)num_val(ts->t[k + 1].v);
        const lab_stage *st = &l->stages[matched];
        if (!(st->n_base > 0 && b == st->base[0]) && !(st->n_base > 1 && b == st->base[1]))
            mismatch(f, "%s:%d: threshold %s over stage %d, but stage %d of grader/labs/%s.c is timed against stage %d\n",
                 file, q->line, v, b, matched, l->name, st->base[0]);
        j = k + 2;
    }
    /* "... and N% of CUB" later in the sentence: the same stage's ceiling */
    for (k = j; k < ts->n && k < j + 16 && ts->t[k].kind != T_END; k++) {
        if (is_word(ts, k, "reference"))
            break;
        if (ts->t[k].kind == T_NUM) {
            if (ts->t[k].unit == U_PCT && is_word(ts, k - 1, "and")) {
                check_ceiling(l, file, &ts->t[k], matched, f);
                return k + 1;
            }
            break;
        }
    }
    return j;
}

/* A measured figure quoted at token i, against the table. */
static void check_measured(const lab_spec *l, const char *file, const tokens *ts, int i, const table *tb,
                           findings *f)
{
    const token *q = &ts->t[i];
    int s = q->stage;
    char v[64], t[64];
    num_text(q, v, sizeof v);
    if (s < 0 || s >= l->n_stages || !tb->rows[s].present) {
        mismatch(f, "%s:%d: measured %s for stage %d, which the measured table has no row for\n", file,
             q->line, v, s);
        return;
    }
    const row *r = &tb->rows[s];
    const token *want = q->unit == U_RATE ? &r->rate : q->unit == U_PCT ? &r->share : &r->speedup;
    const char *what = q->unit == U_RATE ? l->unit : q->unit == U_PCT ? "share" : "speedup";
    int named = -1;
    if (q->unit == U_X) {
        int k = i + 1;
        if (is_word(ts, k, "over"))
            k++;
        if (is_word(ts, k, "stage") && k + 1 < ts->n && ts->t[k + 1].kind == T_NUM)
            named = (int)num_val(ts->t[k + 1].v);
    }
    if (q->unit == U_X && (named >= 0 && named != table_base(l, tb, s) ? 1 : r->speedup.kind != T_NUM)) {
        if (named < 0)
            named = table_base(l, tb, s);
        /* over another stage than the table's column: the ratio of the rates */
        if (named >= l->n_stages || !tb->rows[named].present || tb->rows[named].rate.kind != T_NUM ||
            num_val(tb->rows[named].rate.v) <= 0) {
            mismatch(f, "%s:%d: measured %s over stage %d: no rate for that stage in the table\n", file,
                 q->line, v, named);
            return;
        }
        double ratio = num_val(r->rate.v) / num_val(tb->rows[named].rate.v);
        token rt = {.kind = T_NUM, .unit = U_X};
        rt.v.dec = q->v.dec;
        rt.v.m = lround(ratio * (double)pow10l_(q->v.dec));
        rt.hi = rt.v;
        if (num_same(q->v, rt.v) || fabs(num_val(q->v) / ratio - 1) <= 0.01)
            note(f, "%s:%d: measured %s over stage %d -> lab %d table, rate ratio %.3f (stages %d/%d)\n", file,
                 q->line, v, named, l->number, ratio, s, named);
        else
            mismatch(f, "%s:%d: measured %s over stage %d, but the table's rates give %.2fx\n", file, q->line,
                 v, named, ratio);
        return;
    }
    if (want->kind != T_NUM) {
        mismatch(f, "%s:%d: measured %s for stage %d, but the table gives no %s for it\n", file, q->line, v, s,
             what);
        return;
    }
    num_text(want, t, sizeof t);
    if (quote_matches(q, want))
        note(f, "%s:%d: measured %s -> lab %d table stage %d %s %s\n", file, q->line, v, l->number, s, what,
             t);
    else
        mismatch(f, "%s:%d: measured %s for stage %d, but the table (line %d) has %s %s\n", file, q->line, v, s,
             r->line, what, t);
}

/* "at least as fast as stage S" from token i. */
static int as_fast_as(const tokens *ts, int i)
{
    static const char *const w[] = {"at", "least", "as", "fast", "as", "stage"};
    for (int k = 0; k < 6; k++)
        if (!is_word(ts, i + k, w[k]))
            return 0;
    return i + 6 < ts->n && ts->t[i + 6].kind == T_NUM && ts->t[i + 6].unit == U_NONE;
}

/* Every quote of one file's text. */
static void scan_text(const lab_spec *l, const char *file, const char *text, const table *tb, findings *f)
{
    tokens ts = {malloc(MAX_TOKENS * sizeof(token)), 0};
    if (!ts.t) {
        mismatch(f, "%s: out of memory\n", file);
        return;
    }
    tokenize(text, &ts);
    int measured = 0, aside = -1;
    for (int i = 0; i < ts.n; i++) {
        const token *t = &ts.t[i];
        if (t->kind == T_END) {
            measured = 0;
            aside = -1;
            continue;
        }
        if (aside < 0) { /* a new sentence: does it report other measurements? */
            static const char *const other[] = {"benchmark", "without", "slower", "nsight", "tried"};
            aside = 0;
            for (int k = i; k < ts.n && ts.t[k].kind != T_END && !aside; k++)
                for (size_t w = 0; w < sizeof other / sizeof other[0]; w++)
                    aside |= is_word(&ts, k, other[w]);
        }
        if (t->kind == T_WORD) {
            int first = -1, max_words = 4, needs = 0;
            if (strcmp(t->word, "reference") == 0 ||
                (strcmp(t->word, "this") == 0 && (is_word(&ts, i + 1, "gains") || is_word(&ts, i + 1, "reaches"))))
                measured = 1;
            else if (strcmp(t->word, "asks") == 0 && is_word(&ts, i + 1, "for"))
                first = i + 2;
            else if (strcmp(t->word, "threshold") == 0)
                first = i + 1;
            else if (strcmp(t->word, "needs") == 0)
                first = i + 1, needs = 1;
            else if (strcmp(t->word, "expect") == 0 && as_fast_as(&ts, i + 1)) {
                /* "Expect: at least as fast as stage S": a threshold of 1.0x in words */
                token one = *t;
                one.kind = T_NUM;
                one.v = one.hi = (num){1, 0};
                one.unit = U_X;
                ts.t[i + 5] = one; /* the words now read "1x stage S" */
                i = check_threshold(l, file, &ts, i + 5, 0, f) - 1;
                continue;
            } else if (strcmp(t->word, "expect") == 0) {
                first = i + 1, max_words = 0;
                while (is_word(&ts, first, "at") || is_word(&ts, first, "least"))
                    first++;
            }
            if (first < 0)
                continue;
            int j = first;
            while (j < ts.n && j - first < max_words && ts.t[j].kind == T_WORD)
                j++;
            if (j < ts.n && ts.t[j].kind == T_NUM && (ts.t[j].unit == U_X || ts.t[j].unit == U_PCT))
                i = check_threshold(l, file, &ts, j, needs, f) - 1;
            continue;
        }
        if (measured && !aside && t->unit != U_NONE && t->stage >= 0) {
            check_measured(l, file, &ts, i, tb, f);
        } else if (t->unit != U_NONE && t->stage >= 0) {
            char v[64];
            num_text(t, v, sizeof v);
            add_log(f, "%s:%d: %s%s in stage %d's text: not a quote (no \"reference\" before it%s)\n", file,
                    t->line, v, t->unit == U_RATE ? " (a rate)" : "", t->stage,
                    aside ? ", or a sentence about other measurements" : "");
        }
    }
    free(ts.t);
}

/* The table against the grader: thresholds and reference rates. */
static void check_table(const lab_spec *l, const char *file, const table *tb, findings *f)
{
    if (!tb->found) {
        mismatch(f, "%s: no measured table (a header with \"stage\" and \"threshold\" or \"needs\")\n", file);
        return;
    }
    if (tb->extra_line)
        mismatch(f, "%s:%d: a row for a stage grader/labs/%s.c does not have\n", file, tb->extra_line, l->name);
    for (int s = 0; s < l->n_stages; s++) {
        const row *r = &tb->rows[s];
        const lab_stage *st = &l->stages[s];
        if (!r->present) {
            mismatch(f, "%s:%d: the measured table has no row for stage %d\n", file, tb->found, s);
            continue;
        }
        char v[64];
        if (r->thr_speedup.kind == T_NUM) {
            num_text(&r->thr_speedup, v, sizeof v);
            if (st->points_speed > 0 && fabs(num_val(r->thr_speedup.v) - st->min_speedup) < 1e-9)
                note(f, "%s:%d: table threshold %s -> lab %d stage %d min_speedup %.2f\n", file, r->line, v,
                     l->number, s, st->min_speedup);
            else
                mismatch(f, "%s:%d: table threshold %s for stage %d, but grader/labs/%s.c has min_speedup %.2f%s\n",
                     file, r->line, v, s, l->name, st->min_speedup,
                     st->points_speed ? "" : " (speed not graded)");
        } else if (st->points_speed > 0 && st->min_speedup > 0) {
            mismatch(f, "%s:%d: the table gives no speedup threshold for stage %d; grader/labs/%s.c has %.2f\n", file,
                 r->line, s, l->name, st->min_speedup);
        }
        if (r->thr_share.kind == T_NUM) {
            num_text(&r->thr_share, v, sizeof v);
            if (fabs(num_val(r->thr_share.v) / 100.0 - st->min_ceiling) < 1e-9)
                note(f, "%s:%d: table threshold %s -> lab %d stage %d min_ceiling %.2f\n", file, r->line, v,
                     l->number, s, st->min_ceiling);
            else
                mismatch(f, "%s:%d: table threshold %s for stage %d, but grader/labs/%s.c has min_ceiling %.2f\n",
                     file, r->line, v, s, l->name, st->min_ceiling);
        } else if (st->min_ceiling > 0) {
            mismatch(f, "%s:%d: the table gives no share threshold for stage %d; grader/labs/%s.c has %.0f%%\n", file,
                 r->line, s, l->name, 100 * st->min_ceiling);
        }
        if (l->reference_gpu) {
            double ref = st->reference;
            token want = r->rate, got = {.kind = T_NUM};
            got.v.dec = want.v.dec;
            got.v.m = lround(ref * (double)pow10l_(want.v.dec));
            got.hi = got.v;
            num_text(&want, v, sizeof v);
            if (want.kind == T_NUM && quote_matches(&got, &want) &&
                fabs(num_val(got.v) - ref) < 1e-9 * (1 + ref))
                note(f, "%s:%d: table %s %s -> lab %d stage %d reference %g\n", file, r->line, l->unit, v,
                     l->number, s, ref);
            else
                mismatch(f, "%s:%d: table %s %s for stage %d, but its reference in grader/labs/%s.c is %g\n",
                     file, r->line, l->unit, want.kind == T_NUM ? v : "(none)", s, l->name, ref);
        }
    }
}

static char text[TEXT_MAX];

/* Scans one lab's skeleton, header and handout; the findings' buffers are
 * filled, and the number of failures returned. */
static int scan_lab(const lab_spec *l, findings *f)
{
    char path[256];
    table tb;
    snprintf(path, sizeof path, "handouts/%s.md", l->dir);
    if (read_text(path, text, sizeof text) != 0) {
        mismatch(f, "%s: cannot be read (run the tests from the repository's root)\n", path);
        return f->failures;
    }
    parse_table(text, l, &tb);
    check_table(l, path, &tb, f);
    scan_text(l, path, text, &tb, f);
    const char *ext[] = {"cu", "h"};
    for (int e = 0; e < 2; e++) {
        snprintf(path, sizeof path, "labs/%s/%s.%s", l->dir, l->name, ext[e]);
        if (read_text(path, text, sizeof text) != 0) {
            mismatch(f, "%s: cannot be read\n", path);
            continue;
        }
        scan_text(l, path, text, &tb, f);
    }
    return f->failures;
}

static char log_buf[256 * 1024], fail_buf[16 * 1024];

START_TEST(quoted_numbers_agree)
{
    findings f = {log_buf, fail_buf, sizeof log_buf, sizeof fail_buf, 0, 0};
    log_buf[0] = fail_buf[0] = '\0';
    for (int i = 0; i < lab_count; i++)
        scan_lab(lab_table[i], &f);
    FILE *out = fopen(LOG_PATH, "w");
    if (out) {
        fputs(log_buf, out);
        fprintf(out, "%d numbers checked, %d disagree\n", f.quotes + f.failures, f.failures);
        fclose(out);
    }
    ck_assert_msg(f.failures == 0, "%d quoted numbers disagree with the tables (all in " LOG_PATH "):\n%s",
                  f.failures, fail_buf);
    /* Every lab quotes its thresholds somewhere: an empty scan would pass too easily. */
    ck_assert_int_ge(f.quotes, 20 * lab_count);
}
END_TEST

/* The checker itself: a handout with a wrong threshold, a wrong measured
 * figure, a table that disagrees with the grader, is caught with its line. */
START_TEST(wrong_numbers_are_caught)
{
    const lab_spec *l = &lab_transpose;
    static const char handout[] =
        "# Lab 1\n"
        "\n"
        "## Stage 4: no bank conflicts\n"
        "\n"
        "**Expect:** the reference reaches 3272 GB/s, 1.93× stage 3. The grader asks\n"
        "for 1.50×.\n"                                             /* line 6: wrong threshold */
        "The reference gains 1.8× here.\n"                         /* line 7: wrong measured */
        "A 32 × 8 block; 1.40× alone is no threshold.\n"
        "\n"
        "## Stage 5\n"
        "\n"
        "Expect: 1.10x over stage 3 (the reference: 95%).\n"       /* line 12: wrong base */
        "\n"
        "## The reference\n"
        "\n"
        "| stage | GB/s | % of cudaMemcpy | speedup over | threshold |\n"
        "|---|---|---|---|---|\n"
        "| 0 copy | 4147 | 100% | – | – |\n"
        "| 1 naive | 534 | 13% | – | speed reported |\n"
        "| 2 naive | 1666 | 40% | – | speed reported |\n"
        "| 3 tile | 1693 | 41% | 1.02× stage 2 | 0.80× |\n"
        "| 4 padded | 3272 | 79% | 1.93× stage 3 | 1.45× |\n"     /* line 22: wrong threshold */
        "| 5 float4 | 3931 | 95% | 1.20× stage 4 | 1.10× |\n";
    static char lg[16384], fl[4096];
    lg[0] = fl[0] = '\0';
    findings f = {lg, fl, sizeof lg, sizeof fl, 0, 0};
    table tb;
    parse_table(handout, l, &tb);
    ck_assert_int_eq(tb.found, 16);
    ck_assert_int_eq(tb.rows[4].speedup_base, 3);
    check_table(l, "h.md", &tb, &f);
    scan_text(l, "h.md", handout, &tb, &f);
    ck_assert_msg(strstr(fl, "h.md:6: threshold 1.50x for stage 4"), "%s", fl);
    ck_assert_msg(strstr(fl, "h.md:7: measured 1.8x for stage 4"), "%s", fl);
    ck_assert_msg(strstr(fl, "h.md:12: threshold 1.10x over stage 3"), "%s", fl);
    ck_assert_msg(strstr(fl, "h.md:22: table threshold 1.45x for stage 4"), "%s", fl);
    ck_assert_msg(f.failures == 4, "%d failures:\n%s", f.failures, fl);
    /* what matched is listed */
    ck_assert_msg(strstr(lg, "h.md:5: measured 3272 -> lab 1 table stage 4 GB/s 3272"), "%s", lg);
    ck_assert_msg(strstr(lg, "h.md:5: measured 1.93x -> lab 1 table stage 4 speedup 1.93x"), "%s", lg);
    ck_assert_msg(strstr(lg, "h.md:12: measured 95% -> lab 1 table stage 5 share 95%"), "%s", lg);
    /* a size is no number, and a speedup without a trigger no quote, but listed */
    ck_assert_msg(strstr(lg, "h.md:8: 1.40x in stage 4's text: not a quote"), "%s", lg);
    ck_assert_msg(!strstr(lg, "h.md:8: threshold") && !strstr(lg, "h.md:8: measured") &&
                      !strstr(lg, "h.md:8: 32"), "%s", lg);
    /* the reference check: lab 1's figures against this table */
    ck_assert_msg(strstr(lg, "h.md:18: table GB/s 4147 -> lab 1 stage 0 reference 4147"), "%s", lg);
}
END_TEST

START_TEST(numbers_match_at_their_precision)
{
    num a = {947, 1}, b = {95, 0}, c = {185, 2}, d = {19, 1}, e = {180, 2};
    ck_assert(num_same(a, b));
    ck_assert(num_same(c, d)); /* 1.85 written 1.9 */
    ck_assert(!num_same(e, d));
    token q = {.kind = T_NUM, .v = {130, 0}, .hi = {130, 0}};
    token r = {.kind = T_NUM, .v = {125, 0}, .hi = {136, 0}};
    ck_assert(quote_matches(&q, &r));
    q.v.m = q.hi.m = 137;
    ck_assert(!quote_matches(&q, &r));
}
END_TEST

Suite *make_numbers_suite(void)
{
    Suite *s = suite_create("numbers");
    TCase *tc = tcase_create("numbers");
    tcase_add_test(tc, numbers_match_at_their_precision);
    tcase_add_test(tc, wrong_numbers_are_caught);
    tcase_add_test(tc, quoted_numbers_agree);
    suite_add_tcase(s, tc);
    return s;
}
