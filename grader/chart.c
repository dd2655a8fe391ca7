/* chart.c: one SVG per lab. A bar per stage for the throughput it reached,
 * coloured by its verdict; the ceiling measured in the same run as a dashed
 * line; a tick where the stage's threshold lies (its base stage's throughput
 * times the speedup it needs); a diamond for the reference solution's figure
 * when the GPU is the one the reference was measured on. */
#include "chart.h"

#include <math.h>
#include <string.h>

#include "formats.h"

#define WIDTH 880
#define LABEL_W 270
#define PLOT_X0 (LABEL_W + 10)
#define PLOT_W 420
#define TOP 92
#define ROW 38
#define BAR 16

static const char *bar_colour(const test_record *c, const test_record *p)
{
    if (p->graded)
        return p->v == V_PASS ? "#3f9b6b" : p->v == V_SLOW ? "#e0a030" : "#c0504d";
    if (verdict_neutral(c->v))
        return "#b0b0b0"; /* not available on this GPU: neither pass nor fail */
    return c->v == V_PASS ? "#5b84c4" : "#c0504d";
}

/* A round axis maximum and step: 1, 2 or 5 x 10^k. */
static double nice_step(double max)
{
    double raw = max / 5.0, mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

int chart_svg(FILE *f, const lab_spec *spec, const lab_results *res, const devinfo *dev)
{
    int rows = 0, several = 0; /* several: stages have ceilings of their own */
    double top = 0, ceiling = 0;
    for (int s = 0; s < spec->n_stages; s++)
        several |= spec->stages[s].ceiling != NULL;
    /* The reference's figures were measured on the whole GPU: not beside a run with --sms. */
    int reference = spec->reference_gpu && dev && !dev->sms_used &&
                    strcmp(dev->name, spec->reference_gpu) == 0;
    for (int s = 0; s < spec->n_stages; s++) {
        const test_record *c = &res->t[s][TEST_CORRECT], *p = &res->t[s][TEST_PERF];
        if (!c->graded && !p->graded)
            continue;
        rows++;
        const test_record *t = p->timed ? p : c;
        if (t->timed) {
            top = fmax(top, t->throughput);
            ceiling = fmax(ceiling, t->ceiling_throughput);
            if (p->timed && p->base >= 0 && p->base_ms > 0)
                top = fmax(top, p->throughput * p->median_ms / p->base_ms * p->min_speedup);
        }
        if (reference)
            top = fmax(top, spec->stages[s].reference);
    }
    top = fmax(top, ceiling);
    if (top <= 0)
        top = 1;
    double step = nice_step(top * 1.05), axis = ceil(top * 1.05 / step) * step;
    int height = TOP + rows * ROW + 48;
    char esc[512], gpu[300], label[300];
    format_xml_escape(devinfo_label(dev, "an unknown GPU", label, sizeof label), gpu, sizeof gpu);

    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 "
               "%d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"13\">\n",
            WIDTH, height, WIDTH, height);
    fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", WIDTH, height);
    fprintf(f, "<text x=\"16\" y=\"26\" font-size=\"16\" font-weight=\"bold\">lab %d (%s) on %s</text>\n",
            spec->number, spec->name, gpu);
    /* Legend. */
    const struct {
        const char *colour, *text;
    } legend[] = {{"#3f9b6b", "fast enough"}, {"#e0a030", "too slow"}, {"#5b84c4", "speed reported"},
                  {"#c0504d", "failed"}};
    int lx = 16;
    for (size_t i = 0; i < sizeof legend / sizeof legend[0]; i++) {
        fprintf(f, "<rect x=\"%d\" y=\"40\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"51\">%s</text>\n",
                lx, legend[i].colour, lx + 17, legend[i].text);
        lx += 30 + 8 * (int)strlen(legend[i].text);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"41\" x2=\"%d\" y2=\"53\" stroke=\"black\" stroke-width=\"2\"/>"
               "<text x=\"%d\" y=\"51\">threshold</text>\n",
            lx + 4, lx + 4, lx + 11);
    lx += 90;
    if (several) {
        fprintf(f, "<line x1=\"%d\" y1=\"40\" x2=\"%d\" y2=\"54\" stroke=\"#444\" "
                   "stroke-dasharray=\"4,3\" stroke-width=\"1.5\"/><text x=\"%d\" y=\"51\">its "
                   "ceiling</text>\n",
                lx, lx, lx + 7);
        lx += 90;
    }
    if (reference)
        fprintf(f, "<path d=\"M%d,46 l6,-6 l6,6 l-6,6 z\" fill=\"none\" stroke=\"#333\" stroke-width=\"1.5\"/>"
                   "<text x=\"%d\" y=\"51\">reference solution</text>\n",
                lx, lx + 17);
    /* Axis and grid. */
    int plot_top = TOP - 12, plot_bottom = TOP + rows * ROW;
    for (double v = 0; v <= axis + 1e-9; v += step) {
        double x = PLOT_X0 + v / axis * PLOT_W;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e3e3e3\"/>"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
                x, plot_top, x, plot_bottom, x, plot_bottom + 16, v);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%s at the benchmark size</text>\n",
            PLOT_X0 + PLOT_W / 2, plot_bottom + 34, spec->unit);
    fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%s (%% of ceiling)</text>\n",
            PLOT_X0 + PLOT_W + 14, plot_top + 2, spec->unit);
    /* Rows. */
    int row = 0;
    for (int s = 0; s < spec->n_stages; s++) {
        const test_record *c = &res->t[s][TEST_CORRECT], *p = &res->t[s][TEST_PERF];
        if (!c->graded && !p->graded)
            continue;
        int y = TOP + row++ * ROW;
        int by = y + (ROW - BAR) / 2 - 6;
        format_xml_escape(spec->stages[s].title, esc, sizeof esc);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d  %s</text>\n", LABEL_W, by + 12, s,
                esc);
        const test_record *t = p->timed ? p : c;
        if (!t->timed) {
            const test_record *why = c->v != V_PASS ? c : p;
            const char *text = why->graded && why->v != V_NOT_RUN ? verdict_name(why->v)
                                                                 : "correct (not timed)";
            fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#888\">%s</text>\n", PLOT_X0 + 4, by + 12,
                    text);
            continue;
        }
        double w = t->throughput / axis * PLOT_W;
        const test_record *verdict_of = c->v != V_PASS ? c : p->graded ? p : c;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s"
                   "</title></rect>\n",
                PLOT_X0, by, w, BAR, bar_colour(c, p),
                verdict_name(verdict_of->v));
        /* Values in a column of their own, right of the plot: nothing to overlap. */
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%.0f (%.0f%%)</text>\n",
                PLOT_X0 + PLOT_W + 14, by + 12, t->throughput, t->pct_ceiling);
        if (p->timed && p->base >= 0 && p->base_ms > 0 && p->min_speedup > 0) {
            double need = p->throughput * p->median_ms / p->base_ms * p->min_speedup;
            double x = PLOT_X0 + need / axis * PLOT_W;
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\" "
                       "stroke-width=\"2\"><title>needs %.2fx over stage %d: %.0f %s</title></line>\n",
                    x, by - 4, x, by + BAR + 4, p->min_speedup, p->base, need, spec->unit);
        }
        if (p->timed && p->base < 0 && p->min_ceiling > 0 && p->ceiling_throughput > 0) {
            double need = p->ceiling_throughput * p->min_ceiling;
            double x = PLOT_X0 + need / axis * PLOT_W;
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\" "
                       "stroke-width=\"2\"><title>needs %.0f%% of the ceiling: %.0f %s</title></line>\n",
                    x, by - 4, x, by + BAR + 4, 100.0 * p->min_ceiling, need, spec->unit);
        }
        if (several && t->ceiling_throughput > 0) { /* this row's own ceiling */
            double x = PLOT_X0 + t->ceiling_throughput / axis * PLOT_W;
            format_xml_escape(lab_ceiling_name(spec, s), esc, sizeof esc);
            fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\" "
                       "stroke-dasharray=\"4,3\" stroke-width=\"1.5\"><title>ceiling: %s, %.0f "
                       "%s</title></line>\n"
                       "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" font-size=\"10\" "
                       "fill=\"#444\">%s</text>\n",
                    x, by - 6, x, by + BAR + 6, esc, t->ceiling_throughput, spec->unit, x - 3,
                    by + BAR + 11, esc); /* labelled in the gap under the bar */
        }
        if (reference && spec->stages[s].reference > 0) {
            double v = spec->stages[s].reference;
            double x = PLOT_X0 + v / axis * PLOT_W;
            fprintf(f, "<path d=\"M%.1f,%d l6,-6 l6,6 l-6,6 z\" fill=\"none\" stroke=\"#333\" "
                       "stroke-width=\"1.5\"><title>reference: %.*f %s</title></path>\n",
                    x - 6, by + BAR / 2, v < 10 ? 1 : 0, v, spec->unit); /* 0.5, 6.2, 1704 */
        }
    }
    if (ceiling > 0 && !several) {
        double x = PLOT_X0 + ceiling / axis * PLOT_W;
        format_xml_escape(spec->ceiling_name, esc, sizeof esc);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\" "
                   "stroke-dasharray=\"6,4\" stroke-width=\"1.5\"/>\n"
                   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" fill=\"#444\">ceiling: %s, %.0f %s</text>\n",
                x, plot_top, x, plot_bottom, x - 4, plot_top + 2, esc, ceiling, spec->unit);
    }
    fprintf(f, "</svg>\n");
    return ferror(f) ? -1 : 0;
}
