/* ceiling.c: finds and loads a ceiling library (see ceiling.h). */
#define _GNU_SOURCE
#include "ceiling.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: ask for an executable memory file */
#endif

/* ---- sealed copies of the libraries a grading child loads ---- */

#define SNAPSHOT_MAX 32
static struct {
    char path[PATH_MAX + 64]; /* the file it was copied from */
    char load[40];            /* /proc/self/fd/N: what a child opens instead; "" when
                               * the file was not there (not built) */
} snaps[SNAPSHOT_MAX];
static int n_snaps;

/* The entry for path, or NULL when none was made. */
static const char *snapshot_find(const char *path)
{
    for (int i = 0; i < n_snaps; i++)
        if (strcmp(snaps[i].path, path) == 0)
            return snaps[i].load;
    return NULL;
}

/* A memory file that may be mapped executable: MFD_EXEC where the kernel
 * knows it (where vm.memfd_noexec asks for it), else plain. Named after the
 * file's folder and name ("ceilings-lab7.so"), as /proc/self/maps shows it. */
static int exec_memfd(const char *path)
{
    char name[200], copy[PATH_MAX + 64];
    snprintf(copy, sizeof copy, "%s", path);
    char *slash = strrchr(copy, '/');
    if (slash && slash != copy) {
        *slash = '\0';
        const char *dir = strrchr(copy, '/');
        snprintf(name, sizeof name, "%.90s-%.90s", dir ? dir + 1 : copy, slash + 1);
    } else {
        snprintf(name, sizeof name, "%.180s", slash ? slash + 1 : copy);
    }
    int fd = memfd_create(name, MFD_ALLOW_SEALING | MFD_EXEC);
    if (fd < 0)
        fd = memfd_create(name, MFD_ALLOW_SEALING);
    return fd;
}

/* Copies in to fd whole; 0, or -1. */
static int copy_all(int in, int fd)
{
    char buf[1 << 16];
    for (;;) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got == 0)
            return 0;
        if (got < 0)
            return -1;
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(fd, buf + done, (size_t)(got - done));
            if (put <= 0)
                return -1;
            done += put;
        }
    }
}

const char *library_snapshot(const char *path)
{
    const char *have = snapshot_find(path);
    if ((have && have[0]) || n_snaps == SNAPSHOT_MAX)
        return have && have[0] ? have : path;
    if (have)
        return path; /* not there when the copies were made */
    int in = open(path, O_RDONLY | O_CLOEXEC);
    if (in < 0) { /* not built: remembered, so that no child loads what appears later */
        snprintf(snaps[n_snaps].path, sizeof snaps[n_snaps].path, "%s", path);
        snaps[n_snaps++].load[0] = '\0';
        return path;
    }
    int fd = exec_memfd(path); /* not close-on-exec: children and the tools read it */
    int ok = fd >= 0 && copy_all(in, fd) == 0 &&
             fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0;
    close(in);
    if (ok) { /* the loader must be able to map it executable */
        void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
        ok = p != MAP_FAILED;
        if (ok)
            munmap(p, 4096);
    }
    if (!ok) {
        if (fd >= 0)
            close(fd);
        return path;
    }
    snprintf(snaps[n_snaps].path, sizeof snaps[n_snaps].path, "%s", path);
    snprintf(snaps[n_snaps].load, sizeof snaps[n_snaps].load, "/proc/self/fd/%d", fd);
    return snaps[n_snaps++].load;
}

/* The grader's own folder, found once: in the parent, before any child runs
 * (a child that renamed the grader or its folder would move it for the
 * children after it). */
static char grader_dir[PATH_MAX];

/* build/ceilings/<name>.so beside the grader's executable, into path: its
 * sealed copy when the parent made one (ceiling_snapshot). 0; 1 when the file
 * was not there when the copies were made (not built: path is the file's);
 * -1 with err. */
static int ceiling_path(const char *name, char *path, size_t n, char *err, size_t errn)
{
    if (!grader_dir[0]) {
        char exe[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (len <= 0) {
            snprintf(err, errn, "cannot find the grader's own folder");
            return -1;
        }
        exe[len] = '\0';
        snprintf(grader_dir, sizeof grader_dir, "%s", dirname(exe));
    }
    snprintf(path, n, "%s/build/ceilings/%s.so", grader_dir, name);
    const char *copy = snapshot_find(path);
    if (copy && !copy[0])
        return 1;
    if (copy)
        snprintf(path, n, "%s", copy);
    return 0;
}

void ceiling_snapshot(int lab)
{
    char name[3][32], path[PATH_MAX + 64], err[64];
    snprintf(name[0], sizeof name[0], "devcheck");
    snprintf(name[1], sizeof name[1], "lab%d", lab);
    snprintf(name[2], sizeof name[2], "lab%d-given", lab);
    for (int i = 0; i < 3; i++)
        if (ceiling_path(name[i], path, sizeof path, err, sizeof err) >= 0)
            library_snapshot(path);
}

int ceiling_preload(int lab, char *err, size_t errn)
{
    char name[32], path[PATH_MAX + 64];
    snprintf(name, sizeof name, "lab%d", lab);
    const char *names[] = {"devcheck", name};
    for (int i = 0; i < 2; i++) {
        int r = ceiling_path(names[i], path, sizeof path, err, errn);
        if (r < 0)
            return -1;
        if (i == 1 && (r == 1 || access(path, F_OK) != 0))
            continue; /* a lab without a ceiling library (lab 1) */
        if (r == 1) { /* devcheck, not built when the copies were made */
            snprintf(err, errn, "%s is not built: run make again to build it", path);
            return -1;
        }
        if (!dlopen(path, RTLD_LAZY | RTLD_LOCAL)) { /* kept open: later loads find it */
            snprintf(err, errn, "cannot load %s (%s): run make again to build it", path,
                     dlerror());
            return -1;
        }
    }
    return 0;
}

int ceiling_load(const char *name, const char *const *symbols, void **fns, int n, char *err,
                 size_t errn)
{
    char path[PATH_MAX + 64];
    int r = ceiling_path(name, path, sizeof path, err, errn);
    if (r < 0)
        return -1;
    void *lib = r == 0 ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (r == 1) {
        snprintf(err, errn, "%s is not built: run make again to build it", path);
        return -1;
    }
    if (!lib) {
        snprintf(err, errn, "cannot load %s (%s): run make again to build it", path, dlerror());
        return -1;
    }
    for (int i = 0; i < n; i++) {
        fns[i] = dlsym(lib, symbols[i]);
        if (!fns[i]) {
            snprintf(err, errn, "%s has no function %s: run make again", path, symbols[i]);
            return -1;
        }
    }
    return 0;
}

/* Where lab `lab`'s given stages are built, beside the ceilings. */
static int given_path(int lab, char *path, size_t n, char *err, size_t errn)
{
    char name[32];
    snprintf(name, sizeof name, "lab%d-given", lab);
    return ceiling_path(name, path, n, err, errn);
}

void *given_open(int lab, char *err, size_t errn)
{
    char path[PATH_MAX + 64];
    *err = '\0';
    int r = given_path(lab, path, sizeof path, err, errn);
    if (r < 0)
        return NULL;
    if (r == 1 || access(path, F_OK) != 0) {
        snprintf(err, errn, "%s, the course's copy of lab %d's given stages, is not built: run "
                            "make lab%d", path, lab, lab);
        return NULL;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        snprintf(err, errn, "cannot load the given stages' library %s (%s): run make again to "
                            "build it", path, dlerror());
    return lib;
}

int given_built(int lab)
{
    char path[PATH_MAX + 64], err[64];
    return given_path(lab, path, sizeof path, err, sizeof err) == 0 && access(path, R_OK) == 0;
}
