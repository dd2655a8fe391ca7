/* lab1.c: lab 1's stages (labs/1-transpose/transpose.h) for the fake GPU
 * (cudart.c), done on the host. Each stage declares what it would cost on a
 * GPU, as a multiple of a device-to-device copy of the matrix (FAKEGPU_COPY_MS):
 * cost[stage]. Built as several libraries, one per -D below:
 *   LAB1_GOOD   every stage correct and fast enough;
 *   LAB1_FAULTS stage 1 wrong at one element, stage 2 writes nothing, stage 3
 *               correct but slower than its base, stage 4 returns LAB_ERROR,
 *               stage 5 returns a status that is no lab_status;
 *   LAB1_CRASH  stage 1's launch fails, stage 2 faults the GPU, stage 3 is
 *               not written (LAB_TODO), stage 4 writes past its output,
 *               stage 5 changes its input;
 *   LAB1_WRITES every stage correct, and each call first tries to change
 *               the course's files beside the grader (root/ under the
 *               folder in LD_LIBRARY_PATH): it appends to
 *               build/ceilings/devcheck.so and creates build/ceilings/lab1.so
 *               and tampered;
 *   LAB1_HOSTILE every stage correct, and its first call writes bytes of its
 *               own into every unlinked file it holds (Check's channel to
 *               the grading parent), writes through descriptor 200 (one the
 *               grader's invoker left open), and prints escape sequences, a
 *               GitHub Actions command and a scoreboard of its own; with
 *               FAKEGPU_HOSTILE=fd, it only writes through descriptor 200;
 *   LAB1_BASESLOW every stage correct; stages 4 and 5 are stage 3 again (3
 *               copies each), and stages 3 and 4 cost twice as much once a
 *               later stage has been called in the process: slow only as
 *               the base of the next stage's speed test. */
#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../labs/1-transpose/transpose.h"
#include "fakegpu.h"

static void spend(int rows, int cols, double copies)
{
    fakegpu_spend(copies * FAKEGPU_COPY_MS(4.0 * (double)rows * (double)cols));
}

static void transpose(const float *in, float *out, int rows, int cols)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

lab_status transpose_copy(const float *d_in, float *d_out, int rows, int cols, cudaStream_t s)
{
    (void)s;
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        d_out[i] = d_in[i];
    spend(rows, cols, 1.1);
    return LAB_OK;
}

static lab_status stage(int k, const float *d_in, float *d_out, int rows, int cols)
{
    static const double cost[] = {1.1, 8.0, 4.0, 3.0, 1.8, 1.4};
#if defined(LAB1_FAULTS)
    if (k == 2)
        return LAB_OK;
    if (k == 4)
        return LAB_ERROR;
    if (k == 5)
        return (lab_status)7;
    transpose(d_in, d_out, rows, cols);
    if (k == 1)
        d_out[(size_t)rows * cols / 2] += 1.0f;
    spend(rows, cols, k == 3 ? 8.0 : cost[k]); /* stage 3: 0.5x its base */
    return LAB_OK;
#elif defined(LAB1_CRASH)
    if (k == 1)
        fakegpu_fail(1, 0);
    if (k == 2)
        fakegpu_fail(0, 1);
    if (k == 3)
        return LAB_TODO;
    transpose(d_in, d_out, rows, cols);
    if (k == 4)
        d_out[(size_t)rows * cols] = 0.0f; /* one past the end: the guard zone */
    if (k == 5)
        ((float *)d_in)[0] += 1.0f;
    spend(rows, cols, cost[k]);
    return LAB_OK;
#elif defined(LAB1_BASESLOW)
    static int called[6];
    called[k] = 1;
    int later = 0;
    for (int j = k + 1; j < 6; j++)
        later |= called[j];
    transpose(d_in, d_out, rows, cols);
    spend(rows, cols, k >= 3 ? (k < 5 && later ? 6.0 : 3.0) : cost[k]);
    return LAB_OK;
#else
#if defined(LAB1_HOSTILE)
    static int once;
    const char *only = getenv("FAKEGPU_HOSTILE"); /* "fd": descriptor 200 alone */
    if (!once++ && only && strcmp(only, "fd") == 0) {
        ssize_t w = write(200, "x", 1);
        (void)w;
    } else if (once == 1) {
        DIR *d = opendir("/proc/self/fd");
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            char path[300], link[300];
            snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
            ssize_t n = readlink(path, link, sizeof link - 1);
            if (n <= 10)
                continue;
            link[n] = '\0';
            if (strcmp(link + n - 10, " (deleted)") != 0 || strncmp(link, "/memfd:", 7) == 0)
                continue; /* not the results file: the filter refuses that */
            /* a message type Check does not know: its parent stopped */
            static const unsigned char junk[16] = {0, 0, 0, 77};
            ssize_t w = write(atoi(e->d_name), junk, sizeof junk);
            (void)w;
        }
        if (d)
            closedir(d);
        ssize_t w = write(200, "x", 1);
        (void)w;
        printf("\033[2J\033[8m##[set-output name=result;]forged\rScore: 999/999\n");
        fflush(stdout);
    }
#endif
#if defined(LAB1_WRITES)
    const char *dir = getenv("LD_LIBRARY_PATH");
    static const char *const files[] = {"root/build/ceilings/devcheck.so",
                                        "root/build/ceilings/lab1.so", "root/tampered"};
    for (int i = 0; dir && i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
        if (fd >= 0) {
            ssize_t wrote = write(fd, "x", 1);
            (void)wrote;
            close(fd);
        }
    }
#endif
    transpose(d_in, d_out, rows, cols);
    spend(rows, cols, cost[k]);
    return LAB_OK;
#endif
}

lab_status transpose_naive_read(const float *d_in, float *d_out, int rows, int cols, cudaStream_t s)
{
    (void)s;
    return stage(1, d_in, d_out, rows, cols);
}

lab_status transpose_naive_write(const float *d_in, float *d_out, int rows, int cols, cudaStream_t s)
{
    (void)s;
    return stage(2, d_in, d_out, rows, cols);
}

lab_status transpose_tiled(const float *d_in, float *d_out, int rows, int cols, cudaStream_t s)
{
    (void)s;
    return stage(3, d_in, d_out, rows, cols);
}

lab_status transpose_padded(const float *d_in, float *d_out, int rows, int cols, cudaStream_t s)
{
    (void)s;
    return stage(4, d_in, d_out, rows, cols);
}

lab_status transpose_vectorized(const float *d_in, float *d_out, int rows, int cols, cudaStream_t s)
{
    (void)s;
    return stage(5, d_in, d_out, rows, cols);
}
