#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
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

/* A copy of the solution library with one thing damaged by change(), in a
 * temporary file whose name goes into path. */
static void damaged_copy(char *path, void (*change)(unsigned char *elf, size_t size))
{
    FILE *in = fopen(SOLUTION, "rb");
    ck_assert_ptr_nonnull(in);
    fseek(in, 0, SEEK_END);
    size_t size = (size_t)ftell(in);
    rewind(in);
    unsigned char *b = malloc(size);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(fread(b, 1, size, in), size);
    fclose(in);
    change(b, size);
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b, size), (ssize_t)size);
    close(fd);
    free(b);
}

static Elf64_Shdr *section_of_type(unsigned char *b, unsigned type)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
    Elf64_Shdr *sh = (Elf64_Shdr *)(b + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == type)
            return &sh[i];
    ck_abort_msg("no section of type %u", type);
    return NULL;
}

static void make_exec(unsigned char *b, size_t n) { (void)n; ((Elf64_Ehdr *)b)->e_type = ET_EXEC; }
static void make_32bit(unsigned char *b, size_t n) { (void)n; b[EI_CLASS] = ELFCLASS32; }
static void bad_shentsize(unsigned char *b, size_t n) { (void)n; ((Elf64_Ehdr *)b)->e_shentsize = 3; }
static void bad_phentsize(unsigned char *b, size_t n) { (void)n; ((Elf64_Ehdr *)b)->e_phentsize = 3; }
static void bad_symentsize(unsigned char *b, size_t n) { (void)n; section_of_type(b, SHT_DYNSYM)->sh_entsize = 5; }
static void bad_strtab(unsigned char *b, size_t n)
{
    Elf64_Shdr *sh = (Elf64_Shdr *)(b + ((Elf64_Ehdr *)b)->e_shoff);
    sh[section_of_type(b, SHT_DYNSYM)->sh_link].sh_offset = n; /* past the end */
}
static void no_dynsym(unsigned char *b, size_t n) { (void)n; section_of_type(b, SHT_DYNSYM)->sh_type = SHT_PROGBITS; }
static void bad_dynamic(unsigned char *b, size_t n)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
    Elf64_Phdr *ph = (Elf64_Phdr *)(b + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            ph[i].p_offset = n;
}

static void ignore_symbol(const elf_symbol *sym, void *arg)
{
    (void)sym;
    (void)arg;
}

/* Each kind of damage is named, by the symbol readers and by elf_hardening. */
START_TEST(names_each_damage)
{
    static const struct {
        void (*change)(unsigned char *, size_t);
        const char *symbols, *hardening; /* what each says; NULL: no complaint */
    } cases[] = {
        {make_exec, "is not a shared library", NULL},
        {make_32bit, "is not a 64-bit little-endian ELF file", "is not a 64-bit little-endian ELF file"},
        {bad_shentsize, "has a damaged section table", NULL},
        {bad_phentsize, NULL, "has a damaged program header table"},
        {bad_symentsize, "has a damaged symbol table", NULL},
        {bad_strtab, "has a damaged string table", NULL},
        {no_dynsym, "has no dynamic symbol table", NULL},
        {bad_dynamic, NULL, "has a damaged dynamic section"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char path[] = "/tmp/cudalabs-damagedXXXXXX", err[512] = "";
        damaged_copy(path, cases[k].change);
        int rc = elf_each_symbol(path, ELF_DYNSYM, ignore_symbol, NULL, err, sizeof err);
        if (cases[k].symbols)
            ck_assert_msg(rc == -1 && strstr(err, path) && strstr(err, cases[k].symbols),
                          "case %zu: %d %s", k, rc, err);
        else
            ck_assert_msg(rc == 0 || rc == -1, "case %zu", k);
        int relro, now;
        err[0] = '\0';
        rc = elf_hardening(path, &relro, &now, err, sizeof err);
        if (cases[k].hardening)
            ck_assert_msg(rc == -1 && strstr(err, cases[k].hardening), "case %zu: %d %s", k, rc,
                          err);
        else
            ck_assert_msg(rc == 0, "case %zu: %s", k, err);
        unlink(path);
    }
    /* Too small to be ELF at all, or not there. */
    char path[] = "/tmp/cudalabs-tinyXXXXXX", err[512];
    int fd = mkstemp(path);
    ck_assert_int_eq(write(fd, "\177ELF", 4), 4);
    close(fd);
    int relro, now;
    ck_assert_int_eq(elf_hardening(path, &relro, &now, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is not an ELF file (too small)"));
    ck_assert_int_eq(elf_defines_function(path, "x", err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is not a shared library (too small)"));
    unlink(path);
    ck_assert_int_eq(elf_hardening("/nonexistent/lab.so", &relro, &now, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open /nonexistent/lab.so"));
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
    tcase_add_test(tc, names_each_damage);
    suite_add_tcase(s, tc);
    return s;
}
