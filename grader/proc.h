/* proc.h: run a program and collect what it prints. */
#ifndef CUDA_LABS_PROC_H
#define CUDA_LABS_PROC_H

#include <stddef.h>

/* Runs argv (argv[0] a path) with extra environment entries "K=V" (NULL-ended,
 * may be NULL); stdout and stderr go into out (cut at outn - 1 bytes, the rest
 * read and dropped). Returns the exit status, 128 + the signal number, or -1
 * when the program could not be started. */
int run_command(char *const argv[], const char *const env[], char *out, size_t outn);
/* run_command in two halves, for a program that runs while the caller does
 * other work: proc_spawn starts it and returns the read end of its output
 * (-1 when it could not start); proc_collect reads that to the end into out,
 * closes it and returns the exit status as run_command does. */
int proc_spawn(char *const argv[], const char *const env[], int *pid);
int proc_collect(int fd, int pid, char *out, size_t outn);
/* proc_collect without closing fd: for a descriptor whose number must stay
 * taken until the caller closes it (test children close that number). */
int proc_read(int fd, int pid, char *out, size_t outn);

/* How many threads (processes count as one each) the user uid runs now, read
 * from /proc; -1 when /proc cannot be read. */
long proc_user_threads(unsigned uid);

/* How many threads this process runs now (entries of /proc/self/task); -1
 * when /proc cannot be read. */
int proc_count_threads(void);

/* Caps the number of processes and threads this process's user may start
 * from here on at what runs now plus headroom (RLIMIT_NPROC, which Linux
 * counts over the whole user and does not apply to root). Never raises a
 * limit. 0 when the limit is set, -1 when it could not be. */
int proc_limit_threads(long headroom);

#endif
