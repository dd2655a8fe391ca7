#define _GNU_SOURCE
#include "results.h"

#include <errno.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
    int fd = memfd_create("cuda-labs-results", MFD_CLOEXEC);
    if (fd >= 0 && ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        fd = -1;
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

size_t results_region_size(void)
{
    return region ? region_bytes : 0;
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
            const char *from = (const char *)&own_copy;
            size_t left = sizeof own_copy;
            while (left > 0) { /* a memory file takes it at once; a loop costs nothing */
                ssize_t w = pwrite(region_fd, from, left, at);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0) { /* the parent would see a test that never started */
                    fprintf(stderr, "grade: cannot write this test's record (descriptor %d, "
                                    "offset %lld): %s\n",
                            region_fd, (long long)at, w < 0 ? strerror(errno) : "nothing written");
                    break;
                }
                from += w;
                at += w;
                left -= (size_t)w;
            }
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

void results_merge_names(char *list, size_t n, const char *names)
{
    for (const char *name = names; *name;) {
        const char *comma = strchr(name, ',');
        size_t len = comma ? (size_t)(comma - name) : strlen(name);
        char one[256];
        snprintf(one, sizeof one, "%.*s", (int)len, name);
        len = strlen(one);
        int known = 0;
        for (const char *p = list; len && !known && (p = strstr(p, one)) != NULL; p++)
            known = (p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0');
        size_t have = strlen(list);
        if (len && !known && have + len + 2 <= n)
            snprintf(list + have, n - have, "%s%s", have ? "," : "", one);
        name = comma ? comma + 1 : name + strlen(name);
    }
}
