/* elfsym.h: reads the symbol tables of a shared library without loading it. The grader's parent process must never load a lab library (its static
 * constructors register CUDA code), yet it must say "your library has no
 * function transpose_tiled" before grading. */
#ifndef CUDA_LABS_ELFSYM_H
#define CUDA_LABS_ELFSYM_H

#include <stddef.h>

/* Calls fn(name, defined, is_function, arg) for every dynamic symbol.
 * Returns 0, or -1 with a reason in err (not a file, not a 64-bit ELF shared
 * object, truncated). */
int elf_each_dynsym(const char *path,
                    void (*fn)(const char *name, int defined, int is_function, void *arg),
                    void *arg, char *err, size_t errn);

/* One symbol of a table: its name, whether the library defines it (or only
 * uses it), whether it is a function, whether it is local to the library
 * (static, or a kernel stub of CUDA 13), and which table it came from. */
typedef struct elf_symbol {
    const char *name;
    int defined, is_function, is_local, from_symtab;
} elf_symbol;
typedef void (*elf_symbol_fn)(const elf_symbol *sym, void *arg);

/* Which tables elf_each_symbol reads: the dynamic one (what the library
 * exports and imports), the full one (every function, local ones too; a
 * stripped library has none), or both. */
enum { ELF_DYNSYM = 1, ELF_SYMTAB = 2 };

/* Calls fn for every symbol of the tables asked for. Returns 0; 1 when
 * ELF_SYMTAB was asked for and the library has no .symtab (stripped; the
 * dynamic table was still read when asked for); -1 with a reason in err as
 * elf_each_dynsym. */
int elf_each_symbol(const char *path, int tables, elf_symbol_fn fn, void *arg, char *err,
                    size_t errn);

/* 1 when path defines a function with this name, 0 when not, -1 on error. */
int elf_defines_function(const char *path, const char *name, char *err, size_t errn);

/* How an executable or shared object was linked: *relro = 1 when it has a
 * PT_GNU_RELRO segment, *bind_now = 1 when its dynamic section asks for every
 * symbol to be bound at load (DT_BIND_NOW, DF_BIND_NOW in DT_FLAGS or DF_1_NOW
 * in DT_FLAGS_1). Both together are "full RELRO": the GOT is read-only before
 * main runs. 0, or -1 with a reason in err. */
int elf_hardening(const char *path, int *relro, int *bind_now, char *err, size_t errn);

#endif
