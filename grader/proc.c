#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int run_command(char *const argv[], const char *const env[], char *out, size_t outn)
{
    int fd[2];
    if (outn == 0 || pipe(fd) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
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
    size_t used = 0;
    char sink[4096];
    for (;;) {
        ssize_t k = used + 1 < outn ? read(fd[0], out + used, outn - used - 1)
                                    : read(fd[0], sink, sizeof sink);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (used + 1 < outn)
            used += (size_t)k;
    }
    out[used] = '\0';
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
