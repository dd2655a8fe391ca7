/* For adversarial cases: a function of a library already loaded in the
 * grading child, found without the loader's help (no dlopen, dlsym,
 * dl_iterate_phdr or _r_debug, which the contract check refuses): the
 * library's first mapping is read from /proc/self/maps, and the name looked
 * up in the dynamic symbol table of its ELF image in memory. */
#pragma once
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void *maps_lookup(const char *file, const char *name)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[1024], path[768];
    uintptr_t base = 0;
    while (maps && !base && fgets(line, sizeof line, maps)) {
        unsigned long lo, offset;
        path[0] = '\0';
        if (sscanf(line, "%lx-%*x %*s %lx %*s %*s %767s", &lo, &offset, path) == 3 &&
            offset == 0 && strstr(path, file))
            base = lo;
    }
    if (maps)
        fclose(maps);
    if (!base)
        return NULL;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
    const ElfW(Sym) *syms = NULL;
    const char *strs = NULL;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_DYNAMIC)
            continue;
        for (const ElfW(Dyn) *d = (const ElfW(Dyn) *)(base + ph[i].p_vaddr); d->d_tag != DT_NULL;
             d++) {
            /* the loader has usually made these absolute; else they are offsets */
            uintptr_t at = d->d_un.d_ptr < base ? base + d->d_un.d_ptr : d->d_un.d_ptr;
            if (d->d_tag == DT_SYMTAB)
                syms = (const ElfW(Sym) *)at;
            if (d->d_tag == DT_STRTAB)
                strs = (const char *)at;
        }
    }
    if (!syms || !strs)
        return NULL;
    /* The string table follows the symbol table in the file. */
    for (const ElfW(Sym) *s = syms + 1; (const char *)s < strs; s++)
        if (s->st_shndx != SHN_UNDEF && strcmp(strs + s->st_name, name) == 0)
            return (void *)(base + s->st_value);
    return NULL;
}
