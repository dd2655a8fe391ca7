#define _GNU_SOURCE
#include "probe.h"

#include "green.h"
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct probe_page {
    int status; /* 0 found, 1 none, PROBE_SMS_REFUSED */
    devinfo dev;
    char err[256];
} probe_page;

#define PROBE_TIMEOUT_S 60

int probe_gpu(devinfo *d, char *err, size_t errn)
{
    return probe_gpu_sms(d, 0, err, errn);
}

static int probe(devinfo *d, int sms, int files, char *err, size_t errn);

int probe_gpu_sms(devinfo *d, int sms, char *err, size_t errn)
{
    return probe(d, sms, 0, err, errn);
}

const char *probe_files_writable(int level)
{
    return level == FILES_WITH_SHM ? "/dev/shm" : NULL;
}

/* Under the strict rules, else with /dev/shm writable: 0 and *files set to
 * the level CUDA started under, PROBE_SMS_REFUSED (*files set, err says
 * why), or the last failure. why says what failed under the strict rules.
 * When only the /dev/shm level starts, the strict rules are tried once more:
 * the first failure may have been the GPU busy for a moment, which must not
 * loosen the rules for the whole run. */
static int probe_levels(devinfo *d, int sms, int *files, char *why, size_t whyn, char *err,
                        size_t errn)
{
    int rc = probe(d, sms, FILES_STRICT, why, whyn);
    if (rc == 0 || rc == PROBE_SMS_REFUSED) {
        *files = FILES_STRICT;
        if (rc)
            snprintf(err, errn, "%s", why);
        return rc;
    }
    rc = probe(d, sms, FILES_WITH_SHM, err, errn);
    if (rc != 0 && rc != PROBE_SMS_REFUSED)
        return rc;
    *files = FILES_WITH_SHM;
    if (rc == 0 && probe(d, sms, FILES_STRICT, err, errn) == 0)
        *files = FILES_STRICT;
    return rc;
}

int probe_gpu_files(devinfo *d, int sms, int *files, char *why, size_t whyn, char *err,
                    size_t errn)
{
    if (!*files)
        return probe(d, sms, FILES_OFF, err, errn);
    char level_err[256];
    int rc = probe_levels(d, sms, files, why, whyn, err, errn);
    if (rc == 0 || rc == PROBE_SMS_REFUSED)
        return rc;
    rc = probe(d, sms, FILES_OFF, err, errn);
    if (rc != 0)
        return rc;
    /* CUDA starts without the rules. Once more under them: a first start
     * may have set up what a later one needs (device files made by the
     * driver's helper), or the GPU was busy for a moment. */
    if (probe_levels(d, sms, files, why, whyn, level_err, sizeof level_err) != 0)
        *files = FILES_OFF; /* why says what failed */
    return 0;
}

static int probe(devinfo *d, int sms, int files, char *err, size_t errn)
{
    probe_page *pg = mmap(NULL, sizeof *pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                          -1, 0);
    if (pg == MAP_FAILED) {
        snprintf(err, errn, "cannot map a page: %s", strerror(errno));
        return -1;
    }
    memset(pg, 0, sizeof *pg);
    pg->status = -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errn, "cannot fork: %s", strerror(errno));
        munmap(pg, sizeof *pg);
        return -1;
    }
    if (pid == 0) {
        char why[200];
        const char *writable[] = {probe_files_writable(files), NULL};
        if (files) /* as a grading child does: root gives up its capabilities first */
            sandbox_drop_capabilities();
        if (files && sandbox_restrict_files(writable, why, sizeof why) < 0) {
            pg->status = 1;
            snprintf(pg->err, sizeof pg->err, "%s", why);
            _exit(0);
        }
        cudaError_t e = devinfo_query(&pg->dev, 0);
        if (e == cudaSuccess && sms > 0) {
            /* A GPU: can it give the green context of --sms? */
            int g = green_enter(sms, pg->err, sizeof pg->err);
            pg->status = g == 0 ? 0 : PROBE_SMS_REFUSED;
            pg->dev.sms_used = g == 0 ? sms : 0;
        } else if (e == cudaSuccess && files && (e = cudaFree(0)) != cudaSuccess) {
            /* under the rules, the context too, as a grading child makes it */
            pg->status = 1;
            snprintf(pg->err, sizeof pg->err, "%s (%s)", cudaGetErrorString(e),
                     cudaGetErrorName(e));
        } else if (e == cudaSuccess) {
            pg->status = 0;
        } else if (e == cudaErrorInsufficientDriver && !dlopen("libcuda.so.1", RTLD_LAZY)) {
            pg->status = 1;
            snprintf(pg->err, sizeof pg->err,
                     "no NVIDIA driver is installed on this machine (libcuda.so.1 not found)");
        } else if (e == cudaErrorInsufficientDriver) {
            pg->status = 1;
            snprintf(pg->err, sizeof pg->err,
                     "the NVIDIA driver is older than the CUDA runtime the grader was built with; "
                     "update the driver or build with a matching CUDA Toolkit");
        } else {
            pg->status = 1;
            snprintf(pg->err, sizeof pg->err, "%s (%s)", cudaGetErrorString(e),
                     cudaGetErrorName(e));
        }
        _exit(0);
    }
    int st = 0, waited = 0;
    struct timespec tick = {0, 20 * 1000 * 1000};
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (waited++ > PROBE_TIMEOUT_S * 50) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            snprintf(err, errn, "the GPU did not answer within %d s", PROBE_TIMEOUT_S);
            munmap(pg, sizeof *pg);
            return -1;
        }
        nanosleep(&tick, NULL);
    }
    int rc = pg->status;
    if (rc == 0)
        *d = pg->dev;
    else if (rc == 1 || rc == PROBE_SMS_REFUSED)
        snprintf(err, errn, "%s", pg->err);
    else if (WIFSIGNALED(st))
        snprintf(err, errn, "the probe died of signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(err, errn, "the probe failed (exit status %d)", WEXITSTATUS(st));
    munmap(pg, sizeof *pg);
    return rc;
}
