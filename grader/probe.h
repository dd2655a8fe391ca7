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
/* probe_gpu_sms with files != 0: the child sets the grading children's
 * Landlock rules (sandbox_restrict_files) before its first CUDA call, as
 * they do. When CUDA does not start under them but does without, *files
 * becomes 0, why says what failed, and the answer is the plain probe's:
 * the run then grades without the rules rather than not at all. */
int probe_gpu_files(devinfo *d, int sms, int *files, char *why, size_t whyn, char *err,
                    size_t errn);

#endif
