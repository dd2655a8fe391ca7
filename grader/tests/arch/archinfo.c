/* archinfo.c: see archinfo.h. */
#define _GNU_SOURCE
#include "archinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* From the CUDA Programming Guide, "Compute Capabilities", table "Technical
 * Specifications per Compute Capability"
 * (https://docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/compute-capabilities.html):
 * resident threads and blocks per SM, shared memory per SM and per block
 * (the per-block figure needs cudaFuncSetAttribute above 48 KB), and the
 * 1 KB per block the system reserves from 8.0 on ("The 1 KB of shared memory
 * not made available to a thread block is reserved for system use"). Every
 * capability here has 64 K registers per SM and per block, at most 255 per
 * thread and 1024 threads per block (archinfo.h). The SM counts are those of
 * the example GPUs (T4, A100, RTX 3090, L4, H100 SXM, B200, RTX 5090): they
 * only size grids, never decide a verdict. */
const arch_limits arch_table[] = {
    {75, 7, 5, "T4", 40, 1024, 16, 64 * 1024, 64 * 1024, 0},
    {80, 8, 0, "A100", 108, 2048, 32, 164 * 1024, 163 * 1024, 1024},
    {86, 8, 6, "RTX 3090", 82, 1536, 16, 100 * 1024, 99 * 1024, 1024},
    {89, 8, 9, "L4", 58, 1536, 24, 100 * 1024, 99 * 1024, 1024},
    {90, 9, 0, "H100", 132, 2048, 32, 228 * 1024, 227 * 1024, 1024},
    {100, 10, 0, "B200", 148, 2048, 32, 228 * 1024, 227 * 1024, 1024},
    {120, 12, 0, "RTX 5090", 170, 1536, 32, 100 * 1024, 99 * 1024, 1024},
};
const int arch_count = (int)(sizeof arch_table / sizeof arch_table[0]);

const arch_limits *arch_find(int sm)
{
    for (int i = 0; i < arch_count; i++)
        if (arch_table[i].sm == sm)
            return &arch_table[i];
    return NULL;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *s = malloc(cap);
    size_t got;
    while (s && (got = fread(s + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len < 2) {
            char *t = realloc(s, cap * 2);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (s)
        s[len] = '\0';
    return s;
}

static int find_or_add(kernel_res *k, int *n, int max, const char *name, size_t len)
{
    if (len >= sizeof k[0].name)
        len = sizeof k[0].name - 1;
    for (int i = 0; i < *n; i++)
        if (strlen(k[i].name) == len && strncmp(k[i].name, name, len) == 0)
            return i;
    if (*n >= max)
        return -1;
    memset(&k[*n], 0, sizeof k[*n]);
    memcpy(k[*n].name, name, len);
    return (*n)++;
}

/* The launch bounds of every .entry in the PTX: .maxntid / .reqntid X, Y, Z
 * and .minnctapersm N, between the parameter list and the body's '{'. */
static void read_bounds(const char *ptx, kernel_res *k, int *n, int max)
{
    const char *p = ptx;
    while ((p = strstr(p, ".entry ")) != NULL) {
        p += 7;
        size_t len = strcspn(p, "( \t\n");
        int i = find_or_add(k, n, max, p, len);
        const char *body = strstr(p, "\n{");
        if (!body)
            break;
        for (const char *d = p; i >= 0 && d < body; d++) {
            if (*d != '.')
                continue;
            int x = 1, y = 1, z = 1;
            if ((sscanf(d, ".maxntid %d, %d, %d", &x, &y, &z) >= 1 ||
                 sscanf(d, ".reqntid %d, %d, %d", &x, &y, &z) >= 1))
                k[i].maxntid = x * y * z;
            else if (sscanf(d, ".minnctapersm %d", &x) == 1)
                k[i].minblocks = x;
        }
        p = body;
    }
}

int kernel_res_read(const char *ptxas_log, const char *ptx, kernel_res *k, int max)
{
    char *log = read_all(ptxas_log);
    if (!log)
        return -1;
    int n = 0, cur = -1;
    for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
        const char *q;
        if ((q = strstr(line, "Compiling entry function '")) != NULL) {
            q += strlen("Compiling entry function '");
            cur = find_or_add(k, &n, max, q, strcspn(q, "'"));
        } else if ((q = strstr(line, "Function properties for ")) != NULL) {
            q += strlen("Function properties for ");
            size_t len = strcspn(q, " \t");
            /* Only the entry's own properties (a called function gets its own). */
            int own = cur >= 0 && strlen(k[cur].name) == len && strncmp(k[cur].name, q, len) == 0;
            char *next = strtok(NULL, "\n");
            if (own && next)
                sscanf(next, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads",
                       &k[cur].stack, &k[cur].spill_stores, &k[cur].spill_loads);
        } else if (cur >= 0 && (q = strstr(line, "Used ")) != NULL) {
            sscanf(q, "Used %d registers", &k[cur].regs);
            const char *s = strstr(q, " bytes smem");
            if (s) {
                while (s > q && s[-1] >= '0' && s[-1] <= '9')
                    s--;
                k[cur].smem = atoi(s);
            }
        }
    }
    free(log);
    if (ptx) {
        char *text = read_all(ptx);
        if (text) {
            read_bounds(text, k, &n, max);
            free(text);
        }
    }
    return n;
}

const kernel_res *kernel_res_find(const kernel_res *k, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    return NULL;
}

long long arch_block_regs(int regs, int threads)
{
    long long warps = (threads + 31) / 32;
    long long per_warp = ((long long)regs * 32 + 255) / 256 * 256;
    return warps * per_warp;
}

static size_t block_smem(const arch_limits *a, const kernel_res *k, size_t dyn)
{
    return (size_t)k->smem + dyn + (size_t)a->smem_reserved;
}

int arch_occupancy(const arch_limits *a, const kernel_res *k, int threads, size_t dyn_smem)
{
    if (threads <= 0)
        return 0;
    int warps = (threads + 31) / 32;
    int by_threads = a->threads_per_sm / 32 / warps;
    int blocks = by_threads < a->blocks_per_sm ? by_threads : a->blocks_per_sm;
    long long regs = arch_block_regs(k->regs, threads);
    if (regs > 0 && ARCH_REGS_PER_SM / regs < blocks)
        blocks = (int)(ARCH_REGS_PER_SM / regs);
    size_t smem = block_smem(a, k, dyn_smem);
    if (smem > 0 && (size_t)a->smem_per_sm / smem < (size_t)blocks)
        blocks = (int)((size_t)a->smem_per_sm / smem);
    return blocks;
}

int arch_check_launch(const arch_limits *a, const kernel_res *k, const arch_launch *l, char *why,
                      size_t whyn)
{
    long long threads = (long long)l->block[0] * l->block[1] * l->block[2];
    long long regs = arch_block_regs(k->regs, (int)threads);
    size_t smem = (size_t)k->smem + l->dyn_smem;
    size_t allowed = l->optin >= 0 && (size_t)l->optin > ARCH_SMEM_STATIC - (size_t)k->smem
                         ? (size_t)l->optin
                         : ARCH_SMEM_STATIC - (size_t)k->smem;
    if (threads < 1 || threads > ARCH_THREADS_PER_BLOCK || l->block[2] > 64)
        snprintf(why, whyn, "%lld threads per block (%ux%ux%u): at most %d (z at most 64)",
                 threads, l->block[0], l->block[1], l->block[2], ARCH_THREADS_PER_BLOCK);
    else if (l->grid[1] > ARCH_GRID_YZ || l->grid[2] > ARCH_GRID_YZ || l->grid[0] < 1)
        snprintf(why, whyn, "grid %ux%ux%u: y and z at most %d", l->grid[0], l->grid[1],
                 l->grid[2], ARCH_GRID_YZ);
    else if (k->maxntid > 0 && threads > k->maxntid)
        snprintf(why, whyn, "%lld threads per block, over the kernel's __launch_bounds__(%d)",
                 threads, k->maxntid);
    else if (regs > ARCH_REGS_PER_BLOCK)
        snprintf(why, whyn,
                 "%d registers x %lld threads = %lld registers per block (allocated per warp): "
                 "over the %d of an SM",
                 k->regs, threads, regs, ARCH_REGS_PER_BLOCK);
    else if (smem > (size_t)a->smem_per_block)
        snprintf(why, whyn,
                 "%zu bytes of shared memory per block (%d static + %zu dynamic): sm_%d allows "
                 "%d",
                 smem, k->smem, l->dyn_smem, a->sm, a->smem_per_block);
    else if (block_smem(a, k, l->dyn_smem) > (size_t)a->smem_per_sm)
        snprintf(why, whyn,
                 "%zu bytes of shared memory per block with the %d reserved: over the %d of an "
                 "sm_%d SM",
                 block_smem(a, k, l->dyn_smem), a->smem_reserved, a->smem_per_sm, a->sm);
    else if (l->dyn_smem > allowed)
        snprintf(why, whyn,
                 "%zu bytes of dynamic shared memory, over the %zu allowed without "
                 "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)",
                 l->dyn_smem, allowed);
    else
        return 0;
    return -1;
}
