/* Adversarial case (lab 1, issue 20 class 2): stage 5 transposes naively,
 * which is correct but slow, and forges its speed test's record: at its
 * twelfth call at the benchmark size it finds the grader's own write of the
 * results file (results_pwrite_stub, by its name in the grader's symbol
 * table, read from /proc/self/exe) and the file's descriptor, writes a PASS
 * with a fast time into its own record through that write, which the sandbox
 * lets through, and leaves with the grader's pass code. The grader's timing
 * witness, a process of its own that timed each call, saw fewer calls than
 * the test makes (and slower ones than the record says): REJECTED. (Without the witness, which is off unless CUDA_LABS_WITNESS=1,
 * this forgery gets full marks: instructors.md.)
 * lab: 1
 * expect: 5 correctness PASS
 * expect: 5 speed REJECTED
 * expect-output: the grader's timing witness
 * grade-args: --stage 5
 * grade-env: CUDA_LABS_WITNESS=1
 */
#include <elf.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "results_fd.h"

#define transpose_vectorized transpose_vectorized_reference
#include "../../../solutions/1-transpose/transpose.cu"
#undef transpose_vectorized

/* The address of a function of the grader's executable, from the symbol
 * table of its file (where the loader put it: the entry point's distance). */
static uintptr_t grader_symbol(const char *name)
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

typedef long stub_fn(long fd, const void *buf, long count, long offset);

extern "C" lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols,
                                           cudaStream_t stream)
{
    static int calls;
    lab_status st = transpose_naive_read(d_in, d_out, rows, cols, stream);
    if ((size_t)rows * cols != (size_t)8192 * 8192 || ++calls != 12)
        return st;
    uintptr_t stub = grader_symbol("results_pwrite_stub");
    int fd = forge_find_results_fd();
    test_record rec;
    long off = forge_record(&rec, 5, TEST_PERF);
    rec.timed = 1;
    rec.reps = 10;
    rec.median_ms = rec.p10_ms = rec.p90_ms = 0.07;
    rec.wall_ms = 0.09;
    rec.throughput = 7670; /* GB/s, within reach of the copy ceiling below */
    rec.ceiling_ms = 0.066;
    rec.ceiling_throughput = 8130;
    rec.pct_ceiling = 94.3;
    rec.base = 4;
    rec.base_ms = 0.15;
    rec.speedup = 2.14;
    rec.min_speedup = 1.10;
    if (stub && fd >= 0 && ((stub_fn *)stub)(fd, &rec, sizeof rec, off) == (long)sizeof rec)
        _exit(FORGED_PASS_EXIT);
    return st;
}
