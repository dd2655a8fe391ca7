/* check_sandbox.c: the grader is linked with full RELRO and BIND_NOW, the
 * grading child's seccomp filter (grader/sandbox.h) refuses what tampering
 * needs while threads, dlopen and ordinary mprotect still work, and its
 * Landlock rules keep it from changing files. Each case
 * forks a child that sets up its record and installs the filter exactly as
 * a grading child does (runner_sandbox_child), then makes one call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <termios.h>
#include <time.h>
#include <string.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "../ceiling.h"
#include "../elfsym.h"
#include "../runner.h"
#include "../sandbox.h"
#include "adversarial/hidden_calls.h"
#include "adversarial/results_fd.h"
#include "tests.h"

/* ---- full RELRO and BIND_NOW ------------------------------------------------- */

static void assert_hardened(const char *path)
{
    int relro = -1, now = -1;
    char err[256] = "";
    ck_assert_msg(elf_hardening(path, &relro, &now, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(relro == 1, "%s has no PT_GNU_RELRO segment: link it with -Wl,-z,relro", path);
    ck_assert_msg(now == 1, "%s binds lazily: link it with -Wl,-z,now", path);
}

START_TEST(grader_is_full_relro)
{
    assert_hardened(grade_path());
    assert_hardened("/proc/self/exe"); /* the test runner */
}
END_TEST

/* Links a tiny program with the given flags; 0 when it was built. */
static int link_tiny(const char *flags, char *out, size_t n)
{
    char dir[] = "/tmp/cudalabs-relro-XXXXXX";
    if (!mkdtemp(dir))
        return -1;
    char src[128];
    snprintf(src, sizeof src, "%s/t.c", dir);
    snprintf(out, n, "%s/t", dir);
    FILE *f = fopen(src, "w");
    if (!f)
        return -1;
    fputs("#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n", f);
    fclose(f);
    const char *cc = getenv("CC");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s %s -o %s %s 2>/dev/null", cc && *cc ? cc : "cc", flags, out, src);
    return system(cmd) == 0 ? 0 : -1;
}

/* The GOT slot the tampering case (adversarial/tampers_got.cu) goes for is
 * found the same way here, and with full RELRO a write to it faults. */
START_TEST(got_is_read_only)
{
    hidden_image self;
    ck_assert_int_eq(hidden_open((const void *)&results_open, &self), 0);
    void **slot = hidden_got_slot(&self, "cudaEventElapsedTime");
    ck_assert_ptr_nonnull(slot);
    ck_assert_ptr_eq(*slot, (void *)&cudaEventElapsedTime); /* bound at start-up */
    ck_assert_ptr_nonnull(hidden_syscall());
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        *(void *volatile *)slot = NULL;
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "the GOT was writable: status %d",
                  st);
}
END_TEST

START_TEST(reader_tells_lazy_from_now)
{
    char lazy[160], relro_only[160], full[160], err[256];
    int relro, now;
    ck_assert_int_eq(link_tiny("-Wl,-z,norelro,-z,lazy", lazy, sizeof lazy), 0);
    ck_assert_int_eq(elf_hardening(lazy, &relro, &now, err, sizeof err), 0);
    ck_assert_int_eq(relro, 0);
    ck_assert_int_eq(now, 0);
    ck_assert_int_eq(link_tiny("-Wl,-z,relro,-z,lazy", relro_only, sizeof relro_only), 0);
    ck_assert_int_eq(elf_hardening(relro_only, &relro, &now, err, sizeof err), 0);
    ck_assert_int_eq(relro, 1); /* partial RELRO: the GOT of lazy calls stays writable */
    ck_assert_int_eq(now, 0);
    ck_assert_int_eq(link_tiny("-Wl,-z,relro,-z,now", full, sizeof full), 0);
    ck_assert_int_eq(elf_hardening(full, &relro, &now, err, sizeof err), 0);
    ck_assert_int_eq(relro, 1);
    ck_assert_int_eq(now, 1);
    ck_assert_int_eq(elf_hardening("grader/sandbox.c", &relro, &now, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not a 64-bit"));
    const char *paths[] = {lazy, relro_only, full};
    for (int i = 0; i < 3; i++) {
        char *slash = strrchr((char *)paths[i], '/');
        *slash = '\0';
        remove_tree(paths[i]);
    }
}
END_TEST

/* ---- the filter ----------------------------------------------------------------- */

static lab_results *page;

/* Fills the child's record the way a grading child does, installs the
 * filter, runs action, and ends: 0 when action returned 0. */
static int run_sandboxed(int (*action)(void), test_record *shown)
{
    page = results_map(1);
    ck_assert_ptr_nonnull(page);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        results_enter_child();
        test_record *rec = results_own(&page->t[1][TEST_CORRECT]);
        rec->state = STATE_RUNNING;
        rec->graded = 1;
        results_close();
        char err[200];
        if (runner_sandbox_child(rec, err, sizeof err) != 0) {
            fprintf(stderr, "no sandbox: %s\n", err);
            _exit(3);
        }
        int rc = action();
        rec->v = V_PASS; /* the grader's own write still reaches the page */
        snprintf(rec->msg, sizeof rec->msg, "returned %d", rc);
        rec->state = STATE_FINISHED;
        results_close();
        _exit(rc == 0 ? 0 : 2);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    *shown = page->t[1][TEST_CORRECT];
    results_unmap(page, 1);
    ck_assert_msg(!(WIFEXITED(st) && WEXITSTATUS(st) == 3), "the filter was not installed");
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void expect_rejected(int (*action)(void), const char *what, const char *call)
{
    test_record t;
    int rc = run_sandboxed(action, &t);
    ck_assert_msg(rc == SANDBOX_EXIT, "exit %d, expected %d (%s)", rc, SANDBOX_EXIT, t.msg);
    ck_assert_int_eq(t.state, STATE_FINISHED);
    ck_assert_str_eq(verdict_name(t.v), "REJECTED");
    ck_assert_msg(strstr(t.msg, what) != NULL, "\"%s\" not in: %s", what, t.msg);
    ck_assert_msg(strstr(t.msg, call) != NULL, "\"%s\" not in: %s", call, t.msg);
}

static void expect_allowed(int (*action)(void))
{
    test_record t;
    int rc = run_sandboxed(action, &t);
    ck_assert_msg(rc == 0, "exit %d: %s", rc, t.msg);
    ck_assert_int_eq(t.v, V_PASS);
}

static void *page_of(const void *p)
{
    return (void *)((uintptr_t)p & ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1));
}

/* Refused. */
static int protect_own_text(void)
{
    return mprotect(page_of((const void *)&results_open), 4096, PROT_READ | PROT_WRITE | PROT_EXEC);
}
static int protect_own_data(void)
{
    return mprotect(page_of(&page), 4096, PROT_READ | PROT_WRITE);
}
static int protect_results(void)
{
    return mprotect(page, sizeof *page, PROT_READ | PROT_WRITE);
}
static int protect_results_raw(void)
{
#if defined(__x86_64__)
    long rc;
    __asm__ volatile("syscall"
                     : "=a"(rc)
                     : "0"((long)SYS_mprotect), "D"(page), "S"(sizeof *page),
                       "d"((long)(PROT_READ | PROT_WRITE))
                     : "rcx", "r11", "memory");
    if (rc == 0)
        page->t[1][TEST_CORRECT].v = V_PASS; /* the forgery the filter stops */
    return (int)rc;
#else
    return (int)syscall(SYS_mprotect, page, sizeof *page, PROT_READ | PROT_WRITE);
#endif
}
static int protect_results_pkey(void)
{
    return (int)syscall(SYS_pkey_mprotect, (void *)page, sizeof *page, PROT_READ | PROT_WRITE, -1);
}
/* The filter's 64-bit range arithmetic at the edges of the page: whether the
 * kernel then succeeds (nothing may be mapped there) does not matter. */
static int protect_below_results(void)
{
    (void)mprotect((char *)page - 4096, 4096, PROT_READ | PROT_WRITE);
    return 0;
}
static int protect_above_results(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t end = ((uintptr_t)page + sizeof *page + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
    (void)mprotect((void *)end, 4096, PROT_READ | PROT_WRITE);
    return 0;
}
static int protect_into_results(void)
{
    return mprotect((char *)page - 4096, 4097, PROT_READ | PROT_WRITE);
}
/* What the adversarial cases do, with the same helpers. */
static int rewrites_got_hidden(void)
{
    hidden_image self;
    hidden_syscall_fn sys = hidden_syscall();
    if (!sys || hidden_open((const void *)&results_open, &self) != 0)
        return -1;
    void **slot = hidden_got_slot(&self, "cudaEventElapsedTime");
    uintptr_t pg = (uintptr_t)slot & ~(uintptr_t)4095;
    if (!slot || sys(SYS_mprotect, pg, 4096L, (long)(PROT_READ | PROT_WRITE)) != 0)
        return -1;
    *slot = NULL;
    return 0;
}
static int protect_results_trampoline(void)
{
    hidden_syscall_fn sys = hidden_trampoline();
    if (!sys)
        return -1;
    return (int)sys(SYS_mprotect, (long)page, (long)sizeof *page, (long)(PROT_READ | PROT_WRITE));
}
static int starts_process_hidden(void)
{
    hidden_syscall_fn sys = hidden_syscall();
    long pid = sys ? sys(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L) : -1;
    if (pid == 0)
        _exit(0);
    return pid < 0 ? -1 : 0;
}
static int map_over_results(void)
{
    void *p = mmap(page, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                   -1, 0);
    return p == MAP_FAILED ? -1 : 0;
}
static int alias_results(void)
{
    void *p = mremap(page, 0, sizeof *page, MREMAP_MAYMOVE); /* a second view of the page */
    return p == MAP_FAILED ? -1 : 0;
}
static int unmap_results(void)
{
    return munmap(page, sizeof *page);
}
/* Frees the memory file's blocks under the read-only page: every record
 * would read as never run. */
static int discards_results(void)
{
    return madvise(page, sizeof *page, MADV_REMOVE);
}
static int forks(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    return pid < 0 ? -1 : 0;
}
static int forks_raw(void)
{
#ifdef SYS_fork
    return (int)syscall(SYS_fork) < 0 ? -1 : 0;
#else
    return (int)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) < 0 ? -1 : 0;
#endif
}
static int execs(void)
{
    char *argv[] = {"/bin/true", NULL};
    return execv(argv[0], argv);
}
static int traces(void)
{
    return (int)ptrace(PTRACE_TRACEME, 0, NULL, NULL);
}
static int writes_parent(void)
{
    int x = 0;
    struct iovec local = {&x, sizeof x}, remote = {&x, sizeof x};
    return (int)process_vm_writev(getppid(), &local, 1, &remote, 1, 0);
}
static int signals_parent(void)
{
    return kill(getppid(), 0);
}
static int signals_group(void)
{
    return kill(0, 0); /* this test's child shares the group of the test runner */
}
static int signals_parent_thread(void)
{
    return (int)syscall(SYS_tgkill, getppid(), getppid(), 0);
}
static int signals_parent_by_tkill(void)
{
    return (int)syscall(SYS_tkill, getppid(), 0);
}
static int signals_parent_by_pidfd(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", (int)getppid());
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    return fd < 0 ? -1 : (int)syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0);
}
static int madvises_parent(void)
{
    int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    return (int)syscall(SYS_process_madvise, fd, NULL, 0, 0, 0);
}
static int dumpable_again(void)
{
    return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}
static int x32_call(void)
{
    return (int)syscall(0x40000000L + 39); /* x32 getpid */
}
static int i386_call(void)
{
    long rc = 20; /* i386 getpid */
#if defined(__x86_64__)
    __asm__ volatile("int $0x80" : "+a"(rc) : : "memory");
#endif
    return (int)rc;
}

/* The forged record of the test run_sandboxed's child grades; its offset. */
static off_t forged_record(test_record *rec)
{
    return (off_t)forge_record(rec, 1, TEST_CORRECT);
}
static int forges_by_pwrite(void)
{
    test_record rec;
    off_t at = forged_record(&rec);
    int fd = forge_find_results_fd();
    return fd >= 0 && pwrite(fd, &rec, sizeof rec, at) == (ssize_t)sizeof rec ? 0 : -1;
}
static int forges_by_pwritev2(void)
{
    test_record rec;
    off_t at = forged_record(&rec);
    struct iovec v = {&rec, sizeof rec};
    int fd = forge_find_results_fd();
    return fd >= 0 && pwritev2(fd, &v, 1, at, 0) == (ssize_t)sizeof rec ? 0 : -1;
}
static int forges_by_write(void)
{
    test_record rec;
    off_t at = forged_record(&rec);
    int fd = forge_find_results_fd();
    return fd >= 0 && lseek(fd, at, SEEK_SET) == at && write(fd, &rec, sizeof rec) > 0 ? 0 : -1;
}
static int forges_by_dup2(void)
{
    test_record rec;
    off_t at = forged_record(&rec);
    int fd = forge_find_results_fd();
    return fd >= 0 && dup2(fd, 200) == 200 && pwrite(200, &rec, sizeof rec, at) > 0 ? 0 : -1;
}
static int forges_by_fcntl_dup(void)
{
    int fd = forge_find_results_fd();
    return fd >= 0 && fcntl(fd, F_DUPFD_CLOEXEC, 300) >= 0 ? 0 : -1;
}
static int appends_to_results(void)
{
    int fd = forge_find_results_fd();
    return fd >= 0 && fcntl(fd, F_SETFL, O_APPEND) == 0 ? 0 : -1;
}
static int forges_by_mmap(void)
{
    test_record rec;
    off_t at = forged_record(&rec);
    int fd = forge_find_results_fd();
    char *p = fd >= 0 ? mmap(NULL, sizeof *page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                      : MAP_FAILED;
    if (p == MAP_FAILED)
        return -1;
    memcpy(p + at, &rec, sizeof rec);
    return 0;
}
static int forges_by_sendfile(void)
{
    int fd = forge_find_results_fd();
    int from = open("/proc/self/cmdline", O_RDONLY);
    return fd >= 0 && from >= 0 && sendfile(fd, from, NULL, 16) >= 0 ? 0 : -1;
}
static int forges_by_pidfd_getfd(void)
{
    int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    int fd = forge_find_results_fd();
    return pidfd >= 0 && fd >= 0 && syscall(SYS_pidfd_getfd, pidfd, fd, 0) >= 0 ? 0 : -1;
}
static int closes_results(void)
{
    int fd = forge_find_results_fd();
    return fd >= 0 && close(fd) == 0 ? 0 : -1;
}
static int chmods_results(void)
{
    int fd = forge_find_results_fd();
    return fd >= 0 && fchmod(fd, 0600) == 0 ? 0 : -1;
}
static int closes_all(void)
{
    return (int)syscall(SYS_close_range, 3, ~0u, 0);
}
#if defined(__x86_64__)
long results_pwrite_stub(long fd, const void *buf, long count, long offset);
/* The grader's own stub, jumped into for another test's record: refused
 * (its own record, it could forge: instructors.md says so). */
static int forges_other_record_by_stub(void)
{
    test_record rec;
    (void)forged_record(&rec);
    test_record other_rec; /* stage 0's, another test's */
    off_t other = (off_t)forge_record(&other_rec, 0, TEST_CORRECT);
    int fd = forge_find_results_fd();
    return fd >= 0 && results_pwrite_stub(fd, &rec, sizeof rec, other) > 0 ? 0 : -1;
}
#endif
/* What would reach the file around the filter fails with an error. */
static int no_way_around(void)
{
    int fd = forge_find_results_fd();
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int sv[2];
    int rc = 0;
    errno = 0;
    rc |= chmod(path, 0600) == -1 && errno == EPERM ? 0 : 1;
    errno = 0;
    rc |= fchmodat(AT_FDCWD, path, 0600, 0) == -1 && errno == EPERM ? 0 : 2;
    errno = 0;
    rc |= setxattr(path, "system.posix_acl_access", "", 0, 0) == -1 && errno == EPERM ? 0 : 4;
    errno = 0;
    rc |= syscall(SYS_io_uring_setup, 8, NULL) == -1 && errno == ENOSYS ? 0 : 8;
    errno = 0;
    rc |= socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1 && errno == EACCES ? 0 : 16;
    errno = 0;
    rc |= socket(AF_UNIX, SOCK_DGRAM, 0) == -1 && errno == EACCES ? 0 : 32;
    return rc;
}
/* A file's metadata, which Landlock does not cover, cannot be changed from
 * a descriptor opened for reading or by its path: mode, owner, times,
 * extended attributes, inode flags; nor a file truncated by its path, nor
 * input pushed into a terminal. One bit per call that did not fail with
 * EPERM. */
static int metadata_fails(void)
{
    char name[] = "/tmp/cudalabs-meta-XXXXXX";
    int made = mkstemp(name);
    if (made < 0)
        return -1;
    close(made);
    int fd = open(name, O_RDONLY);
    int rc = 0;
#define EPERM_OR(bit, call)                                                                   \
    do {                                                                                      \
        errno = 0;                                                                            \
        if (!((call) == -1 && errno == EPERM))                                                \
            rc |= 1 << (bit);                                                                 \
    } while (0)
    EPERM_OR(0, fchmod(fd, 0666));
    EPERM_OR(1, fchown(fd, getuid(), getgid()));
    EPERM_OR(2, chown(name, getuid(), getgid()));
    struct timespec zero[2] = {{0, 0}, {0, 0}};
    EPERM_OR(3, futimens(fd, zero));
    EPERM_OR(4, utimensat(AT_FDCWD, name, zero, 0));
    EPERM_OR(5, fremovexattr(fd, "user.x"));
    EPERM_OR(6, removexattr(name, "user.x"));
    EPERM_OR(7, truncate(name, 0));
    long flags = 0;
    EPERM_OR(8, ioctl(fd, 0x40086602u /* FS_IOC_SETFLAGS */, &flags));
    char c = 'x';
    EPERM_OR(9, ioctl(fd, TIOCSTI, &c));
    EPERM_OR(10, lchown(name, getuid(), getgid()));
#undef EPERM_OR
    /* and what stays: reading the file, its own descriptor's ioctls */
    int n = 0;
    if (ioctl(fd, FIONREAD, &n) != 0 && errno != ENOTTY && errno != EINVAL)
        rc |= 1 << 11;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (sb.st_mode & 0777) != 0600)
        rc |= 1 << 12;
    close(fd);
    unlink(name);
    return rc;
}
/* Every other descriptor is as before: writes, duplicates, mappings,
 * closes; Check's and CUDA's descriptors are never the results file's. */
static int other_files_as_before(void)
{
    char name[] = "/tmp/cudalabs-sandbox-XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0)
        return -1;
    unlink(name);
    int rc = pwrite(fd, "abcd", 4, 0) == 4 ? 0 : 1;
    int two = dup(fd);
    rc |= two >= 0 && write(two, "ef", 2) == 2 ? 0 : 2;
    rc |= dup2(fd, 250) == 250 && fcntl(250, F_DUPFD_CLOEXEC, 260) >= 260 ? 0 : 4;
    rc |= ftruncate(fd, 4096) == 0 ? 0 : 8;
    char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    rc |= p != MAP_FAILED && p[0] == 'e' /* "ef" over "ab" */ && munmap(p, 4096) == 0 ? 0 : 16;
    rc |= close(two) == 0 && close(250) == 0 ? 0 : 32;
    int sock = socket(AF_NETLINK, SOCK_RAW, 0);
    rc |= sock >= 0 && close(sock) == 0 ? 0 : 64;
    close(fd);
    return rc;
}

START_TEST(refuses_writable_grader_pages)
{
    expect_rejected(protect_own_text, "make the grader's own code and data writable", "(syscall mprotect)");
    expect_rejected(protect_own_data, "make the grader's own code and data writable", "(syscall mprotect)");
    expect_rejected(protect_results, "make the grader's results page writable", "(syscall mprotect)");
    expect_rejected(protect_into_results, "results page writable", "(syscall mprotect)");
#ifdef SYS_pkey_mprotect
    expect_rejected(protect_results_pkey, "results page writable", "(syscall pkey_mprotect)");
#endif
}
END_TEST

START_TEST(refuses_inline_syscall)
{
    expect_rejected(protect_results_raw, "make the grader's results page writable", "(syscall mprotect)");
}
END_TEST

START_TEST(refuses_the_adversarial_cases)
{
    expect_rejected(rewrites_got_hidden, "make the grader's own code and data writable", "(syscall mprotect)");
#if defined(__x86_64__)
    expect_rejected(protect_results_trampoline, "make the grader's results page writable", "(syscall mprotect)");
#endif
    expect_rejected(starts_process_hidden, "start another process", "(syscall clone)");
}
END_TEST

START_TEST(refuses_writing_the_results_file)
{
    const char *what = "write the grader's results";
    expect_rejected(forges_by_pwrite, what, "(syscall pwrite64)");
    expect_rejected(forges_by_pwritev2, what, "(syscall pwritev2)");
    expect_rejected(forges_by_write, what, "(syscall write)");
    expect_rejected(forges_by_dup2, what, "(syscall dup2)");
    expect_rejected(forges_by_fcntl_dup, what, "(syscall fcntl)");
    expect_rejected(appends_to_results, what, "(syscall fcntl)");
    expect_rejected(forges_by_mmap, what, "(syscall mmap)");
    expect_rejected(forges_by_sendfile, what, "(syscall sendfile)");
    expect_rejected(closes_results, what, "(syscall close)");
    expect_rejected(closes_all, what, "(syscall close_range)");
    expect_rejected(chmods_results, what, "(syscall fchmod)");
    expect_rejected(forges_by_pidfd_getfd, "take a copy of a descriptor", "(syscall pidfd_getfd)");
#if defined(__x86_64__)
    expect_rejected(forges_other_record_by_stub, what, "(syscall pwrite64)");
#endif
}
END_TEST

START_TEST(results_file_has_no_way_around)
{
    expect_allowed(no_way_around);
    expect_allowed(other_files_as_before);
    expect_allowed(metadata_fails);
}
END_TEST

/* An ordinary user cannot open the results file again through /proc/self/fd
 * (a second descriptor the filter would not know): it has mode 0. Root
 * can; the test drops to nobody, as closes_proc_self_mem does. */
START_TEST(results_file_cannot_be_reopened)
{
    page = results_map(1);
    ck_assert_ptr_nonnull(page);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = forge_find_results_fd();
        if (fd < 0)
            _exit(6);
        if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(5);
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        int again = open(path, O_RDWR);
        _exit(again < 0 && errno == EACCES ? 0 : 8);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    results_unmap(page, 1);
    ck_assert(WIFEXITED(st));
    if (WEXITSTATUS(st) == 5) {
        test_skip("sandbox: cannot become an ordinary user to try /proc/self/fd");
        return;
    }
    ck_assert_msg(WEXITSTATUS(st) == 0, "status %d (6: no results file, 8: opened again)",
                  WEXITSTATUS(st));
}
END_TEST

/* Run as root, a grading child gives up every capability before the
 * library loads: its effective set is empty and it cannot open the results
 * file again (mode 0), which root could. 0, or which went wrong. */
static int reopens_results_as_root(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", forge_find_results_fd());
    int again = open(path, O_RDWR);
    if (again >= 0)
        close(again);
    return again >= 0 ? 0 : -1;
}
static int gave_up_capabilities(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long eff = ~0ull;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "CapEff: %llx", &eff) == 1)
            break;
    if (f)
        fclose(f);
    return (eff == 0 ? 0 : 1) | (reopens_results_as_root() != 0 && errno == EACCES ? 0 : 2);
}

START_TEST(root_child_gives_up_its_capabilities)
{
    if (getuid() != 0) {
        test_skip("sandbox: not root, so a grading child has no capability to give up");
        return;
    }
    expect_allowed(gave_up_capabilities);
    /* The control: root without the filter's step opens it again. */
    page = results_map(1);
    ck_assert_ptr_nonnull(page);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(reopens_results_as_root() == 0 ? 0 : 8);
    int st = 0;
    waitpid(pid, &st, 0);
    results_unmap(page, 1);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "root could not open it again: %d", st);
}
END_TEST

/* A thread that tries, when told, to open the results file again. */
typedef struct reopener {
    pthread_t t;
    int go[2];
    volatile int opened; /* 1 it could, 0 it could not (EACCES), -1 otherwise */
} reopener;

static void *reopen_on_cue(void *arg)
{
    reopener *r = arg;
    char c;
    (void)!read(r->go[0], &c, 1);
    int rc = reopens_results_as_root();
    r->opened = rc == 0 ? 1 : errno == EACCES ? 0 : -1;
    return NULL;
}

/* Run as root, a thread started before the filter, as CUDA's are, tries to
 * open the results file again once the filter is on: with the capabilities
 * given up before it started (as a grading child does) or only when the
 * filter was installed (the control). The child's exit status: 0 it could
 * not, 1 it could, more: the setup failed. */
static int thread_reopens(int drop_first)
{
    page = results_map(1);
    ck_assert_ptr_nonnull(page);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (drop_first)
            sandbox_drop_capabilities();
        reopener r;
        memset(&r, 0, sizeof r);
        r.opened = -1;
        if (pipe(r.go) != 0 || pthread_create(&r.t, NULL, reopen_on_cue, &r) != 0)
            _exit(100);
        sandbox_spec sb;
        char err[200];
        if (sandbox_prepare(&sb) != 0 || sandbox_install(&sb, NULL, err, sizeof err) != 0)
            _exit(101);
        if (write(r.go[1], "x", 1) != 1 || pthread_join(r.t, NULL) != 0)
            _exit(102);
        _exit(r.opened == 1 ? 1 : r.opened == 0 ? 0 : 103);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    results_unmap(page, 1);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Capabilities are each thread's own: a library can run code on CUDA's
 * threads (a signal handler, a host function), so a grading child gives
 * them up before CUDA starts any. */
START_TEST(root_threads_give_up_capabilities)
{
    if (getuid() != 0) {
        test_skip("sandbox: not root, so a grading child has no capability to give up");
        return;
    }
    ck_assert_int_eq(thread_reopens(1), 0);
    /* The control: a thread started before they were given up keeps them. */
    ck_assert_int_eq(thread_reopens(0), 1);
}
END_TEST

START_TEST(refuses_remapping_grader_pages)
{
    expect_rejected(map_over_results, "map other memory over the grader's results page", "(syscall mmap)");
    expect_rejected(alias_results, "move or unmap the grader's results page", "(syscall mremap)");
    expect_rejected(unmap_results, "move or unmap the grader's results page", "(syscall munmap)");
    expect_rejected(discards_results, "discard the contents of the grader's results page",
                    "(syscall madvise)");
}
END_TEST

START_TEST(refuses_processes)
{
    expect_rejected(forks, "start another process", "(syscall clone)");
    expect_rejected(forks_raw, "start another process", "(syscall ");
    expect_rejected(execs, "run another program", "(syscall execve)");
}
END_TEST

START_TEST(refuses_other_processes)
{
    expect_rejected(traces, "trace, read or write another process", "(syscall ptrace)");
    expect_rejected(writes_parent, "trace, read or write another process", "(syscall process_vm_writev)");
    expect_rejected(signals_parent, "send a signal to another process", "(syscall kill)");
    expect_rejected(signals_group, "send a signal to another process", "(syscall kill)");
    expect_rejected(signals_parent_thread, "send a signal to another process", "(syscall tgkill)");
    expect_rejected(signals_parent_by_tkill, "send a signal to another process", "(syscall tkill)");
    expect_rejected(signals_parent_by_pidfd, "send a signal to another process",
                    "(syscall pidfd_send_signal)");
    expect_rejected(madvises_parent, "trace, read or write another process",
                    "(syscall process_madvise)");
    expect_rejected(dumpable_again, "open to other processes", "(syscall prctl)");
}
END_TEST

START_TEST(refuses_other_abis)
{
#if defined(__x86_64__)
    expect_rejected(x32_call, "another system call interface", "(syscall number ");
#else
    (void)x32_call;
#endif
}
END_TEST

/* int 0x80 reaches the filter only where the kernel has its 32-bit entry;
 * a kernel built or booted without it (ia32_emulation=0) answers with
 * SIGSEGV before any filter runs, and nothing is left to refuse. */
START_TEST(refuses_i386_calls)
{
#if defined(__x86_64__)
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(i386_call() > 0 ? 0 : 1);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV) {
        test_skip("sandbox: this kernel has no 32-bit system calls (int 0x80) to refuse");
        return;
    }
    expect_rejected(i386_call, "another system call interface", "(syscall number 20)");
#else
    (void)i386_call;
#endif
}
END_TEST

/* Allowed. */
static void *thread_body(void *arg)
{
    *(int *)arg = 42;
    return NULL;
}
static int starts_thread(void)
{
    pthread_t t;
    int v = 0;
    if (pthread_create(&t, NULL, thread_body, &v) != 0 || pthread_join(t, NULL) != 0)
        return -1;
    return v == 42 ? 0 : -1;
}
static char tiny_so[160];
static int loads_library(void)
{
    void *h = dlopen(tiny_so, RTLD_NOW | RTLD_LOCAL);
    int (*fn)(void) = h ? (int (*)(void))dlsym(h, "tiny_answer") : NULL;
    return fn && fn() == 7 ? 0 : -1;
}
static int protects_heap(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    char *p = aligned_alloc((size_t)pg, (size_t)pg);
    if (!p)
        return -1;
    p[0] = 1;
    int rc = mprotect(p, (size_t)pg, PROT_READ);
    rc |= p[0] == 1 ? 0 : -1;
    rc |= mprotect(p, (size_t)pg, PROT_READ | PROT_WRITE);
    p[0] = 2;
    free(p);
    return rc;
}
static int reads_grader_pages(void)
{
    /* Read-only requests over the grader's pages are harmless: allowed. */
    return mprotect(page, sizeof *page, PROT_READ);
}
static int maps_executable(void)
{
    /* Not refused (the driver may need it); the documentation says so. */
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? -1 : munmap(p, 4096);
}
static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig)
{
    (void)sig;
    got_usr1++;
}
static int signals_itself(void)
{
    signal(SIGUSR1, on_usr1);
    if (raise(SIGUSR1) != 0 || kill(getpid(), SIGUSR1) != 0)
        return -1;
    return got_usr1 == 2 ? 0 : -1;
}

START_TEST(allows_what_stages_and_cuda_need)
{
    char dir[] = "/tmp/cudalabs-tiny-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char src[128], cmd[512];
    snprintf(src, sizeof src, "%s/tiny.c", dir);
    snprintf(tiny_so, sizeof tiny_so, "%s/tiny.so", dir);
    FILE *f = fopen(src, "w");
    ck_assert_ptr_nonnull(f);
    fputs("int tiny_answer(void) { return 7; }\n", f);
    fclose(f);
    const char *cc = getenv("CC");
    snprintf(cmd, sizeof cmd, "%s -shared -fPIC -o %s %s", cc && *cc ? cc : "cc", tiny_so, src);
    ck_assert_int_eq(system(cmd), 0);
    expect_allowed(starts_thread);
    expect_allowed(loads_library);
    expect_allowed(protects_heap);
    expect_allowed(reads_grader_pages);
    expect_allowed(protect_below_results);
    expect_allowed(protect_above_results);
    expect_allowed(maps_executable);
    expect_allowed(signals_itself);
    remove_tree(dir);
}
END_TEST

/* After the install, an ordinary user's process cannot open its own
 * /proc/self/mem, whose writes would ignore page protection. As root, the
 * test drops to nobody first (root keeps the file open: the docs say so). */
START_TEST(closes_proc_self_mem)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (getuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(5);
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
        int fd = open("/proc/self/mem", O_RDWR);
        if (fd < 0)
            _exit(6); /* open before: the control */
        close(fd);
        sandbox_spec sb;
        char err[200];
        if (sandbox_prepare(&sb) != 0 || sandbox_install(&sb, NULL, err, sizeof err) != 0)
            _exit(7);
        fd = open("/proc/self/mem", O_RDWR);
        _exit(fd < 0 && errno == EACCES ? 0 : 8);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert(WIFEXITED(st));
    if (WEXITSTATUS(st) == 5) {
        test_skip("sandbox: cannot become an ordinary user to try /proc/self/mem");
        return;
    }
    ck_assert_msg(WEXITSTATUS(st) == 0, "status %d (6: no control, 8: still open)",
                  WEXITSTATUS(st));
}
END_TEST

/* Where Landlock is older than ABI 3 it does not cover truncation (here: the
 * rules of ABI 2, sandbox_files_abi_limit, as on Linux 5.19 to 6.1), and the
 * filter refuses the opens that would empty a file Landlock lets the child
 * read only (sandbox_spec.refuse_truncating_open): O_TRUNC without write
 * access fails with EPERM, openat2 with ENOSYS; an open for writing with
 * O_TRUNC, and creat(), are Landlock's to refuse (EACCES); writing /dev/null
 * and reading the file still work. Without the filter's rule (the control)
 * the first open empties the file. 0, or which bits went wrong; 77 where the
 * kernel has no Landlock. */
static int truncating_opens(int refuse, const char *path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sandbox_spec sb;
        char err[200];
        sandbox_files_abi_limit(2);
        if (sandbox_files_abi() == 0)
            _exit(77);
        if (sandbox_restrict_files(NULL, err, sizeof err) != 0 || sandbox_prepare(&sb) != 0)
            _exit(100);
        sb.refuse_truncating_open = refuse;
        if (sandbox_install(&sb, NULL, err, sizeof err) != 0)
            _exit(101);
        int rc = 0;
        errno = 0;
        int fd = open(path, O_RDONLY | O_TRUNC);
        if (!(fd < 0 && errno == EPERM))
            rc |= 1 << 0;
        errno = 0;
        fd = openat(AT_FDCWD, path, O_ACCMODE | O_TRUNC); /* access mode 3: neither */
        if (!(fd < 0 && errno == EPERM))
            rc |= 1 << 1;
        struct {
            uint64_t flags, mode, resolve;
        } how = {O_RDONLY | O_TRUNC, 0, 0};
        errno = 0;
        fd = (int)syscall(437 /* openat2 */, AT_FDCWD, path, &how, sizeof how);
        if (!(fd < 0 && errno == ENOSYS))
            rc |= 1 << 2;
        errno = 0;
        fd = open(path, O_WRONLY | O_TRUNC);
        if (!(fd < 0 && errno == EACCES))
            rc |= 1 << 3;
        errno = 0;
        fd = creat(path, 0600);
        if (!(fd < 0 && errno == EACCES))
            rc |= 1 << 4;
        FILE *f = fopen("/dev/null", "w"); /* O_WRONLY | O_CREAT | O_TRUNC */
        if (!f)
            rc |= 1 << 5;
        else
            fclose(f);
        char c;
        fd = open(path, O_RDONLY);
        if (fd < 0 || read(fd, &c, 1) != 1)
            rc |= 1 << 6;
        _exit(rc);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

START_TEST(refuses_truncating_opens)
{
    char name[] = "/tmp/cudalabs-trunc-XXXXXX";
    int fd = mkstemp(name);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "course", 6), 6);
    close(fd);
    int rc = truncating_opens(1, name);
    if (rc == 77) {
        unlink(name);
        test_skip("sandbox: this kernel has no Landlock, so nothing to fill in for");
        return;
    }
    struct stat sb;
    ck_assert_int_eq(stat(name, &sb), 0);
    ck_assert_msg(rc == 0, "wrong outcomes, one bit per call in truncating_opens: 0x%x", rc);
    ck_assert_int_eq(sb.st_size, 6);
    /* The control: without the rule, the first open empties the file (ABI 2
     * does not stop it), the three refusals are missing and the read at the
     * end finds nothing. */
    rc = truncating_opens(0, name);
    ck_assert_int_eq(stat(name, &sb), 0);
    unlink(name);
    ck_assert_msg(rc == 0x47, "without the rule: 0x%x", rc);
    ck_assert_int_eq(sb.st_size, 0);
}
END_TEST

/* Runs body(filter) in a child and returns what it returns, one bit per
 * call that went otherwise than expected (more bits than an exit status
 * holds, so through a shared page); or minus the child's exit status when
 * it ended early (100 and up: its setup failed), or minus 128 + the signal
 * that ended it. */
static int bits_of_child(int (*body)(int), int filter)
{
    int *bits = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(bits, MAP_FAILED);
    *bits = -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        *bits = body(filter);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    int rc = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? *bits : -(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    munmap(bits, 4096);
    return rc;
}

/* In the checks below, which collect one bit per call in rc: the bit is set
 * unless call fails with errno e. */
#define FAILS_WITH(bit, e, call)                                                              \
    do {                                                                                      \
        errno = 0;                                                                            \
        if (!((call) == -1 && errno == (e)))                                                  \
            rc |= 1 << (bit);                                                                 \
    } while (0)

/* In every filter, even one without a results file (as on a machine where
 * the grader has no write stub): io_uring and userfaultfd fail with ENOSYS,
 * open_by_handle_at (which could truncate around the rule above) and
 * System V objects, which outlive the process, with EPERM, and so do the
 * calls on the machine that only root could make (namespaces, keyrings,
 * the clock, eBPF), even those that need no privilege with these
 * arguments; so do leaving the process group, changing another process's
 * limits, CPUs or nice value, making it a descriptor's owner, POSIX message
 * queues and a terminal's settings, while the same calls on this process
 * work. The control,
 * without the filter, makes a shared memory segment and removes it. 0, or
 * which bits went wrong. */
static int ways_around_body(int filter)
{
    sandbox_spec sb;
    char err[200];
    if (sandbox_prepare(&sb) != 0)
        _exit(100);
    if (filter && sandbox_install(&sb, NULL, err, sizeof err) != 0)
        _exit(101);
    int rc = 0;
#define WORKS(bit, call)                                                                      \
do {                                                                                      \
    if ((call) != 0)                                                                      \
        rc |= 1 << (bit);                                                                 \
} while (0)
    FAILS_WITH(0, ENOSYS, syscall(SYS_io_uring_setup, 8, NULL));
    FAILS_WITH(1, ENOSYS, syscall(SYS_userfaultfd, 0));
    char handle[128] = {0};
    FAILS_WITH(2, EPERM, syscall(SYS_open_by_handle_at, AT_FDCWD, handle, O_RDONLY | O_TRUNC));
    /* each made object removed at once (the control makes them) */
    int id;
    FAILS_WITH(3, EPERM, id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
    if (id >= 0)
        shmctl(id, IPC_RMID, NULL);
    FAILS_WITH(4, EPERM, id = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
    if (id >= 0)
        semctl(id, 0, IPC_RMID);
    FAILS_WITH(5, EPERM, id = msgget(IPC_PRIVATE, IPC_CREAT | 0600));
    if (id >= 0)
        msgctl(id, IPC_RMID, NULL);
    /* what only root could do to the machine: EPERM for every user */
    FAILS_WITH(6, EPERM, syscall(SYS_unshare, 0));
    FAILS_WITH(7, EPERM, syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -4, 0));
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    FAILS_WITH(8, EPERM, clock_settime(CLOCK_REALTIME, &now));
    FAILS_WITH(9, EPERM, syscall(SYS_bpf, 0, NULL, 0));
    /* other processes: the test runner here stands for the grader;
     * each change, where it is made (the control), sets what was there */
    const pid_t parent = getppid();
    FAILS_WITH(10, EPERM, setpgid(0, getpgid(parent)));
    struct rlimit lim;
    FAILS_WITH(11, EPERM, prlimit(parent, RLIMIT_NOFILE, NULL, &lim));
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    sched_getaffinity(parent, sizeof cpus, &cpus);
    FAILS_WITH(12, EPERM, sched_setaffinity(parent, sizeof cpus, &cpus));
    errno = 0;
    int nice_of_parent = getpriority(PRIO_PROCESS, (id_t)parent);
    FAILS_WITH(13, EPERM, setpriority(PRIO_PROCESS, (id_t)parent, nice_of_parent));
    int fds[2];
    if (pipe(fds) != 0)
        _exit(102);
    FAILS_WITH(14, EPERM, fcntl(fds[0], F_SETOWN, parent));
    int owner = parent;
    FAILS_WITH(15, EPERM, ioctl(fds[0], 0x8901 /* FIOSETOWN */, &owner));
    FAILS_WITH(16, EPERM, id = (int)syscall(SYS_mq_open, "cudalabs-sandbox-test",
                                            O_CREAT | O_RDONLY, 0600, NULL));
    if (id >= 0)
        syscall(SYS_mq_unlink, "cudalabs-sandbox-test");
    struct termios t;
    memset(&t, 0, sizeof t);
    FAILS_WITH(17, EPERM, ioctl(fds[0], TCSETS, &t)); /* ENOTTY on a pipe without */
    if (filter) /* without it, this would make the test runner's group slow */
        FAILS_WITH(18, EPERM, setpriority(PRIO_PGRP, 0, 19));
    /* and what stays: this process's own limits, CPUs, nice value,
     * descriptors' owner and threads */
    WORKS(19, prlimit(0, RLIMIT_NOFILE, NULL, &lim));
    CPU_ZERO(&cpus);
    WORKS(20, sched_getaffinity(0, sizeof cpus, &cpus) || sched_setaffinity(0, sizeof cpus, &cpus));
    errno = 0;
    WORKS(21, setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0)));
    WORKS(22, fcntl(fds[1], F_GETOWN) == -1);
    WORKS(23, (int)syscall(SYS_tkill, (int)syscall(SYS_gettid), 0));
    /* a terminal's O_ASYNC would make its foreground group (the
     * grader's) the owner; a pipe stands for it here */
    FAILS_WITH(24, EPERM, fcntl(fds[0], F_SETFL, O_ASYNC));
    WORKS(25, fcntl(fds[0], F_SETFL, O_NONBLOCK));
    /* an id above this process's own: another grader's child, on a
     * shared machine (here none: ESRCH without the filter) */
    FAILS_WITH(26, EPERM, syscall(SYS_tkill, getpid() + 1000000, 0));
    FAILS_WITH(27, EPERM, prlimit(getpid() + 1000000, RLIMIT_NOFILE, NULL, &lim));
    /* sockets, in every filter (this one guards no results file, as on
     * aarch64): the network and UNIX sockets fail, netlink stays */
    int sock;
    FAILS_WITH(28, EACCES, sock = socket(AF_INET, SOCK_STREAM, 0));
    if (sock >= 0)
        close(sock);
    int pair[2] = {-1, -1};
    FAILS_WITH(29, EACCES, sock = socket(AF_UNIX, SOCK_DGRAM, 0));
    if (sock >= 0)
        close(sock);
    FAILS_WITH(29, EACCES, socketpair(AF_UNIX, SOCK_STREAM, 0, pair));
    if (pair[0] >= 0) {
        close(pair[0]);
        close(pair[1]);
    }
    sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0 /* NETLINK_ROUTE */);
    WORKS(30, sock < 0);
    if (sock >= 0)
        close(sock);
#undef WORKS
    return rc;
}

static int ways_around(int filter)
{
    return bits_of_child(ways_around_body, filter);
}

/* After process ids wrap around, the grader can have a larger id than its
 * child: here the spec's own pid is set to 2 to stand for that, and one of
 * its elders is a process that is gone. The calls that name a process by id
 * still reach only the child's own threads: the elders, and every id above
 * the child's, fail with EPERM (the kernel would say ESRCH for the one that
 * is gone); the child's own pid, not 2, is among its threads and works. 0,
 * or which bits went wrong. */
static int wrapped_around(void)
{
    const pid_t gone = 4000000;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        sandbox_spec sb;
        char err[200];
        if (sandbox_prepare(&sb) != 0)
            _exit(100);
        if (sb.n_elders < 1 || sb.elders[0] != getppid() || sb.n_threads != 1 ||
            sb.threads[0] != getpid())
            _exit(101);
        /* a deep process tree (a CI runner, a batch job) can fill every
         * place; the one that is gone then takes the farthest elder's */
        if (sb.n_elders == SANDBOX_MAX_ELDERS)
            sb.n_elders--;
        sb.self = 2;
        sb.elders[sb.n_elders++] = gone;
        if (sandbox_install(&sb, NULL, err, sizeof err) != 0)
            _exit(102);
        int rc = 0;
        /* no pages: nothing moves, the kernel only finds the process */
        errno = 0;
        if (!(syscall(SYS_move_pages, gone, 0, NULL, NULL, NULL, 0) == -1 && errno == EPERM))
            rc |= 1;
        errno = 0;
        if (!(syscall(SYS_move_pages, getppid(), 0, NULL, NULL, NULL, 0) == -1 && errno == EPERM))
            rc |= 2;
        errno = 0;
        if (!(syscall(SYS_move_pages, getpid() + 1000000, 0, NULL, NULL, NULL, 0) == -1 &&
              errno == EPERM))
            rc |= 4;
        if (syscall(SYS_move_pages, getpid(), 0, NULL, NULL, NULL, 0) != 0)
            rc |= 8;
        _exit(rc);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

START_TEST(other_processes_are_refused_after_ids_wrap_around)
{
    int rc = wrapped_around();
    ck_assert_msg(rc == 0, "%d (100+: setup; 1, 2, 4: move_pages allowed on another process; "
                  "8: refused on the child itself)", rc);
}
END_TEST

/* A thread that waits until told to end; its id, once known, in *tid. */
typedef struct waiter {
    pthread_t t;
    volatile pid_t tid;
    int fds[2];
} waiter;

static void *wait_for_end(void *arg)
{
    waiter *w = arg;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    /* a thread started after the filter names itself with 0 */
    int self_ok = sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
                  sched_setaffinity(0, sizeof cpus, &cpus) == 0;
    w->tid = self_ok ? (pid_t)syscall(SYS_gettid) : -1;
    char c;
    (void)!read(w->fds[0], &c, 1);
    return NULL;
}

static int start_waiter(waiter *w)
{
    w->tid = 0;
    if (pipe(w->fds) != 0 || pthread_create(&w->t, NULL, wait_for_end, w) != 0)
        return -1;
    while (w->tid == 0)
        sched_yield();
    return w->tid > 0 ? 0 : -1;
}

static void end_waiter(waiter *w)
{
    close(w->fds[1]);
    pthread_join(w->t, NULL);
    close(w->fds[0]);
}

/* The calls on a process's scheduling and memory placement name only the
 * child's own threads, those it had when the filter was made (CUDA's, in a
 * grading child): not a process started after it (another student's test
 * process, beside it on a shared machine), nor a thread it starts later,
 * which may name itself with 0. Under the filter or not (the control); the
 * bits of what went otherwise than under the filter. */
static int own_threads_only_body(int filter)
{
    /* as a grading child: run as root, the capabilities go before any
     * thread starts (else the kernel would not let this thread change
     * one that kept them) */
    sandbox_drop_capabilities();
    waiter before, after;
    if (start_waiter(&before) != 0)
        _exit(100);
    /* a newer process: it ends when this one does (its pipe closes) */
    int hold[2];
    if (pipe(hold) != 0)
        _exit(101);
    pid_t newer = fork();
    if (newer == 0) {
        char c;
        close(hold[1]);
        close(before.fds[1]); /* else the thread above never sees its end */
        (void)!read(hold[0], &c, 1);
        _exit(0);
    }
    close(hold[0]);
    sandbox_spec sb;
    char err[200];
    if (newer < 0 || sandbox_prepare(&sb) != 0 || sb.n_threads != 2)
        _exit(102);
    if (filter && sandbox_install(&sb, NULL, err, sizeof err) != 0)
        _exit(103);
    if (start_waiter(&after) != 0)
        _exit(104);
    int rc = 0;
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    sched_getaffinity(0, sizeof cpus, &cpus);
    if (sched_setaffinity(before.tid, sizeof cpus, &cpus) != 0)
        rc |= 1; /* a thread it had: allowed */
    FAILS_WITH(1, EPERM, sched_setaffinity(after.tid, sizeof cpus, &cpus));
    FAILS_WITH(2, EPERM, sched_setaffinity(newer, sizeof cpus, &cpus));
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)newer);
    FAILS_WITH(3, EPERM, setpriority(PRIO_PROCESS, (id_t)newer, nice));
    FAILS_WITH(4, EPERM, syscall(SYS_move_pages, newer, 0, NULL, NULL, NULL, 0));
    struct sched_param param = {0};
    FAILS_WITH(5, EPERM, sched_setscheduler(newer, SCHED_OTHER, &param));
    if (setpriority(PRIO_PROCESS, (id_t)before.tid, getpriority(PRIO_PROCESS, 0)) != 0)
        rc |= 1 << 6;
    end_waiter(&before);
    end_waiter(&after);
    return rc;
}

static int own_threads_only(int filter)
{
    return bits_of_child(own_threads_only_body, filter);
}

START_TEST(names_only_its_own_threads)
{
    int rc = own_threads_only(1);
    ck_assert_msg(rc == 0, "wrong outcomes, one bit per call in own_threads_only: 0x%x", rc);
    /* The control: without the filter each of those calls works. */
    rc = own_threads_only(0);
    ck_assert_msg(rc == 0x3e, "without the filter: 0x%x", rc);
}
END_TEST

START_TEST(closes_ways_around_the_rules)
{
    int rc = ways_around(1);
    ck_assert_msg(rc == 0, "wrong outcomes, one bit per call in ways_around: 0x%x", rc);
    /* The control: a System V segment, semaphore set and queue can be made
     * (and are removed) without the filter. */
    rc = ways_around(0);
    ck_assert_msg(rc >= 0, "the control's child failed: %d", rc);
    ck_assert_msg((rc & 0x38) == 0x38, "without the filter: 0x%x", rc);
    /* unshare(0) and reading the user keyring's id work for anyone, and so
     * do the calls on the test runner, and the ioctl fails with ENOTTY */
    ck_assert_msg((rc & 0xc0) == 0xc0, "without the filter: 0x%x", rc);
    ck_assert_msg((rc & 0x3fc00) == 0x3fc00, "without the filter: 0x%x", rc);
    ck_assert_msg((rc & 0xf80000) == 0, "without the filter: 0x%x", rc);
    /* and the sockets are made */
    ck_assert_msg((rc & 0x7f000000) == 0x3d000000, "without the filter: 0x%x", rc);
}
END_TEST

/* More ways around, under the bare filter or none (the control): Linux AIO
 * (its writes name their descriptor in memory), netlink protocols other
 * than route (a channel to other local processes, the machine's fork and
 * exit events), a terminal's input and lines, profiling another process.
 * One bit per call that went otherwise than under the filter. */
static int more_ways_around(int filter)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* another process with the same credentials (root's given up
         * first, as in a grading child); it ends when this one does */
        sandbox_drop_capabilities();
        pid_t other = fork();
        if (other == 0) {
            char c;
            close(fds[1]);
            (void)!read(fds[0], &c, 1);
            _exit(0);
        }
        close(fds[0]);
        sandbox_spec sb;
        char err[200];
        if (other < 0 || sandbox_prepare(&sb) != 0)
            _exit(100);
        if (filter && sandbox_install(&sb, NULL, err, sizeof err) != 0)
            _exit(101);
        int rc = 0;
        unsigned long ctx = 0;
        FAILS_WITH(0, ENOSYS, syscall(SYS_io_setup, 1, &ctx));
        if (ctx)
            syscall(SYS_io_destroy, ctx);
        FAILS_WITH(1, ENOSYS, syscall(SYS_io_submit, 0, 0, NULL));
        int sock;
        FAILS_WITH(2, EACCES, sock = socket(AF_NETLINK, SOCK_RAW, 2 /* NETLINK_USERSOCK */));
        if (sock >= 0)
            close(sock);
        FAILS_WITH(3, EACCES, sock = socket(AF_NETLINK, SOCK_DGRAM, 11 /* NETLINK_CONNECTOR */));
        if (sock >= 0)
            close(sock);
        FAILS_WITH(4, EPERM, ioctl(fds[1], 0x540B /* TCFLSH */, 0 /* TCIFLUSH */));
        FAILS_WITH(5, EPERM, ioctl(fds[1], 0x5409 /* TCSBRK */, 1));
        /* a software clock on another process of the same user and
         * credentials (without the filter the kernel lets it be counted
         * where perf_event_paranoid is 2 or less) */
        struct perf_event_attr attr;
        memset(&attr, 0, sizeof attr);
        attr.type = PERF_TYPE_SOFTWARE;
        attr.size = sizeof attr;
        attr.config = PERF_COUNT_SW_TASK_CLOCK;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        int counter;
        FAILS_WITH(6, EACCES, counter = (int)syscall(SYS_perf_event_open, &attr, other, -1, -1, 0));
        if (counter >= 0)
            close(counter);
        /* and what stays: netlink's route protocol, MADV_REMOVE on memory
         * of the child's own */
        sock = socket(AF_NETLINK, SOCK_RAW, 0 /* NETLINK_ROUTE */);
        if (sock < 0)
            rc |= 1 << 7;
        else
            close(sock);
        char *own = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (own == MAP_FAILED || madvise(own, 4096, MADV_REMOVE) != 0)
            rc |= 1 << 8;
        _exit(rc);
    }
    close(fds[0]);
    close(fds[1]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* perf_event_paranoid, or 3 where it cannot be read. */
static int perf_paranoid(void)
{
    int level = 3;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &level) != 1)
            level = 3;
        fclose(f);
    }
    return level;
}

START_TEST(closes_more_ways_around)
{
    int rc = more_ways_around(1);
    ck_assert_msg(rc == 0, "wrong outcomes, one bit per call in more_ways_around: 0x%x", rc);
    /* The control: each call is made, or fails otherwise (ENOTTY on a pipe;
     * the perf attribute's EINVAL or the machine's paranoid EACCES) */
    rc = more_ways_around(0);
    ck_assert_msg(rc >= 0 && (rc & 0x3f) == 0x3f && (rc & 0x180) == 0, "without the filter: 0x%x",
                  rc);
    /* where the kernel lets a process count another's user time */
    if (perf_paranoid() <= 2)
        ck_assert_msg(rc & 0x40, "without the filter, the counter was refused: 0x%x", rc);
}
END_TEST

START_TEST(filter_fits)
{
    static struct sock_filter prog[BPF_MAXINSNS];
    sandbox_spec s;
    ck_assert_int_eq(sandbox_prepare(&s), 0);
    ck_assert_int_eq(s.n_ranges, 1);
    ck_assert_msg(s.ranges[0].lo <= (uintptr_t)&results_open &&
                      (uintptr_t)&results_open < s.ranges[0].hi,
                  "the executable's image does not hold its own code");
    for (int i = 1; i < SANDBOX_MAX_RANGES; i++)
        ck_assert_int_eq(sandbox_add_range(&s, &prog[i], 100, "x"), 0);
    ck_assert_int_eq(sandbox_add_range(&s, &prog[0], 100, "x"), -1); /* full */
    sandbox_guard_results(&s, 9, (uint64_t)(uintptr_t)&results_open, 4096, 512);
    s.refuse_truncating_open = 1; /* every rule at once */
    for (s.n_elders = 0; s.n_elders < SANDBOX_MAX_ELDERS; s.n_elders++)
        s.elders[s.n_elders] = 1000 + s.n_elders;
    for (s.n_threads = 0; s.n_threads < SANDBOX_MAX_THREADS; s.n_threads++)
        s.threads[s.n_threads] = 2000 + s.n_threads;
    int n = sandbox_build(&s, prog, BPF_MAXINSNS);
    ck_assert_int_gt(n, 40);
    ck_assert_int_le(n, BPF_MAXINSNS);
    ck_assert_int_eq(sandbox_build(&s, prog, 20), -1); /* too small: said, not overrun */
    /* and the kernel takes the longest filter */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char err[200];
        _exit(sandbox_install(&s, NULL, err, sizeof err) == 0 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the longest filter (%d instructions) "
                  "was refused: status 0x%x", n, st);
}
END_TEST

START_TEST(escape_hatch)
{
    unsetenv("CUDA_LABS_NO_SANDBOX");
    ck_assert_int_eq(sandbox_disabled(), 0);
    setenv("CUDA_LABS_NO_SANDBOX", "0", 1);
    ck_assert_int_eq(sandbox_disabled(), 0);
    setenv("CUDA_LABS_NO_SANDBOX", "1", 1);
    ck_assert_int_eq(sandbox_disabled(), 1);
    unsetenv("CUDA_LABS_NO_SANDBOX");
    char err[200];
    ck_assert_msg(sandbox_probe(err, sizeof err) == 0, "%s", err);
}
END_TEST

/* ---- the libraries a child loads: sealed copies, not the files ---------------- */

/* Student code runs in the grading children and may rename, replace or
 * rewrite any file its user may, the course's libraries beside the grader
 * included (which a child loads before its filter is on). The parent loads
 * nothing: it copies each library into a sealed memory file first, and the
 * children load the copy. */
START_TEST(children_load_sealed_copies)
{
    const char *src = "build/tests/policy/legit.so"; /* loads without a GPU */
    int in = open(src, O_RDONLY);
    ck_assert_msg(in >= 0, "%s is not built (make test builds it)", src);
    char tmp[] = "/tmp/cudalabs-snapshot-XXXXXX";
    int out = mkstemp(tmp);
    ck_assert_int_ge(out, 0);
    char buf[4096];
    for (ssize_t got; (got = read(in, buf, sizeof buf)) > 0;)
        ck_assert_int_eq(write(out, buf, (size_t)got), got);
    close(in);
    close(out);
    const char *load = library_snapshot(tmp);
    ck_assert_msg(strncmp(load, "/proc/self/fd/", 14) == 0, "no sealed copy: %s", load);
    ck_assert_str_eq(library_snapshot(tmp), load); /* one copy per file */
    /* The file rewritten in place: the copy keeps what was there. */
    out = open(tmp, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(out, 0);
    ck_assert_int_eq(write(out, "not a library", 13), 13);
    close(out);
    ck_assert_ptr_null(dlopen(tmp, RTLD_NOW | RTLD_LOCAL));
    void *lib = dlopen(load, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(lib != NULL, "%s", dlerror());
    ck_assert_ptr_nonnull(dlsym(lib, "legit_stage"));
    /* Named for its folder and file, as /proc/self/maps shows it. */
    char name[200], line[1024];
    snprintf(name, sizeof name, "/memfd:tmp-%s", tmp + 5);
    FILE *maps = fopen("/proc/self/maps", "r");
    ck_assert_ptr_nonnull(maps);
    int mapped = 0;
    while (!mapped && fgets(line, sizeof line, maps))
        mapped = strstr(line, name) != NULL;
    fclose(maps);
    ck_assert_msg(mapped, "no mapping of %s", name);
    /* Nobody can change the copy: every write is refused. */
    int rw = open(load, O_RDWR);
    ck_assert_int_ge(rw, 0);
    ck_assert_int_lt(pwrite(rw, "x", 1, 0), 0);
    ck_assert_int_eq(errno, EPERM);
    ck_assert_int_lt(ftruncate(rw, 0), 0);
    close(rw);
    /* A file that is not there gives its own path (the loader then says so). */
    ck_assert_str_eq(library_snapshot("/nonexistent/cudalabs.so"), "/nonexistent/cudalabs.so");
    unlink(tmp);
}
END_TEST

/* A course library that was not there when the copies were made is not
 * loaded when a file of that name appears later (a child could write one
 * for the children after it, which load the ceilings before their filter). */
START_TEST(libraries_that_appear_later_are_not_loaded)
{
    char exe[PATH_MAX], dir[PATH_MAX + 64], given[PATH_MAX + 128];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(len, 0);
    exe[len] = '\0';
    *strrchr(exe, '/') = '\0';
    snprintf(dir, sizeof dir, "%s/build/ceilings", exe); /* beside this test program */
    snprintf(given, sizeof given, "%s/lab99-given.so", dir);
    ck_assert_int_ne(access(given, F_OK), 0);
    ceiling_snapshot(99); /* devcheck, lab99 and lab99-given: none built */
    char cmd[PATH_MAX * 4];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && cp build/tests/policy/legit.so %s", dir, given);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_int_eq(given_built(99), 0);
    char err[512];
    ck_assert_ptr_null(given_open(99, err, sizeof err));
    ck_assert_msg(strstr(err, "is not built") != NULL, "%s", err);
    void *fn = NULL;
    const char *sym[] = {"legit_stage"};
    ck_assert_int_ne(ceiling_load("lab99-given", sym, &fn, 1, err, sizeof err), 0);
    ck_assert_ptr_null(fn);
    snprintf(cmd, sizeof cmd, "rm -f %s && rmdir %s %s/build 2>/dev/null; true", given, dir, exe);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- files (Landlock) ------------------------------------------------------- */

static char ll_dir[64];

static void *ll_thread_writes(void *arg)
{
    char path[128];
    snprintf(path, sizeof path, "%s/from-thread", ll_dir);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    *(int *)arg = fd >= 0;
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* What the CUDA driver does for each of its threads: 1 when the thread could
 * name itself through /proc/self/task/<tid>/comm. */
static void *ll_thread_names_itself(void *arg)
{
    char path[128];
    snprintf(path, sizeof path, "/proc/self/task/%ld/comm", (long)syscall(SYS_gettid));
    FILE *f = fopen(path, "wb");
    *(int *)arg = f && fputs("cuda-like", f) >= 0 && fclose(f) == 0;
    return NULL;
}

/* A bit for each call whose outcome is wrong: a change outside the writable
 * folder that went through, or an allowed write that failed. */
static unsigned ll_try_everything(int abi, int before_fd)
{
    char f[128], g[128], sub[128], ok[128], p[128];
    snprintf(f, sizeof f, "%s/course.so", ll_dir);
    snprintf(g, sizeof g, "%s/renamed.so", ll_dir);
    snprintf(sub, sizeof sub, "%s/sub", ll_dir);
    snprintf(ok, sizeof ok, "%s/ok/allowed.txt", ll_dir);
    unsigned bad = 0;
    int fd = open(f, O_WRONLY | O_APPEND);
    if (fd >= 0 || errno != EACCES)
        bad |= 1u << 0;
    fd = open(f, O_RDWR);
    if (fd >= 0)
        bad |= 1u << 1;
    if (abi >= 3 && truncate(f, 0) == 0)
        bad |= 1u << 2;
    snprintf(p, sizeof p, "%s/new.so", ll_dir);
    if (open(p, O_CREAT | O_WRONLY, 0600) >= 0)
        bad |= 1u << 3;
    if (unlink(f) == 0)
        bad |= 1u << 4;
    if (rename(f, g) == 0)
        bad |= 1u << 5;
    snprintf(p, sizeof p, "%s/newdir", ll_dir);
    if (mkdir(p, 0700) == 0)
        bad |= 1u << 6;
    if (rmdir(sub) == 0)
        bad |= 1u << 7;
    snprintf(p, sizeof p, "%s/link", ll_dir);
    if (symlink(f, p) == 0)
        bad |= 1u << 8;
    if (link(f, p) == 0)
        bad |= 1u << 9;
    if (mkfifo(p, 0600) == 0)
        bad |= 1u << 10;
    /* What must keep working: the writable folder, device files, reading,
     * and a descriptor opened before. */
    fd = open(ok, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    if (fd < 0 || write(fd, "x", 1) != 1)
        bad |= 1u << 11;
    if (fd >= 0)
        close(fd);
    fd = open("/dev/null", O_WRONLY | O_TRUNC);
    if (fd < 0 || write(fd, "x", 1) != 1)
        bad |= 1u << 12;
    if (fd >= 0)
        close(fd);
    /* /dev/shm only when named in writable (the probe names it where CUDA
     * needs it): a memory file system any later process of the machine sees. */
    snprintf(p, sizeof p, "/dev/shm/cudalabs-ll-%ld", (long)getpid());
    fd = open(p, O_CREAT | O_WRONLY, 0600);
    if (fd >= 0) {
        close(fd);
        unlink(p);
    }
    if (fd >= 0 || (errno != EACCES && errno != ENOENT))
        bad |= 1u << 19;
    /* Of /dev, only /dev/null and the GPU's files: not disks, not the rest. */
    fd = open("/dev/zero", O_WRONLY);
    if (fd >= 0 || errno != EACCES)
        bad |= 1u << 18;
    if (fd >= 0)
        close(fd);
    char buf[8];
    fd = open(f, O_RDONLY);
    if (fd < 0 || read(fd, buf, sizeof buf) != 6)
        bad |= 1u << 13;
    if (fd >= 0)
        close(fd);
    if (write(before_fd, "y", 1) != 1)
        bad |= 1u << 14;
    /* A thread started afterwards is bound too (so are CUDA's). */
    int made = 1;
    pthread_t t;
    if (pthread_create(&t, NULL, ll_thread_writes, &made) != 0 || pthread_join(t, NULL) != 0 ||
        made)
        bad |= 1u << 15;
    int named = 0;
    if (pthread_create(&t, NULL, ll_thread_names_itself, &named) != 0 ||
        pthread_join(t, NULL) != 0 || !named)
        bad |= 1u << 16;
    /* nor the rest of its own /proc folder: run as root, the child could
     * set the nice value of the grader's whole session there */
    fd = open("/proc/self/autogroup", O_WRONLY);
    if (fd >= 0)
        close(fd);
    if (fd >= 0 || (errno != EACCES && errno != ENOENT))
        bad |= 1u << 20;
    /* but only its own: not the parent's files in /proc */
    char parent[64];
    snprintf(parent, sizeof parent, "/proc/%ld/comm", (long)getppid());
    fd = open(parent, O_WRONLY);
    if (fd >= 0 || errno != EACCES)
        bad |= 1u << 17;
    return bad;
}

/* A grading child may not change files: the course's libraries, the
 * grader, the student's own sources. sandbox_restrict_files binds it, its
 * threads included, and leaves the folders it names (not /dev/shm unless
 * named), /dev/null and the GPU's files, and its own files in /proc/self
 * (which CUDA's driver writes). */
START_TEST(children_cannot_change_files)
{
    if (sandbox_files_abi() == 0) {
        test_skip("sandbox: this kernel has no Landlock");
        return;
    }
    snprintf(ll_dir, sizeof ll_dir, "/tmp/cudalabs-ll-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(ll_dir));
    char path[128];
    snprintf(path, sizeof path, "%s/course.so", ll_dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("course", f);
    fclose(f);
    snprintf(path, sizeof path, "%s/sub", ll_dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    char ok[128];
    snprintf(ok, sizeof ok, "%s/ok", ll_dir);
    ck_assert_int_eq(mkdir(ok, 0700), 0);
    snprintf(path, sizeof path, "%s/before.txt", ll_dir);
    int before = open(path, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(before, 0);
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const char *writable[] = {ok, NULL};
        char err[200];
        unsigned bad = 1u << 31;
        if (sandbox_restrict_files(writable, err, sizeof err) == 0)
            bad = ll_try_everything(sandbox_files_abi(), before);
        _exit(write(fds[1], &bad, sizeof bad) == sizeof bad ? 0 : 1);
    }
    close(fds[1]);
    close(before);
    unsigned bad = ~0u;
    ck_assert_int_eq(read(fds[0], &bad, sizeof bad), (ssize_t)sizeof bad);
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert_msg(bad == 0, "wrong outcomes, one bit per call in ll_try_everything: 0x%x", bad);
    /* And the files are as they were. */
    snprintf(path, sizeof path, "%s/course.so", ll_dir);
    char buf[16] = "";
    f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(buf, sizeof buf, f));
    fclose(f);
    ck_assert_str_eq(buf, "course");
    snprintf(path, sizeof path, "%s/before.txt", ll_dir);
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(sb.st_size, 1);
    ck_assert_int_eq(remove_tree(ll_dir), 0);
}
END_TEST

Suite *make_sandbox_suite(void)
{
    Suite *s = suite_create("sandbox");
    TCase *tc = tcase_create("sandbox");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, grader_is_full_relro);
    tcase_add_test(tc, children_load_sealed_copies);
    tcase_add_test(tc, libraries_that_appear_later_are_not_loaded);
    tcase_add_test(tc, got_is_read_only);
    tcase_add_test(tc, reader_tells_lazy_from_now);
    tcase_add_test(tc, refuses_the_adversarial_cases);
    tcase_add_test(tc, refuses_writable_grader_pages);
    tcase_add_test(tc, refuses_inline_syscall);
    tcase_add_test(tc, refuses_writing_the_results_file);
    tcase_add_test(tc, results_file_has_no_way_around);
    tcase_add_test(tc, results_file_cannot_be_reopened);
    tcase_add_test(tc, refuses_remapping_grader_pages);
    tcase_add_test(tc, refuses_processes);
    tcase_add_test(tc, refuses_other_processes);
    tcase_add_test(tc, refuses_other_abis);
    tcase_add_test(tc, refuses_i386_calls);
    tcase_add_test(tc, allows_what_stages_and_cuda_need);
    tcase_add_test(tc, closes_proc_self_mem);
    tcase_add_test(tc, filter_fits);
    tcase_add_test(tc, escape_hatch);
    tcase_add_test(tc, children_cannot_change_files);
    tcase_add_test(tc, refuses_truncating_opens);
    tcase_add_test(tc, closes_ways_around_the_rules);
    tcase_add_test(tc, closes_more_ways_around);
    tcase_add_test(tc, other_processes_are_refused_after_ids_wrap_around);
    tcase_add_test(tc, names_only_its_own_threads);
    tcase_add_test(tc, root_child_gives_up_its_capabilities);
    tcase_add_test(tc, root_threads_give_up_capabilities);
    suite_add_tcase(s, tc);
    return s;
}
