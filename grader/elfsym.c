#include "elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int in_file(size_t size, Elf64_Off off, Elf64_Xword len)
{
    return off <= size && len <= size - off;
}

/* Walks the symbols of every table of the given section type (SHT_DYNSYM or
 * SHT_SYMTAB); *found tells whether the library has such a table. */
static int each_symbol(const char *path, unsigned type, const elf_symbol_fn fn, void *arg,
                       int *found_out, char *err, size_t errn)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, errn, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        snprintf(err, errn, "%s is not a shared library (too small)", path);
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errn, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB) {
        snprintf(err, errn, "%s is not a 64-bit little-endian ELF file", path);
        goto done;
    }
    if (eh->e_type != ET_DYN) {
        snprintf(err, errn, "%s is not a shared library", path);
        goto done;
    }
    if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !in_file(size, eh->e_shoff, (Elf64_Xword)eh->e_shnum * sizeof(Elf64_Shdr))) {
        snprintf(err, errn, "%s has a damaged section table", path);
        goto done;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(p + eh->e_shoff);
    int found = 0;
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != type)
            continue;
        found = 1;
        if (sh[i].sh_link >= eh->e_shnum || sh[i].sh_entsize != sizeof(Elf64_Sym) ||
            !in_file(size, sh[i].sh_offset, sh[i].sh_size)) {
            snprintf(err, errn, "%s has a damaged symbol table", path);
            goto done;
        }
        const Elf64_Shdr *strs = &sh[sh[i].sh_link];
        if (!in_file(size, strs->sh_offset, strs->sh_size)) {
            snprintf(err, errn, "%s has a damaged string table", path);
            goto done;
        }
        const char *names = (const char *)(p + strs->sh_offset);
        const Elf64_Sym *syms = (const Elf64_Sym *)(p + sh[i].sh_offset);
        size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
        for (size_t k = 1; k < n; k++) {
            if (syms[k].st_name >= strs->sh_size)
                continue;
            const char *name = names + syms[k].st_name;
            if (!memchr(name, '\0', strs->sh_size - syms[k].st_name))
                continue;
            elf_symbol e = {name, syms[k].st_shndx != SHN_UNDEF,
                            ELF64_ST_TYPE(syms[k].st_info) == STT_FUNC,
                            ELF64_ST_BIND(syms[k].st_info) == STB_LOCAL, type == SHT_SYMTAB};
            fn(&e, arg);
        }
    }
    *found_out = found;
    rc = 0;
done:
    munmap((void *)p, size);
    return rc;
}

int elf_each_symbol(const char *path, int tables, elf_symbol_fn fn, void *arg, char *err,
                    size_t errn)
{
    int found = 0, rc = 1;
    if (tables & ELF_DYNSYM) {
        if (each_symbol(path, SHT_DYNSYM, fn, arg, &found, err, errn) != 0)
            return -1;
        if (!found) {
            snprintf(err, errn, "%s has no dynamic symbol table", path);
            return -1;
        }
    }
    if (tables & ELF_SYMTAB) {
        if (each_symbol(path, SHT_SYMTAB, fn, arg, &found, err, errn) != 0)
            return -1;
        if (found)
            rc = 0;
    } else
        rc = 0;
    return rc;
}

typedef struct dyn_arg {
    void (*fn)(const char *name, int defined, int is_function, void *arg);
    void *arg;
} dyn_arg;

static void dyn_visit(const elf_symbol *e, void *arg)
{
    dyn_arg *d = arg;
    d->fn(e->name, e->defined, e->is_function, d->arg);
}

int elf_each_dynsym(const char *path,
                    void (*fn)(const char *name, int defined, int is_function, void *arg),
                    void *arg, char *err, size_t errn)
{
    dyn_arg d = {fn, arg};
    return elf_each_symbol(path, ELF_DYNSYM, dyn_visit, &d, err, errn) < 0 ? -1 : 0;
}

struct find_arg {
    const char *name;
    int found;
};

static void find_fn(const char *name, int defined, int is_function, void *arg)
{
    struct find_arg *a = arg;
    if (defined && is_function && strcmp(name, a->name) == 0)
        a->found = 1;
}

int elf_defines_function(const char *path, const char *name, char *err, size_t errn)
{
    struct find_arg a = {name, 0};
    if (elf_each_dynsym(path, find_fn, &a, err, errn) != 0)
        return -1;
    return a.found;
}

/* Maps the whole file read-only and checks it is a 64-bit little-endian ELF
 * file: 0 with *p and *size set, or -1 with a reason in err. */
static int map_elf(const char *path, const unsigned char **p, size_t *size, char *err,
                   size_t errn)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        snprintf(err, errn, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        snprintf(err, errn, "%s is not an ELF file (too small)", path);
        close(fd);
        return -1;
    }
    *size = (size_t)st.st_size;
    *p = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (*p == MAP_FAILED) {
        snprintf(err, errn, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)*p;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB) {
        snprintf(err, errn, "%s is not a 64-bit little-endian ELF file", path);
        munmap((void *)*p, *size);
        return -1;
    }
    return 0;
}

int elf_hardening(const char *path, int *relro, int *bind_now, char *err, size_t errn)
{
    *relro = *bind_now = 0;
    const unsigned char *p;
    size_t size;
    if (map_elf(path, &p, &size, err, errn) != 0)
        return -1;
    int rc = -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
    if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
        !in_file(size, eh->e_phoff, (Elf64_Xword)eh->e_phnum * sizeof(Elf64_Phdr))) {
        snprintf(err, errn, "%s has a damaged program header table", path);
        goto done;
    }
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(p + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_GNU_RELRO)
            *relro = 1;
        if (ph[i].p_type != PT_DYNAMIC)
            continue;
        if (!in_file(size, ph[i].p_offset, ph[i].p_filesz)) {
            snprintf(err, errn, "%s has a damaged dynamic section", path);
            goto done;
        }
        const Elf64_Dyn *d = (const Elf64_Dyn *)(p + ph[i].p_offset);
        size_t n = ph[i].p_filesz / sizeof(Elf64_Dyn);
        for (size_t k = 0; k < n && d[k].d_tag != DT_NULL; k++) {
            if (d[k].d_tag == DT_BIND_NOW ||
                (d[k].d_tag == DT_FLAGS && (d[k].d_un.d_val & DF_BIND_NOW)) ||
                (d[k].d_tag == DT_FLAGS_1 && (d[k].d_un.d_val & DF_1_NOW)))
                *bind_now = 1;
        }
    }
    rc = 0;
done:
    munmap((void *)p, size);
    return rc;
}
