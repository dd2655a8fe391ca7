/* html.c: one self-contained page (./grade --html FILE): the run, and per lab
 * its chart, its scoreboard and what to fix, with hints and the commands that
 * replay each failure. No scripts, no fonts, nothing fetched from a network. */
#include "html.h"

#include <string.h>

#include "chart.h"
#include "formats.h"
#include "report.h"

static const char *css =
    "body{font-family:Helvetica,Arial,sans-serif;margin:2em auto;max-width:900px;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;margin:1em 0}td,th{padding:4px 10px;text-align:left}"
    "th{background:#f3f3f3}td.num{text-align:right}tr:nth-child(even){background:#fafafa}"
    ".pass{color:#2d7a51}.fail{color:#b03a36;font-weight:bold}.slow{color:#b7791f;font-weight:bold}"
    ".fix{border-left:4px solid #b03a36;padding:0.4em 1em;margin:0.8em 0;background:#fdf6f6}"
    ".hint{color:#444;font-style:italic}code{background:#f1f1f1;padding:1px 4px}"
    ".meta{color:#555}";

static const char *verdict_class(verdict v)
{
    return v == V_PASS ? "pass" : v == V_SLOW || verdict_neutral(v) ? "slow" : "fail";
}

static void esc(FILE *f, const char *s)
{
    char buf[2 * VERDICT_MSG + 256];
    fputs(format_xml_escape(s, buf, sizeof buf), f);
}

static void scoreboard(FILE *f, const lab_spec *spec, const lab_results *res)
{
    fprintf(f, "<table><tr><th>#</th><th>stage</th><th>correct</th><th>%s</th><th>%% of "
               "ceiling</th><th>speedup</th><th>needs</th><th>points</th></tr>\n",
            spec->unit);
    for (int s = 0; s < spec->n_stages; s++) {
        const test_record *c = &res->t[s][TEST_CORRECT], *p = &res->t[s][TEST_PERF];
        if (!c->graded && !p->graded)
            continue;
        const test_record *t = p->timed ? p : c;
        fprintf(f, "<tr><td>%d</td><td>", s);
        esc(f, spec->stages[s].title);
        fprintf(f, "</td><td class=\"%s\">%s</td>", verdict_class(c->v),
                c->v == V_PASS ? "yes" : verdict_name(c->v));
        if (t->timed)
            fprintf(f, "<td class=\"num\">%.0f</td><td class=\"num\">%.1f%%</td>", t->throughput,
                    t->pct_ceiling);
        else
            fprintf(f, "<td class=\"num\">-</td><td class=\"num\">-</td>");
        if (p->timed && p->base >= 0 && p->v == V_PASS)
            fprintf(f, "<td class=\"pass\">%.2fx over %d</td>", p->speedup, p->base);
        else if (p->timed && p->base >= 0) /* the ratio and the verdict it earned, by name */
            fprintf(f, "<td class=\"%s\">%.2fx over %d: %s</td>", verdict_class(p->v),
                    p->speedup, p->base, verdict_name(p->v));
        else if (p->graded && p->v != V_PASS)
            fprintf(f, "<td class=\"fail\">%s</td>", verdict_name(p->v));
        else
            fprintf(f, "<td>-</td>");
        if (spec->stages[s].points_speed > 0 && spec->stages[s].n_base == 0)
            fprintf(f, "<td>%.0f%% of the ceiling</td>", 100.0 * spec->stages[s].min_ceiling);
        else if (spec->stages[s].points_speed > 0 && spec->stages[s].min_ceiling > 0)
            fprintf(f, "<td>%.2fx and %.0f%% of the ceiling</td>", spec->stages[s].min_speedup,
                    100.0 * spec->stages[s].min_ceiling);
        else if (spec->stages[s].points_speed > 0)
            fprintf(f, "<td>%.2fx</td>", spec->stages[s].min_speedup);
        else
            fprintf(f, "<td>-</td>");
        int got = results_points(spec, s, TEST_CORRECT, c) + results_points(spec, s, TEST_PERF, p);
        int max = (c->graded ? results_test_max(spec, s, TEST_CORRECT, c) : 0) +
                  (p->graded ? results_test_max(spec, s, TEST_PERF, p) : 0);
        if (max)
            fprintf(f, "<td class=\"num\">%d/%d</td></tr>\n", got, max);
        else
            fprintf(f, "<td class=\"num\">-</td></tr>\n");
    }
    fprintf(f, "</table>\n");
}

static void fixes(FILE *f, const lab_spec *spec, const lab_results *res, uint64_t seed)
{
    int any = 0;
    for (int s = 0; s < spec->n_stages; s++)
        for (int k = 0; k < TEST_KINDS; k++) {
            const test_record *t = &res->t[s][k];
            if (!t->graded || t->v == V_PASS || verdict_neutral(t->v))
                continue;
            /* Speed tests skipped because their own stage is not correct add nothing. */
            if (k == TEST_PERF && t->v == V_SKIPPED && res->t[s][TEST_CORRECT].v != V_PASS)
                continue;
            if (!any++)
                fprintf(f, "<h3>What to fix</h3>\n");
            fprintf(f, "<div class=\"fix\"><b>stage %d (", s);
            esc(f, spec->stages[s].title);
            fprintf(f, "), %s: <span class=\"%s\">%s</span></b><br>\n",
                    k == TEST_CORRECT ? "correctness" : "speed", verdict_class(t->v),
                    verdict_name(t->v));
            esc(f, t->msg);
            char hint[1024];
            if (report_hint(hint, sizeof hint, spec, res, s, k)) {
                fprintf(f, "<br><span class=\"hint\">hint: ");
                esc(f, hint);
                fprintf(f, "</span>");
            }
            if (t->v != V_TODO) {
                char replay[512];
                report_replay(replay, sizeof replay, spec, s, seed, 0, NULL);
                fprintf(f, "<br>replay: <code>");
                esc(f, replay);
                fprintf(f, "</code>");
            }
            fprintf(f, "</div>\n");
        }
    if (!any)
        fprintf(f, "<p class=\"pass\">Every graded test passed.</p>\n");
    int techniques = 0;
    for (int s = 0; s < spec->n_stages; s++) {
        const test_record *t = &res->t[s][TEST_CORRECT];
        if (!t->missing_technique[0])
            continue;
        if (!techniques++)
            fprintf(f, "<h3>Techniques</h3>\n<p>Read from the machine code of each stage's "
                       "kernels; correct stages without the technique they teach:</p>\n<ul>\n");
        fprintf(f, "<li>stage %d (", s);
        esc(f, spec->stages[s].title);
        fprintf(f, "): no ");
        esc(f, t->missing_technique);
        fprintf(f, "</li>\n");
    }
    if (techniques)
        fprintf(f, "</ul>\n");
}

int report_html(FILE *f, const run_summary *r)
{
    int got, max;
    report_score_labs(r->specs, r->res, r->n_labs, &got, &max);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
               "<title>CUDA Labs results</title><style>%s</style></head><body>\n",
            css);
    fprintf(f, "<h1>CUDA Labs results: %d/%d points</h1>\n<p class=\"meta\">GPU: ", got, max);
    char label[300];
    esc(f, devinfo_label(r->dev, "unknown", label, sizeof label));
    if (r->dev)
        fprintf(f, " (compute capability %d.%d)", r->dev->cc_major, r->dev->cc_minor);
    fprintf(f, " &middot; seed 0x%llx (replay any run with <code>--seed 0x%llx</code>)</p>\n",
            (unsigned long long)r->seed, (unsigned long long)r->seed);
    for (int l = 0; l < r->n_labs; l++) {
        const lab_spec *spec = r->specs[l];
        int g, m;
        report_score(spec, &r->res[l], &g, &m);
        fprintf(f, "<h2>lab %d: %s &middot; %d/%d points</h2>\n", spec->number, spec->name, g, m);
        chart_svg(f, spec, &r->res[l], r->dev);
        scoreboard(f, spec, &r->res[l]);
        fixes(f, spec, &r->res[l], r->seed);
    }
    fprintf(f, "</body></html>\n");
    return ferror(f) ? -1 : 0;
}
