/* probe.h: is there a usable GPU? Asked in a forked child, because a CUDA
 * call in the grader's parent would break CUDA in every later child. */
#ifndef CUDA_LABS_PROBE_H
#define CUDA_LABS_PROBE_H

#include <stddef.h>

#include "../common/devinfo.h"

/* 0: a GPU, *d filled. 1: none (why in err). -1: the probe itself failed. */
int probe_gpu(devinfo *d, char *err, size_t errn);
/* The same, and with sms > 0 also makes the green context of --sms once
 * (grader/green.h), so that a count this GPU cannot give, or a driver
 * without green contexts, is said before anything is graded: then 2, with
 * what to try in err. On success d->sms_used is sms. */
#define PROBE_SMS_REFUSED 2
int probe_gpu_sms(devinfo *d, int sms, char *err, size_t errn);
/* How far a grading child's Landlock rules on files go (sandbox.h). */
enum {
    FILES_OFF = 0,      /* no rules */
    FILES_WITH_SHM = 1, /* the rules, with /dev/shm writable: CUDA needs it here */
    FILES_STRICT = 2,   /* the rules; /dev/shm is not writable either */
};
/* The folder a level of the rules leaves writable beyond sandbox.h's own
 * ("/dev/shm"), or NULL. */
const char *probe_files_writable(int level);
/* probe_gpu_sms with *files != FILES_OFF: the child sets the grading
 * children's Landlock rules (sandbox_restrict_files) before its first CUDA
 * call, as they do, first the strict ones, then with /dev/shm writable. When
 * CUDA starts only under the second, *files becomes FILES_WITH_SHM; when it
 * starts under neither but does without, FILES_OFF, and the answer is the
 * plain probe's: the run then grades without the rules rather than not at
 * all. why says what failed under the stricter rules. */
int probe_gpu_files(devinfo *d, int sms, int *files, char *why, size_t whyn, char *err,
                    size_t errn);

#endif
