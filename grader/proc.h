/* proc.h: run a program and collect what it prints. */
#ifndef CUDA_LABS_PROC_H
#define CUDA_LABS_PROC_H

#include <stddef.h>

/* Runs argv (argv[0] a path) with extra environment entries "K=V" (NULL-ended,
 * may be NULL); stdout and stderr go into out (cut at outn - 1 bytes, the rest
 * read and dropped). Returns the exit status, 128 + the signal number, or -1
 * when the program could not be started. */
int run_command(char *const argv[], const char *const env[], char *out, size_t outn);

#endif
