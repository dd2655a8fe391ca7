#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../elfsym.h"
#include "tests.h"

/* make test builds the solution library before the tests run. */
#define SOLUTION "build/solutions/lab1.so"

START_TEST(finds_stage_functions)
{
    char err[256];
    ck_assert_int_eq(elf_defines_function(SOLUTION, "transpose_tiled", err, sizeof err), 1);
    ck_assert_int_eq(elf_defines_function(SOLUTION, "transpose_vectorized", err, sizeof err), 1);
    ck_assert_int_eq(elf_defines_function(SOLUTION, "transpose_nonexistent", err, sizeof err), 0);
    /* Used from libcudart, not defined here. */
    ck_assert_int_eq(elf_defines_function(SOLUTION, "__cudaLaunchKernel", err, sizeof err), 0);
}
END_TEST

static void count(const char *name, int defined, int is_function, void *arg)
{
    int *n = arg;
    if (!defined && is_function && strncmp(name, "__cuda", 6) == 0)
        (*n)++;
}

START_TEST(lists_undefined_cuda_calls)
{
    char err[256];
    int n = 0;
    ck_assert_int_eq(elf_each_dynsym(SOLUTION, count, &n, err, sizeof err), 0);
    ck_assert_int_gt(n, 0);
}
END_TEST

START_TEST(rejects_non_elf)
{
    char path[] = "/tmp/cudalabs-elfXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char junk[] = "this is not a shared library, just some bytes of text, long enough to fill an ELF header and more";
    ck_assert_int_eq(write(fd, junk, sizeof junk), (int)sizeof junk);
    close(fd);
    char err[256];
    ck_assert_int_eq(elf_defines_function(path, "x", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a 64-bit"));
    unlink(path);
    ck_assert_int_eq(elf_defines_function("/nonexistent/lab.so", "x", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open"));
}
END_TEST

START_TEST(rejects_executable_and_truncated)
{
    char err[256];
    /* An executable is ELF but not a shared library: the grader itself. */
    ck_assert_int_eq(elf_defines_function("/bin/sh", "x", err, sizeof err) == 1, 0);
    /* A truncated copy of a real library. */
    FILE *in = fopen(SOLUTION, "rb");
    ck_assert_ptr_nonnull(in);
    char head[200];
    size_t got = fread(head, 1, sizeof head, in);
    fclose(in);
    char path[] = "/tmp/cudalabs-truncXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_eq(write(fd, head, got), (int)got);
    close(fd);
    ck_assert_int_eq(elf_defines_function(path, "transpose_tiled", err, sizeof err), -1);
    unlink(path);
}
END_TEST

Suite *make_elfsym_suite(void)
{
    Suite *s = suite_create("elfsym");
    TCase *tc = tcase_create("elfsym");
    tcase_add_test(tc, finds_stage_functions);
    tcase_add_test(tc, lists_undefined_cuda_calls);
    tcase_add_test(tc, rejects_non_elf);
    tcase_add_test(tc, rejects_executable_and_truncated);
    suite_add_tcase(s, tc);
    return s;
}
