/* Adversarial case (lab 4): stage 7 finds cuBLAS without dlopen or dlsym and
 * without linking it: the grading child has loaded libcublas for the
 * ceiling, so dl_iterate_phdr walks the loaded libraries to it and the
 * stage looks cublasSgemm_v2 up in its dynamic symbol table by hand.
 * Rejected by the contract check: a lab library may not walk the loaded
 * libraries.
 * lab: 4
 * needs-gpu: no
 * expect-exit: 1
 * expect-output: REJECTED: it calls dl_iterate_phdr()
 */
#include <elf.h>
#include <link.h>
#include <string.h>

#define gemm_warp_tile gemm_warp_tile_reference
#include "../../../solutions/4-gemm/gemm.cu"
#undef gemm_warp_tile

typedef int (*create_fn)(void **);
typedef int (*set_stream_fn)(void *, cudaStream_t);
typedef int (*sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
                        const float *, int, const float *, float *, int);

struct wanted {
    const char *name;
    void *found;
};

/* The symbol's address, read from the object's own dynamic table. */
static void *lookup(const struct dl_phdr_info *info, const char *name)
{
    const ElfW(Sym) *syms = NULL;
    const char *strs = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *d = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        for (; d->d_tag != DT_NULL; d++) {
            if (d->d_tag == DT_SYMTAB)
                syms = (const ElfW(Sym) *)d->d_un.d_ptr;
            if (d->d_tag == DT_STRTAB)
                strs = (const char *)d->d_un.d_ptr;
        }
    }
    if (!syms || !strs)
        return NULL;
    /* The string table follows the symbol table in the file. */
    for (const ElfW(Sym) *s = syms + 1; (const char *)s < strs; s++)
        if (s->st_shndx != SHN_UNDEF && strcmp(strs + s->st_name, name) == 0)
            return (void *)(info->dlpi_addr + s->st_value);
    return NULL;
}

static int visit(struct dl_phdr_info *info, size_t, void *arg)
{
    struct wanted *w = (struct wanted *)arg;
    if (!strstr(info->dlpi_name, "libcublas.so"))
        return 0;
    w->found = lookup(info, w->name);
    return w->found != NULL;
}

static void *find(const char *name)
{
    struct wanted w = {name, NULL};
    dl_iterate_phdr(visit, &w);
    return w.found;
}

extern "C" lab_status gemm_warp_tile(int M, int N, int K, float alpha, const float *d_A,
                                     const float *d_B, float beta, float *d_C, cudaStream_t stream)
{
    static void *handle;
    create_fn create = (create_fn)find("cublasCreate_v2");
    set_stream_fn set_stream = (set_stream_fn)find("cublasSetStream_v2");
    sgemm_fn sgemm = (sgemm_fn)find("cublasSgemm_v2");
    if (!create || !set_stream || !sgemm || (!handle && create(&handle) != 0))
        return gemm_warp_tile_reference(M, N, K, alpha, d_A, d_B, beta, d_C, stream);
    set_stream(handle, stream);
    return sgemm(handle, 0, 0, N, M, K, &alpha, d_B, N, d_A, K, &beta, d_C, N) == 0 ? LAB_OK
                                                                                   : LAB_ERROR;
}
