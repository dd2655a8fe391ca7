/* streams_lab.c: see streams_lab.h. Pure arithmetic on measured intervals. */
#include "streams_lab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of [a, b) covered by the union of the spans of other kinds than
 * `kind` (the spans are few: a quadratic sweep is fine). */
static double covered_by_others(const span *s, int n, span_kind kind, double a, double b)
{
    /* Cut [a, b) at every start and end inside it; test each piece. */
    double cuts[2 * 256 + 2];
    int m = 0;
    cuts[m++] = a;
    for (int i = 0; i < n && m < 2 * 256; i++) {
        if (s[i].kind == kind)
            continue;
        if (s[i].start > a && s[i].start < b)
            cuts[m++] = s[i].start;
        if (s[i].end > a && s[i].end < b)
            cuts[m++] = s[i].end;
    }
    cuts[m++] = b;
    for (int i = 1; i < m; i++) /* insertion sort: m is small */
        for (int j = i; j > 0 && cuts[j - 1] > cuts[j]; j--) {
            double t = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = t;
        }
    double covered = 0;
    for (int i = 0; i + 1 < m; i++) {
        double mid = 0.5 * (cuts[i] + cuts[i + 1]);
        for (int j = 0; j < n; j++)
            if (s[j].kind != kind && s[j].start <= mid && mid < s[j].end) {
                covered += cuts[i + 1] - cuts[i];
                break;
            }
    }
    return covered;
}

double streams_hidden_fraction(const span *s, int n)
{
    double copy = 0, hidden = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].kind == SPAN_KERNEL || s[i].end <= s[i].start)
            continue;
        copy += s[i].end - s[i].start;
        hidden += covered_by_others(s, n, s[i].kind, s[i].start, s[i].end);
    }
    return copy > 0 ? hidden / copy : 0.0;
}

static double ms_for(double bytes, double gbps)
{
    return gbps > 0 ? bytes / (gbps * 1e6) : 0.0; /* GB/s = 1e6 bytes per ms */
}

double streams_overlap_bound_ms(double h2d_bytes, double d2h_bytes, double kernel_ms,
                                double h2d_gbps, double d2h_gbps, double both_gbps)
{
    double t = kernel_ms;
    double in = ms_for(h2d_bytes, h2d_gbps), out = ms_for(d2h_bytes, d2h_gbps);
    double both = ms_for(h2d_bytes + d2h_bytes, both_gbps);
    if (in > t)
        t = in;
    if (out > t)
        t = out;
    if (both > t)
        t = both;
    return t;
}

double streams_serial_ms(double h2d_bytes, double d2h_bytes, double kernel_ms, double h2d_gbps,
                         double d2h_gbps)
{
    return ms_for(h2d_bytes, h2d_gbps) + kernel_ms + ms_for(d2h_bytes, d2h_gbps);
}

size_t streams_timeline(char *buf, size_t n, const span *s, int count, int width)
{
    static const char mark[] = {'H', 'K', 'D'};
    double t0 = 0, t1 = 0;
    int streams = 0;
    for (int i = 0; i < count; i++) {
        if (i == 0 || s[i].start < t0)
            t0 = s[i].start;
        if (i == 0 || s[i].end > t1)
            t1 = s[i].end;
        if (s[i].stream + 1 > streams)
            streams = s[i].stream + 1;
    }
    if (width < 8)
        width = 8;
    if (width > 200)
        width = 200;
    size_t used = 0;
    char row[256];
    double step = count && t1 > t0 ? (t1 - t0) / width : 1.0;
    for (int st = 0; st < streams; st++) {
        int any = 0;
        for (int c = 0; c < width; c++) {
            double a = t0 + c * step, b = a + step, best = 0;
            row[c] = '.';
            for (int i = 0; i < count; i++) {
                if (s[i].stream != st)
                    continue;
                any = 1;
                double lo = s[i].start > a ? s[i].start : a, hi = s[i].end < b ? s[i].end : b;
                if (hi - lo > best) {
                    best = hi - lo;
                    row[c] = mark[s[i].kind];
                }
            }
        }
        row[width] = '\0';
        if (!any)
            continue;
        int k = snprintf(buf ? buf + (used < n ? used : n) : NULL, used < n ? n - used : 0,
                         "  stream %-2d |%s|\n", st, row);
        used += k > 0 ? (size_t)k : 0;
    }
    int k = snprintf(buf ? buf + (used < n ? used : n) : NULL, used < n ? n - used : 0,
                     "%13s0%*s%.3f ms   H copy in, K kernel, D copy out\n", "", width - 1, "",
                     t1 - t0);
    used += k > 0 ? (size_t)k : 0;
    return used;
}
