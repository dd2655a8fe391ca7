/* ceiling.c: finds and loads a ceiling library (see ceiling.h). */
#define _GNU_SOURCE
#include "ceiling.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int load_failed;

int ceiling_failed(void)
{
    return load_failed;
}

int ceiling_load(const char *name, const char *const *symbols, void **fns, int n, char *err,
                 size_t errn)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        snprintf(err, errn, "cannot find the grader's own folder");
        load_failed = 1;
        return -1;
    }
    exe[len] = '\0';
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/build/ceilings/%s.so", dirname(exe), name);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(err, errn, "cannot load %s (%s): run make again to build it", path, dlerror());
        load_failed = 1;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        fns[i] = dlsym(lib, symbols[i]);
        if (!fns[i]) {
            snprintf(err, errn, "%s has no function %s: run make again", path, symbols[i]);
            load_failed = 1;
            return -1;
        }
    }
    return 0;
}
