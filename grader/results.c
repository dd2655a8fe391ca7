#define _GNU_SOURCE
#include "results.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void *region;
static size_t region_bytes;
static int region_fd = -1; /* the memory file behind the page; -1: anonymous */

/* In a grading child: the page is read-only for good, and the grader's
 * writes go to a private copy of the test's own record, written through the
 * descriptor by results_close(). */
static int child_mode;
static test_record *own_shared;
static test_record own_copy;

/* The one place a grading child writes the results file from: pwrite64
 * through its own syscall instruction, whose return address the sandbox
 * knows, so that the filter lets the results file's descriptor be written
 * from there and from nowhere else (sandbox.h). Returns what the system call
 * returns (-errno on failure). Elsewhere: pwrite, and no address. */
#if defined(__x86_64__)
long results_pwrite_stub(long fd, const void *buf, long count, long offset);
extern const char results_pwrite_return[];
__asm__(".text\n"
        ".globl results_pwrite_stub\n"
        ".hidden results_pwrite_stub\n"
        ".type results_pwrite_stub, @function\n"
        "results_pwrite_stub:\n"
        "    endbr64\n"
        "    mov %rcx, %r10\n"
        "    mov $18, %eax\n" /* SYS_pwrite64 */
        "    syscall\n"
        ".globl results_pwrite_return\n"
        ".hidden results_pwrite_return\n"
        "results_pwrite_return:\n"
        "    ret\n"
        ".size results_pwrite_stub, . - results_pwrite_stub\n");

static long write_record(int fd, const void *buf, size_t count, off_t at)
{
    return results_pwrite_stub(fd, buf, (long)count, (long)at);
}

static uintptr_t write_record_address(void)
{
    return (uintptr_t)results_pwrite_return;
}
#else
static long write_record(int fd, const void *buf, size_t count, off_t at)
{
    ssize_t w = pwrite(fd, buf, count, at);
    return w < 0 ? -errno : w;
}

static uintptr_t write_record_address(void)
{
    return 0;
}
#endif

void results_set_region(void *p, size_t bytes)
{
    region = p;
    region_bytes = bytes;
}

lab_results *results_map(int n)
{
    size_t bytes = sizeof(lab_results) * (size_t)(n > 0 ? n : 1);
    /* A memory file, so that a child can write its record without ever
     * making the mapping writable again (results_close). Where memfd_create
     * is missing, an anonymous page, written with mprotect as before. */
    int fd = memfd_create("cuda-labs-results", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd >= 0 && ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        fd = -1;
    }
    /* Its size fixed for good, and no permission for anyone but root to open
     * it again through /proc/self/fd (which would give a child a second,
     * writable descriptor the sandbox does not know). The descriptor and the
     * mapping made here keep their access. */
    if (fd >= 0) {
        (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
        (void)fchmod(fd, 0);
    }
    void *p = fd >= 0 ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                      : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    region_fd = fd;
    memset(p, 0, bytes);
    lab_results *r = p;
    for (int i = 0; i < n; i++) {
        r[i].magic = RESULTS_MAGIC;
        for (int s = 0; s < LAB_MAX_STAGES; s++)
            for (int k = 0; k < TEST_KINDS; k++) {
                r[i].t[s][k].size = -1;
                r[i].t[s][k].base = -1;
            }
    }
    results_set_region(p, bytes);
    return r;
}

void results_unmap(lab_results *r, int n)
{
    if (r)
        munmap(r, sizeof(lab_results) * (size_t)(n > 0 ? n : 1));
    if (r == region && region_fd >= 0) {
        close(region_fd);
        region_fd = -1;
    }
}

void results_enter_child(void)
{
    if (region)
        mprotect(region, region_bytes, PROT_READ);
    child_mode = region_fd >= 0;
}

test_record *results_own(test_record *shared)
{
    if (!child_mode)
        return shared;
    own_shared = shared;
    own_copy = *shared;
    return &own_copy;
}

void results_mark(unsigned char *byte)
{
    if (!region || byte < (unsigned char *)region ||
        byte >= (unsigned char *)region + region_bytes)
        return;
    if (child_mode) {
        const unsigned char one = 1;
        long w;
        do
            w = write_record(region_fd, &one, 1, (long)(byte - (unsigned char *)region));
        while (w == -EINTR);
        return;
    }
    mprotect(region, region_bytes, PROT_READ | PROT_WRITE);
    *byte = 1;
    mprotect(region, region_bytes, PROT_READ);
}

size_t results_region_size(void)
{
    return region ? region_bytes : 0;
}

int results_writer(int *fd, uintptr_t *ip, uint64_t *offset, uint64_t *bytes)
{
    if (!child_mode || !own_shared || write_record_address() == 0)
        return -1;
    *fd = region_fd;
    *ip = write_record_address();
    *offset = (uint64_t)((char *)own_shared - (char *)region);
    *bytes = sizeof own_copy;
    return 0;
}

int results_sealed_region(void **p, size_t *bytes)
{
    if (!child_mode)
        return -1;
    *p = region;
    *bytes = region_bytes;
    return 0;
}

void results_open(void)
{
    if (region && !child_mode)
        mprotect(region, region_bytes, PROT_READ | PROT_WRITE);
}

void results_close(void)
{
    if (child_mode) {
        if (own_shared) {
            off_t at = (off_t)((char *)own_shared - (char *)region);
            /* One write of the whole record, at its own offset: the only
             * write the sandbox lets through (results_writer). */
            long w;
            do
                w = write_record(region_fd, &own_copy, sizeof own_copy, at);
            while (w == -EINTR);
            if (w != (long)sizeof own_copy) /* the parent would see a test that never started */
                fprintf(stderr, "grade: cannot write this test's record (descriptor %d, "
                                "offset %lld): %s\n",
                        region_fd, (long long)at, w < 0 ? strerror((int)-w) : "a short write");
        }
        return;
    }
    if (region)
        mprotect(region, region_bytes, PROT_READ);
}

int results_max_points(const lab_spec *spec, int stage, int kind)
{
    const lab_stage *s = &spec->stages[stage];
    return kind == TEST_CORRECT ? s->points_correct : s->points_speed;
}

int results_test_max(const lab_spec *spec, int stage, int kind, const test_record *t)
{
    return verdict_neutral(t->v) ? 0 : results_max_points(spec, stage, kind);
}

int results_points(const lab_spec *spec, int stage, int kind, const test_record *t)
{
    return t->graded && t->v == V_PASS ? results_max_points(spec, stage, kind) : 0;
}

int results_names_has(const char *list, const char *name, size_t len)
{
    for (const char *p = list; len && (p = strstr(p, name)) != NULL; p++)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return 1;
    return 0;
}

int results_merge_names(char *list, size_t n, const char *names)
{
    int dropped = 0;
    for (const char *name = names; *name;) {
        const char *comma = strchr(name, ',');
        size_t len = comma ? (size_t)(comma - name) : strlen(name);
        char one[512];
        if (len >= sizeof one) { /* no kernel name is this long: not one to keep */
            dropped++;
            name = comma ? comma + 1 : name + len;
            continue;
        }
        snprintf(one, sizeof one, "%.*s", (int)len, name);
        int known = results_names_has(list, one, len);
        size_t have = strlen(list);
        if (len && !known && have + len + 2 <= n)
            snprintf(list + have, n - have, "%s%s", have ? "," : "", one);
        else if (len && !known)
            dropped++;
        name = comma ? comma + 1 : name + strlen(name);
    }
    return dropped;
}
