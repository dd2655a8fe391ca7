/* launches.c: the launch recorder of `make arch-check`. Loads a lab library
 * (a solution, a skeleton or a test case) over the fake CUDA runtime
 * (fake_cudart.c, linked in as libcudart.so.N), pretends to be a GPU of the
 * architecture named, calls the stages named at a few sizes, and prints every
 * launch the stages make:
 *
 *   launches SM LAB LIBRARY PTXAS_LOG PTX SYMBOL...
 *   -> launch STAGE KERNEL GX GY GZ BX BY BZ DYNAMIC_SMEM OPTIN
 *      stage STAGE SYMBOL STATUS      (status: the lab_status it returned last)
 *
 * SM is 75 ... 120; LAB is the lab's number, which fixes the stages'
 * signature; the ptxas log and the PTX are those of the same source built for
 * that architecture (the kernels' registers and shared memory: occupancy
 * queries use them). The sizes are each lab's benchmark size and a few odd
 * ones, enough to take every branch that picks a different kernel or shape
 * (lab 4: aligned and not; lab 6: every layer of the grader's list). Device
 * pointers are made-up addresses: nothing runs. Exit 0, or 2 on bad usage. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../labs/conv_lab.h"
#include "archinfo.h"
#include "fake_cudart.h"

/* The labs' stage types, by value, as their headers declare them (the
 * headers themselves are C and could be included, but lab 2's and lab 3's
 * both name reduce_* functions; only the types are needed). */
typedef int (*transpose_call)(const float *, float *, int, int, void *);
typedef int (*reduce_call)(const float *, size_t, float *, float *, void *);
typedef int (*shuffle_reduce_call)(const float *, size_t, float *, void *, void *);
typedef int (*shuffle_scan_call)(const int *, size_t, int *, void *, void *);
typedef int (*shuffle_compact_call)(const int *, size_t, int *, int *, void *, void *);
typedef int (*gemm_call)(int, int, int, float, const float *, const float *, float, float *,
                         void *);
typedef struct job {
    size_t n;
    float a;
    int degree;
    const float *c;
    int chunks;
    const float *x, *y;
    float *out;
} job; /* streams_job */
typedef int (*streams_setup_call)(const job *, void **);
typedef int (*streams_run_call)(const job *, void *);
typedef void (*streams_teardown_call)(void *);
typedef struct shape {
    int N, C, H, W, K, R, S, stride, pad;
} shape; /* conv_shape */
typedef int (*conv_call)(shape, const float *, const float *, float *, void *, void *);
typedef int (*hopper_map_call)(void *, const unsigned short *, int, int, int);
typedef int (*hopper_call)(int, int, int, const unsigned short *, const unsigned short *, float *,
                           hopper_map_call, void *);

/* Lab 7's tensor-map maker, without a driver: a map of zeros (nothing here
 * runs a kernel). */
static int fake_tensor_map(void *map, const unsigned short *d, int rows, int K, int box_rows)
{
    (void)d, (void)rows, (void)K, (void)box_rows;
    memset(map, 0, 128);
    return 0;
}

#define DEV(a) ((void *)(((size_t)1 << 44) + (size_t)(a) * ((size_t)1 << 36)))

static void *fn_of(void *lib, const char *name)
{
    return dlsym(lib, name);
}

static int call_stage(void *lib, int lab, const char *sym)
{
    void *f = fn_of(lib, sym);
    if (!f && lab != 5)
        return -1;
    int st = 0;
    void *stream = NULL;
    switch (lab) {
    case 1: {
        static const int sz[][2] = {{8192, 8192}, {8192, 4096}, {1000, 1003}, {4097, 31}, {1, 1}};
        transpose_call t;
        memcpy(&t, &f, sizeof t);
        for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++)
            st = t(DEV(1), DEV(2), sz[i][0], sz[i][1], stream);
        break;
    }
    case 2: {
        static const size_t n[] = {(size_t)1 << 28, 1000003, 1000, 1};
        reduce_call r;
        memcpy(&r, &f, sizeof r);
        for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
            st = r(DEV(1), n[i], DEV(2), DEV(3), stream);
        break;
    }
    case 3: {
        static const size_t n[] = {(size_t)1 << 28, 1000003, 1000, 1};
        for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
            if (strncmp(sym, "reduce_", 7) == 0) {
                shuffle_reduce_call r;
                memcpy(&r, &f, sizeof r);
                st = r(DEV(1), n[i], DEV(2), DEV(3), stream);
            } else if (strncmp(sym, "compact_", 8) == 0) {
                shuffle_compact_call c;
                memcpy(&c, &f, sizeof c);
                st = c(DEV(1), n[i], DEV(2), DEV(4), DEV(3), stream);
            } else {
                shuffle_scan_call s;
                memcpy(&s, &f, sizeof s);
                st = s(DEV(1), n[i], DEV(2), DEV(3), stream);
            }
        }
        break;
    }
    case 4: {
        static const int mnk[][3] = {{4096, 4096, 4096}, {1000, 999, 17}, {1, 1, 1}};
        gemm_call g;
        memcpy(&g, &f, sizeof g);
        for (size_t i = 0; i < sizeof mnk / sizeof mnk[0]; i++)
            st = g(mnk[i][0], mnk[i][1], mnk[i][2], 1.0f, DEV(1), DEV(2), 0.5f, DEV(3), stream);
        break;
    }
    case 5: {
        /* <name>_run's setup and teardown: <name>_setup, <name>_teardown. */
        size_t len = strlen(sym) > 4 ? strlen(sym) - 4 : 0;
        char name[256];
        snprintf(name, sizeof name, "%.*s_setup", (int)len, sym);
        void *s = fn_of(lib, name);
        snprintf(name, sizeof name, "%.*s_teardown", (int)len, sym);
        void *t = fn_of(lib, name);
        if (!f || !s || !t)
            return -1;
        streams_setup_call setup;
        streams_run_call run;
        streams_teardown_call teardown;
        memcpy(&setup, &s, sizeof setup);
        memcpy(&run, &f, sizeof run);
        memcpy(&teardown, &t, sizeof teardown);
        static const size_t n[] = {((size_t)1 << 20) + 7, 1000, 1};
        static const int chunks[] = {8, 3, 5};
        static float coeff[65];
        for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
            float *x = calloc(n[i], sizeof *x), *y = calloc(n[i], sizeof *y),
                  *o = calloc(n[i], sizeof *o);
            job j = {n[i], 1.5f, 64, coeff, chunks[i], x, y, o};
            void *state = NULL;
            if (x && y && o && (st = setup(&j, &state)) == 0) {
                st = run(&j, state);
                teardown(state);
            }
            free(x), free(y), free(o);
        }
        break;
    }
    case 6: {
        conv_call c;
        memcpy(&c, &f, sizeof c);
        for (int i = 0; i < conv_n_layers; i++) {
            const conv_layer *l = &conv_layers[i].l;
            shape s = {l->N, l->C, l->H, l->W, l->K, l->R, l->S, l->stride, l->pad};
            st = c(s, DEV(1), DEV(2), DEV(3), DEV(4), stream);
        }
        break;
    }
    case 7: {
        static const int mnk[][3] = {{4096, 4096, 4096}, {1000, 1003, 520}, {1, 1, 8}};
        hopper_call h;
        memcpy(&h, &f, sizeof h);
        for (size_t i = 0; i < sizeof mnk / sizeof mnk[0]; i++)
            st = h(mnk[i][0], mnk[i][1], mnk[i][2], DEV(1), DEV(2), DEV(3), fake_tensor_map,
                   stream);
        break;
    }
    default:
        return -2;
    }
    return st;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s SM LAB LIBRARY PTXAS_LOG PTX SYMBOL...\n", argv[0]);
        return 2;
    }
    const arch_limits *a = arch_find(atoi(argv[1]));
    int lab = atoi(argv[2]);
    if (!a || lab < 1 || lab > 7) {
        fprintf(stderr, "%s: no architecture sm_%s or lab %s\n", argv[0], argv[1], argv[2]);
        return 2;
    }
    static kernel_res k[512];
    int n = kernel_res_read(argv[4], argv[5], k, 512);
    if (n < 0) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[4]);
        return 2;
    }
    fakert_configure(a, k, n, stdout);
    /* Lazily: a runtime call the fake does not define ends the run with the
     * dynamic linker's message naming it, not a failure to load. */
    void *lib = dlopen(argv[3], RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        printf("error cannot load %s: %s\n", argv[3], dlerror());
        return 1;
    }
    for (int s = 6; s < argc; s++) {
        fakert_stage(s - 6);
        fflush(stdout);
        int st = call_stage(lib, lab, argv[s]);
        printf("stage %d %s %s\n", s - 6, argv[s],
               st == 0 ? "LAB_OK" : st == 1 ? "LAB_TODO" : st == -1 ? "MISSING" : "LAB_ERROR");
    }
    fflush(stdout);
    return 0;
}
