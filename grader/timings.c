/* timings.c: per-process phase clock (timings.h). */
#define _POSIX_C_SOURCE 200809L
#include "timings.h"

#include <string.h>
#include <time.h>

static double totals[TM_COUNT];
static double since;
static int current = TM_OTHER;

double tm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tm_start(int p)
{
    memset(totals, 0, sizeof totals);
    current = p >= 0 && p < TM_COUNT ? p : TM_OTHER;
    since = tm_now();
}

int tm_enter(int p)
{
    double now = tm_now();
    int left = current;
    totals[current] += now - since;
    since = now;
    current = p >= 0 && p < TM_COUNT ? p : TM_OTHER;
    return left;
}

void tm_totals(double secs[TM_COUNT])
{
    tm_enter(current);
    memcpy(secs, totals, sizeof totals);
}

static const char *const names[TM_COUNT][2] = {
    {"start-up", "startup"},      {"inputs", "inputs"},
    {"CPU reference", "reference"}, {"buffers, uploads", "upload"},
    {"correctness calls", "calls"}, {"correctness checks", "checks"},
    {"reloads", "reload"},        {"timed calls", "timed"},
    {"ceilings", "ceiling"},      {"timed checks", "timed_checks"},
    {"other", "other"},
};

const char *tm_phase_name(int p)
{
    return p >= 0 && p < TM_COUNT ? names[p][0] : "?";
}

const char *tm_phase_key(int p)
{
    return p >= 0 && p < TM_COUNT ? names[p][1] : "?";
}
