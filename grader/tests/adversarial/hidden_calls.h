/* hidden_calls.h: helpers for the tampering cases (issue 20, class 2). They
 * reach libc's syscall() and the grader's own ELF image the way a determined
 * submission would, with nothing a check of the library's symbols or of its
 * machine code can see: no dlsym, dl_iterate_phdr, syscall, mprotect or kill
 * import, and no syscall instruction in the library's code. Each image is
 * found by walking back from an address inside it to its ELF header, and
 * read through its dynamic section. Only the kernel's seccomp filter in the
 * grading child (grader/sandbox.c) can stop what they do next. */
#ifndef CUDA_LABS_HIDDEN_CALLS_H
#define CUDA_LABS_HIDDEN_CALLS_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef long (*hidden_syscall_fn)(long nr, ...);

typedef struct hidden_image {
    uintptr_t base;
    const Elf64_Sym *sym;
    const char *str;
    size_t n_sym;
    const Elf64_Rela *rela[2];
    size_t n_rela[2];
} hidden_image;

/* The ELF header of the object that holds address p: the segments of an
 * object are mapped next to each other, its header at the lowest one. */
static inline uintptr_t hidden_elf_start(const void *p)
{
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;
    for (int i = 0; i < (1 << 16); i++, a -= 4096)
        if (memcmp((const void *)a, ELFMAG, SELFMAG) == 0)
            return a;
    return 0;
}

static inline uintptr_t hidden_abs(uintptr_t base, uintptr_t v)
{
    return v < base ? base + v : v; /* the loader adjusted most entries already */
}

static inline int hidden_open(const void *inside, hidden_image *im)
{
    memset(im, 0, sizeof *im);
    im->base = hidden_elf_start(inside);
    if (!im->base)
        return -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->base;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(im->base + eh->e_phoff);
    uintptr_t bias = eh->e_type == ET_DYN ? im->base : 0;
    const Elf64_Dyn *d = NULL;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC)
            d = (const Elf64_Dyn *)(bias + ph[i].p_vaddr);
    if (!d)
        return -1;
    for (; d->d_tag != DT_NULL; d++) {
        uintptr_t v = (uintptr_t)d->d_un.d_ptr;
        switch (d->d_tag) {
        case DT_SYMTAB: im->sym = (const Elf64_Sym *)hidden_abs(bias, v); break;
        case DT_STRTAB: im->str = (const char *)hidden_abs(bias, v); break;
        case DT_JMPREL: im->rela[0] = (const Elf64_Rela *)hidden_abs(bias, v); break;
        case DT_PLTRELSZ: im->n_rela[0] = v / sizeof(Elf64_Rela); break;
        case DT_RELA: im->rela[1] = (const Elf64_Rela *)hidden_abs(bias, v); break;
        case DT_RELASZ: im->n_rela[1] = v / sizeof(Elf64_Rela); break;
        }
    }
    im->base = bias;
    if (!im->sym || !im->str || (const char *)im->sym >= im->str)
        return -1;
    im->n_sym = (size_t)(im->str - (const char *)im->sym) / sizeof(Elf64_Sym);
    return 0;
}

/* The address of a function the object defines, or NULL. */
static inline void *hidden_symbol(const hidden_image *im, const char *name)
{
    for (size_t i = 1; i < im->n_sym; i++)
        if (im->sym[i].st_shndx != SHN_UNDEF && strcmp(im->str + im->sym[i].st_name, name) == 0)
            return (void *)(im->base + im->sym[i].st_value);
    return NULL;
}

/* The GOT slot through which the object calls name, or NULL. */
static inline void **hidden_got_slot(const hidden_image *im, const char *name)
{
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; im->rela[t] && i < im->n_rela[t]; i++) {
            size_t s = ELF64_R_SYM(im->rela[t][i].r_info);
            if (s && s < im->n_sym && strcmp(im->str + im->sym[s].st_name, name) == 0)
                return (void **)(im->base + im->rela[t][i].r_offset);
        }
    return NULL;
}

/* libc's syscall(), found from fclose, which every C library defines. */
static inline hidden_syscall_fn hidden_syscall(void)
{
    hidden_image libc;
    if (hidden_open((const void *)&fclose, &libc) != 0)
        return NULL;
    return (hidden_syscall_fn)hidden_symbol(&libc, "syscall");
}

/* An inline system call, written at run time into an executable page: the
 * library's own code holds no syscall instruction. x86-64 only. */
static inline hidden_syscall_fn hidden_trampoline(void)
{
#if defined(__x86_64__)
    /* mov rax,rdi; mov rdi,rsi; mov rsi,rdx; mov rdx,rcx; mov r10,r8;
     * mov r8,r9; syscall (0x0f 0x05, stored minus one); ret */
    static const unsigned char code[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89, 0xd6,
                                         0x48, 0x89, 0xca, 0x4d, 0x89, 0xc2, 0x4d, 0x89, 0xc8,
                                         0x0e, 0x04, 0xc3};
    unsigned char *page = (unsigned char *)mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return NULL;
    memcpy(page, code, sizeof code);
    page[18] += 1;
    page[19] += 1;
    return (hidden_syscall_fn)(void *)page;
#else
    return hidden_syscall();
#endif
}

#endif
