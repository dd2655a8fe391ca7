/* toolkit.c: see toolkit.h. */
#define _GNU_SOURCE
#include "toolkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int toolkit_find(const char *tool, char *path, size_t n)
{
    snprintf(path, n, "%s/bin/%s", CUDA_LABS_CUDA_HOME, tool);
    if (access(path, X_OK) == 0)
        return 0;
    const char *env = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", env ? env : "");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, n, "%s/%s", d, tool);
        if (access(path, X_OK) == 0)
            return 0;
    }
    return -1;
}
