/* results_fd.h: helpers for the cases that forge a record through the
 * grader's results file (issue 20, class 2). The file's descriptor is found
 * as any submission can find it, by the name its /proc/self/fd link shows;
 * the record is the one of the test being graded, read from the file itself
 * (a read is allowed). Only the seccomp filter in the grading child
 * (grader/sandbox.c) stands between them and a forged PASS. */
#ifndef CUDA_LABS_RESULTS_FD_H
#define CUDA_LABS_RESULTS_FD_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "../../results.h"

/* The grader's pass code (GRADE_PASS_EXIT, runner.h). */
#define FORGED_PASS_EXIT 93

/* The descriptor whose link names the results file; -1 when there is none. */
static inline int forge_find_results_fd(void)
{
    for (int fd = 0; fd < 1024; fd++) {
        char path[64], link[256];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) {
            link[n] = '\0';
            if (strstr(link, "cuda-labs-results"))
                return fd;
        }
    }
    return -1;
}

/* Fills rec with a PASS for test (stage, kind) of the first lab in the file
 * and returns the record's offset in it. */
static inline long forge_record(test_record *rec, int stage, int kind)
{
    memset(rec, 0, sizeof *rec);
    rec->state = STATE_FINISHED;
    rec->graded = 1;
    rec->v = V_PASS;
    rec->size = -1;
    rec->base = -1;
    snprintf(rec->msg, sizeof rec->msg, "correct at every size");
    return (long)offsetof(lab_results, t) + (long)sizeof(test_record) * (stage * TEST_KINDS + kind);
}

/* The address of a function of the grader's executable, from the symbol
 * table of its file (where the loader put it: the entry point's distance). */
static inline uintptr_t forge_grader_symbol(const char *name)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *img = (char *)malloc((size_t)size);
    size_t got = img ? fread(img, 1, (size_t)size, f) : 0;
    fclose(f);
    uintptr_t at = 0;
    if (got == (size_t)size) {
        const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
        for (int i = 0; i < eh->e_shnum && !at; i++) {
            if (sh[i].sh_type != SHT_SYMTAB)
                continue;
            const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
            const char *str = img + sh[sh[i].sh_link].sh_offset;
            for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
                if (strcmp(str + sym[k].st_name, name) == 0) {
                    at = getauxval(AT_ENTRY) - eh->e_entry + sym[k].st_value;
                    break;
                }
        }
    }
    free(img);
    return at;
}

/* The grader's own write of the results file (results_pwrite_stub). */
typedef long forge_stub_fn(long fd, const void *buf, long count, long offset);

/* Writes a PASS for the speed test of `stage` into its record through the
 * grader's own write (found by name), with the times given (ms a call; gb:
 * the gigabytes a call moves, for the throughputs), and leaves with the
 * grader's pass code. Returns only when the write could not be made. */
static inline void forge_speed_pass(int stage, double ms, double gb, int base, double base_ms,
                                    double ceiling_ms)
{
    uintptr_t stub = forge_grader_symbol("results_pwrite_stub");
    int fd = forge_find_results_fd();
    test_record rec;
    long off = forge_record(&rec, stage, TEST_PERF);
    rec.timed = 1;
    rec.reps = 20;
    rec.median_ms = rec.p10_ms = rec.p90_ms = ms;
    rec.wall_ms = ms * 1.05;
    rec.throughput = gb / ms * 1e3;
    rec.ceiling_ms = ceiling_ms;
    rec.ceiling_throughput = gb / ceiling_ms * 1e3;
    rec.pct_ceiling = 100.0 * ceiling_ms / ms;
    rec.base = base;
    rec.base_ms = base_ms;
    rec.speedup = base_ms / ms;
    rec.min_speedup = 1.10;
    if (stub && fd >= 0 &&
        ((forge_stub_fn *)stub)(fd, &rec, sizeof rec, off) == (long)sizeof rec)
        _exit(FORGED_PASS_EXIT);
}

/* Writes a PASS for the correctness test of `stage` into its record through
 * the grader's own write and leaves with the grader's pass code. Returns
 * only when the write could not be made. */
static inline void forge_correct_pass(int stage)
{
    uintptr_t stub = forge_grader_symbol("results_pwrite_stub");
    int fd = forge_find_results_fd();
    test_record rec;
    long off = forge_record(&rec, stage, TEST_CORRECT);
    if (stub && fd >= 0 &&
        ((forge_stub_fn *)stub)(fd, &rec, sizeof rec, off) == (long)sizeof rec)
        _exit(FORGED_PASS_EXIT);
}

/* Writes `v` with message `msg` into the record of test (stage, kind)
 * through the grader's own write and leaves with a failing exit code, as the
 * grader's own verdicts do. Returns only when the write could not be made. */
static inline void forge_verdict(int stage, int kind, verdict v, const char *msg)
{
    uintptr_t stub = forge_grader_symbol("results_pwrite_stub");
    int fd = forge_find_results_fd();
    test_record rec;
    long off = forge_record(&rec, stage, kind);
    rec.v = v;
    snprintf(rec.msg, sizeof rec.msg, "%s", msg);
    if (stub && fd >= 0 &&
        ((forge_stub_fn *)stub)(fd, &rec, sizeof rec, off) == (long)sizeof rec)
        _exit(1);
}

/* 1 when the test being graded (the first lab's record that is running, read
 * from the results file) is (stage, kind). */
static inline int forge_running_is(int stage, int kind)
{
    int fd = forge_find_results_fd();
    test_record rec;
    long off = (long)offsetof(lab_results, t) + (long)sizeof(test_record) * (stage * TEST_KINDS + kind);
    return fd >= 0 && pread(fd, &rec, sizeof rec, off) == (ssize_t)sizeof rec &&
           rec.state == STATE_RUNNING;
}

#endif
