/* sandbox.h: a seccomp filter for the grading child. The lab library runs in
 * the child's own process, so whatever the grader can do there, the library
 * can try too. Before the library is loaded, the child installs a filter
 * (classic BPF, no library) that refuses what no stage needs: making the
 * grader's own image or its results page writable or executable (or mapping,
 * moving or unmapping them), writing the results file other than through the
 * grader's own write of the test's record (or mapping, duplicating, resizing
 * or closing its descriptor), starting processes or programs, reading or
 * writing another process, signalling another process, and system calls of
 * another ABI (x32, 32-bit). io_uring, userfaultfd and new sockets but netlink
 * fail with an error instead (they would reach the results file around the
 * filter, or the network), and
 * so do changing a file's mode, owner, times, extended attributes or inode
 * flags, truncate() of a path, and pushing input into a terminal (TIOCSTI,
 * TIOCLINUX): nothing a stage does needs them. A refused call raises SIGSYS; the grader's
 * handler reports it (REJECTED: it tried to ...) and ends the child.
 * CUDA_LABS_NO_SANDBOX=1 turns it off, for instructors debugging. */
#ifndef CUDA_LABS_SANDBOX_H
#define CUDA_LABS_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SANDBOX_MAX_RANGES 4
/* The child's exit status after a refused call (its record says why). */
#define SANDBOX_EXIT 1

#define SANDBOX_MAX_ELDERS 8
#define SANDBOX_MAX_THREADS 64

typedef struct sandbox_range {
    uintptr_t lo, hi; /* [lo, hi), page-aligned */
    const char *what; /* "the grader's own code and data" */
} sandbox_range;

typedef struct sandbox_spec {
    sandbox_range ranges[SANDBOX_MAX_RANGES];
    int n_ranges;
    pid_t self;   /* signals to this process are allowed */
    pid_t parent; /* the grader's parent process */
    /* This process's ancestors, the parent first (up to init, not included):
     * the grader and what started it, refused by id even where process ids
     * have wrapped around and one is above self. */
    pid_t elders[SANDBOX_MAX_ELDERS];
    int n_elders;
    /* This process's threads when the spec was made (self among them, and
     * CUDA's, which it starts before the filter): the only ids the calls on
     * a process's scheduling and memory placement may name, beside 0. */
    pid_t threads[SANDBOX_MAX_THREADS];
    int n_threads;
    int own_group; /* this process leads a process group of its own */
    /* The results file (results_writer): its descriptor (-1: not guarded),
     * the one address it may be written from, and that write's offset and
     * size. */
    int results_fd;
    uint64_t results_ip, results_offset, results_bytes;
    /* An open with O_TRUNC that asks for no write access fails (EPERM), and
     * openat2 (ENOSYS): set where Landlock's rules are on but older than ABI
     * 3, which does not cover truncation (sandbox_restrict_files). */
    int refuse_truncating_open;
} sandbox_spec;

/* Adds the results file's rules: the descriptor fd may be written only by
 * pwrite64 from the instruction before address ip (the grader's own stub,
 * results.c), of bytes at offset; any other write, mapping, duplicate,
 * resize or close of it is refused. */
void sandbox_guard_results(sandbox_spec *s, int fd, uint64_t ip, uint64_t offset, uint64_t bytes);

/* Starts a spec for this process: its pid, its parent's and its elders',
 * its threads' ids (from /proc/self/task, the first SANDBOX_MAX_THREADS),
 * and the mapped
 * image of the executable (every PT_LOAD segment, found with
 * dl_iterate_phdr). 0, or -1 when the image was not found. */
int sandbox_prepare(sandbox_spec *s);
/* Adds the whole image of the loaded object that holds address p (a
 * library's code and data) to the guarded ranges. 0, or -1 when no object
 * holds p or no range is left. */
int sandbox_add_object(sandbox_spec *s, const void *p, const char *what);
/* Adds [p, p + bytes), rounded out to pages, to the guarded ranges. */
int sandbox_add_range(sandbox_spec *s, const void *p, size_t bytes, const char *what);

/* Called by the SIGSYS handler with what the process tried ("start another
 * process") and the system call's name; the child ends with SANDBOX_EXIT
 * when it returns. Must be async-signal-safe enough to write a record. */
typedef void (*sandbox_report_fn)(const char *what, const char *syscall_name);

/* Installs the SIGSYS handler and the filter in this process (every thread),
 * and makes the process non-dumpable (so /proc/<pid>/mem is closed to it and
 * to its children, and the parent's to it). 0, or -1 with the reason in err
 * (an old kernel): the caller warns and goes on without it. */
int sandbox_install(const sandbox_spec *s, sandbox_report_fn report, char *err, size_t errn);

/* Run as root: gives up every capability, in the calling thread and the
 * threads it starts later (capabilities belong to each thread, and a new one
 * starts with its creator's). A grading child calls it before CUDA starts
 * its threads: a library could run code on one of them (a signal handler,
 * a host function), and a thread that kept root's capabilities could open
 * the results file again. sandbox_install calls it too, for the calling
 * thread. Nothing to do for an ordinary user. */
void sandbox_drop_capabilities(void);

/* Installs the filter in a short-lived child: 0 when this kernel takes it,
 * else -1 with the reason in err. The parent calls it once, for the run's
 * header. */
int sandbox_probe(char *err, size_t errn);

/* Files (Landlock, a second layer beside the filter): from this call on,
 * this thread and every thread and process it starts can no longer create,
 * change, truncate, rename or remove a file anywhere, except /dev/null, the
 * GPU's /dev/nvidia* files (as they are at the call), its threads' files in
 * /proc/self/task and its /proc/self/comm (opened for writing: CUDA names
 * its threads there), and
 * anything beneath each folder of writable (NULL-terminated, may be NULL),
 * where files may also be made and removed; /dev/shm only when named there. Reading is not restricted, and
 * descriptors opened before the call keep working. It applies to the calling
 * thread only: call it before CUDA starts its threads. 0; 1 when the kernel
 * has no Landlock (err says so); -1 when it failed (err says why). */
int sandbox_restrict_files(const char *const *writable, char *err, size_t errn);
/* The kernel's Landlock ABI version, 0 when it has none (at most the limit
 * below). */
int sandbox_files_abi(void);
/* For the tests: rules of at most this ABI from now on in this process, as
 * on an older kernel (2: Linux 5.19 to 6.1, where Landlock does not cover
 * truncation). */
void sandbox_files_abi_limit(int abi);

/* 1 when CUDA_LABS_NO_SANDBOX is set to anything but "" or "0". */
int sandbox_disabled(void);

/* Builds the filter into prog (at most cap instructions); the number of
 * instructions, or -1 when it does not fit. For tests. */
struct sock_filter;
int sandbox_build(const sandbox_spec *s, struct sock_filter *prog, int cap);

#endif
