/* sanitize.c: ./grade --sanitize. Each stage runs at the small sizes in a
 * grade process of its own inside compute-sanitizer, once per tool, with
 * plain allocations (guard zones would hide reads past the end from
 * memcheck); the first report of each finding is shown with the stage. */
#define _GNU_SOURCE
#include "sanitize.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "toolkit.h"

#define SANITIZER_FOUND 86 /* compute-sanitizer's exit status when it reported errors */
#define SANITIZER_OUT (512 * 1024)

/* Prints the sanitizer's first error report: its "=========" lines after the
 * banner, up to the next empty one, at most 30 lines. */
static void print_first_report(const char *out)
{
    int lines = 0, started = 0;
    char line[1024];
    for (const char *p = out; *p && lines < 30;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        p = nl ? nl + 1 : p + len;
        if (strncmp(line, "=========", 9) != 0 || strstr(line, "COMPUTE-SANITIZER"))
            continue;
        if (strspn(line + 9, " ") == strlen(line + 9)) { /* an empty report line */
            if (started)
                break;
            continue;
        }
        printf("      %s\n", line);
        started = 1;
        lines++;
    }
}

typedef struct tool_run {
    char *argv[20];
    char out[SANITIZER_OUT];
    int rc;
    pthread_t thread;
    int started;
} tool_run;

static void *run_tool(void *arg)
{
    tool_run *j = arg;
    const char *env[] = {"CK_TIMEOUT_MULTIPLIER=20", NULL};
    j->rc = run_command(j->argv, env, j->out, sizeof j->out);
    return NULL;
}

int sanitize_lab(const lab_spec *spec, const char *lib, unsigned stage_mask, uint64_t seed)
{
    static const char *const tools[] = {"memcheck", "racecheck", "synccheck", "initcheck"};
    char tool_path[PATH_MAX], self[PATH_MAX];
    if (toolkit_find("compute-sanitizer", tool_path, sizeof tool_path) != 0) {
        fprintf(stderr, "grade: compute-sanitizer not found (it comes with the CUDA Toolkit, "
                        "in %s/bin).\n", CUDA_LABS_CUDA_HOME);
        return SANITIZE_NO_TOOL;
    }
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0)
        return SANITIZE_FOUND;
    self[k] = '\0';
    printf("\nlab %d (%s) under compute-sanitizer: %s\n  each stage at its small sizes, "
           "nothing timed\n",
           spec->number, spec->name, lib);
    int findings = 0, runs = 0;
    for (int s = 0; s < spec->n_stages; s++) {
        if (stage_mask && !(stage_mask & (1u << s)))
            continue;
        printf("  stage %d  %-34s", s, spec->stages[s].title);
        fflush(stdout);
        static char reports[4][SANITIZER_OUT / 8];
        int found[4] = {0};
        /* The four tools at once: nothing is timed under a sanitizer. */
        static tool_run job[4];
        char lab[16], stage[16], seed_text[32];
        snprintf(lab, sizeof lab, "lab%d", spec->number);
        snprintf(stage, sizeof stage, "%d", s);
        snprintf(seed_text, sizeof seed_text, "0x%llx", (unsigned long long)seed);
        for (int t = 0; t < 4; t++) {
            char *argv[] = {tool_path, "--tool", (char *)tools[t], "--target-processes", "all",
                            "--error-exitcode", "86", "--print-limit", "3", self, lab, "--lib",
                            (char *)lib, "--stage", stage, "--seed", seed_text,
                            "--under-sanitizer", NULL};
            memcpy(job[t].argv, argv, sizeof argv);
            job[t].started = pthread_create(&job[t].thread, NULL, run_tool, &job[t]) == 0;
            if (!job[t].started)
                run_tool(&job[t]);
        }
        for (int t = 0; t < 4; t++)
            if (job[t].started)
                pthread_join(job[t].thread, NULL);
        /* A run that neither came out clean nor found something may have met the
         * others (a GPU that admits one process at a time, too little memory for
         * four): that tool runs again alone, as it always could. */
        for (int t = 0; t < 4; t++)
            if (job[t].rc != 0 && job[t].rc != SANITIZER_FOUND && job[t].rc != 77)
                run_tool(&job[t]);
        for (int t = 0; t < 4; t++) {
            int rc = job[t].rc;
            const char *out = job[t].out;
            runs++;
            const char *outcome = "clean";
            if (rc == SANITIZER_FOUND) {
                outcome = "FOUND";
                found[t] = 1;
                findings++;
                size_t len = strnlen(out, sizeof reports[t] - 1);
                memcpy(reports[t], out, len);
                reports[t][len] = '\0';
            } else if (rc == 77) { /* the grader found no GPU */
                outcome = "no GPU";
            } else if (rc != 0) {
                outcome = strstr(out, "NOT IMPLEMENTED") ? "not written" : "stage fails";
            }
            printf("  %s %s", tools[t], outcome);
            fflush(stdout);
        }
        printf("\n");
        for (int t = 0; t < 4; t++)
            if (found[t]) {
                printf("    %s, first report for stage %d (%s):\n", tools[t], s,
                       spec->stages[s].title);
                print_first_report(reports[t]);
            }
    }
    printf("\n%d sanitizer run%s, %d with findings. \"stage fails\": the stage fails its own "
           "checks (./grade --stage N says why); \"not written\": still LAB_TODO.\n",
           runs, runs == 1 ? "" : "s", findings);
    return findings ? SANITIZE_FOUND : SANITIZE_CLEAN;
}

