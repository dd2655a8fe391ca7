#define _GNU_SOURCE
#include "proc.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int proc_spawn(char *const argv[], const char *const env[], int *pid)
{
    int fd[2];
    /* Close-on-exec: a program another thread starts meanwhile must not keep
     * this pipe open (dup2 clears the flag on the child's stdout and stderr). */
    if (pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    pid_t p = fork();
    if (p < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (p == 0) {
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        for (int i = 0; env && env[i]; i++)
            putenv(strdup(env[i]));
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    *pid = (int)p;
    return fd[0];
}

int proc_collect(int fd, int pid, char *out, size_t outn)
{
    int rc = proc_read(fd, pid, out, outn);
    close(fd);
    return rc;
}

int proc_read(int fd, int pid, char *out, size_t outn)
{
    size_t used = 0;
    char sink[4096];
    for (;;) {
        ssize_t k = used + 1 < outn ? read(fd, out + used, outn - used - 1)
                                    : read(fd, sink, sizeof sink);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (used + 1 < outn)
            used += (size_t)k;
    }
    if (outn)
        out[used] = '\0';
    int st = 0;
    while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int run_command(char *const argv[], const char *const env[], char *out, size_t outn)
{
    if (outn == 0)
        return -1;
    int pid, fd = proc_spawn(argv, env, &pid);
    return fd < 0 ? -1 : proc_collect(fd, pid, out, outn);
}

long proc_user_threads(unsigned uid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return -1;
    long total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char path[300], line[256];
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) /* it has ended since */
            continue;
        long threads = 0;
        int mine = 0;
        unsigned real;
        while (fgets(line, sizeof line, f)) {
            if (sscanf(line, "Uid: %u", &real) == 1)
                mine = real == uid;
            else
                sscanf(line, "Threads: %ld", &threads);
        }
        fclose(f);
        if (mine)
            total += threads > 0 ? threads : 1;
    }
    closedir(d);
    return total;
}

int proc_count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

int proc_limit_threads(long headroom)
{
    long now = proc_user_threads((unsigned)getuid());
    struct rlimit lim;
    if (now < 0 || headroom < 0 || getrlimit(RLIMIT_NPROC, &lim) != 0)
        return -1;
    rlim_t want = (rlim_t)(now + headroom);
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur <= want)
        return 0; /* already as tight */
    if (lim.rlim_max != RLIM_INFINITY && want > lim.rlim_max)
        want = lim.rlim_max;
    lim.rlim_cur = want;
    return setrlimit(RLIMIT_NPROC, &lim);
}
