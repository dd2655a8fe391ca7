/* sandbox.c: the grading child's seccomp filter (sandbox.h).
 *
 * Why each refusal is safe for a legitimate stage, for CUDA and for Check:
 * - mprotect/pkey_mprotect to writable or executable, mmap or mremap with
 *   MAP_FIXED/MREMAP_FIXED, mremap, munmap and madvise(MADV_REMOVE), over the
 *   grader's executable image or the results page. The loader protects the
 *   executable's RELRO part at start-up (before the filter); afterwards
 *   nothing changes those
 *   pages: dlopen relocates and protects only the objects it loads, and the
 *   CUDA driver maps its own memory (device files, pinned and mapped host
 *   memory, UVA reservations), never over another object's image. The
 *   results page is written through a descriptor (results.h), never made
 *   writable. Read-only or PROT_NONE requests pass (harmless to the grader).
 * - Anonymous PROT_EXEC mappings are NOT refused: we could not prove on a
 *   GPU that the driver never makes one, and the dlopen of the lab library,
 *   of the ceiling libraries and of CUDA's own libraries (loaded lazily)
 *   needs file-backed PROT_EXEC mappings anyway.
 * - clone without CLONE_THREAD, fork, vfork, execve, execveat: the driver's
 *   and CUPTI's helper threads are clone(CLONE_THREAD | ...). glibc tries
 *   clone3 first, whose flags sit in memory BPF cannot read: clone3 fails
 *   with ENOSYS, and glibc falls back to clone. Check's fork mode forks in
 *   the parent, not in the test's child.
 * - ptrace, process_vm_readv, process_vm_writev: nothing in a grading child
 *   traces or reads another process. compute-sanitizer does, so the grader
 *   installs no filter under it (--under-sanitizer); `make profile` runs the
 *   stage with --profile-once, in a process that forks no grading child, so
 *   no filter there either.
 * - kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_open aimed at
 *   another process; tkill aimed at the grader or what started it;
 *   pidfd_send_signal. raise(), abort() and pthread_kill() signal this
 *   process (tgkill with its own pid). Making another process the owner of a
 *   descriptor's signals (fcntl F_SETOWN, ioctl FIOSETOWN), leaving the
 *   test's process group, and changing the limits, scheduling or memory
 *   placement of anything but this process's own threads fail with EPERM,
 *   counting another process (perf_event_open) with EACCES (guard_fcntl,
 *   guard_others).
 * - prctl(PR_SET_DUMPABLE, non-zero): undoing the non-dumpable state that
 *   closes /proc/self/mem and the parent's /proc/<pid>/mem.
 * - a system call of another ABI: x32 numbers and int 0x80 (i386) on x86_64.
 * - the results file's descriptor, other than the grader's own pwrite64 of
 *   the test's record (guard_results): neither CUDA nor Check knows that
 *   descriptor, so no call of theirs names it. io_uring, Linux AIO,
 *   userfaultfd, new sockets (but netlink's route protocol) and the calls
 *   that change a file's metadata (guard_metadata: mode, owner, times,
 *   extended attributes, inode flags; truncate by path; TIOCSTI, the
 *   terminal's settings, input and lines), the System V and POSIX message
 *   objects that outlive the process, and what only root may do to the
 *   machine (guard_around, guard_machine) fail with an error rather than a
 *   SIGSYS: nothing a stage or CUDA does in a grading child was
 *   seen to need them, and a library that tries one for its own reasons gets
 *   an error it can handle. Not proven on a GPU for every driver: a CUDA call
 *   that needed one of them would fail with that error.
 *
 * What the filter cannot stop: it knows the grader's write by the address of
 * its syscall instruction, so a library that jumps to that instruction with
 * registers of its own writes its own test's record (only that one, of that
 * size), and a library can change the grader's private copy of the record
 * before the grader writes it (handouts/instructors.md says so).
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef SHM_REMAP
#define SHM_REMAP 040000
#endif
/* Newer than some C libraries' headers; numbers from 424 on are the same on
 * every architecture. */
#ifndef __NR_io_pgetevents
#define __NR_io_pgetevents 333
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat 463
#endif

/* What a refusal says; the filter's SECCOMP_RET_DATA is rule * 16 + range. */
enum rule {
    R_NONE = 0,
    R_PROTECT,  /* mprotect to W or X over a guarded range */
    R_MAP_OVER, /* MAP_FIXED / MREMAP_FIXED over a guarded range */
    R_MOVE,     /* mremap or munmap of a guarded range */
    R_DISCARD,  /* madvise(MADV_REMOVE) over a guarded range */
    R_SHM_OVER,
    R_PROCESS,
    R_EXEC,
    R_TRACE,
    R_SIGNAL,
    R_DUMPABLE,
    R_ABI,
    R_RESULTS, /* the results file's descriptor, other than by the grader's own write */
    R_FD_COPY, /* pidfd_getfd */
};

/* ---- building the filter -------------------------------------------------- */

#define MAX_LABELS 1024

typedef struct builder {
    struct sock_filter *p;
    int n, cap, overflow;
    int label_at[MAX_LABELS];
    int n_labels;
    /* Jumps to labels, patched by resolve: index of the instruction, and
     * whether jt (1) or jf (0) holds the label. */
    struct {
        int at, label, is_jt;
    } fix[4096];
    int n_fix;
} builder;

#define ARG_LO(i) ((uint32_t)(offsetof(struct seccomp_data, args) + 8 * (i)))
#define ARG_HI(i) (ARG_LO(i) + 4)
#define IP_LO ((uint32_t)offsetof(struct seccomp_data, instruction_pointer))
#define IP_HI (IP_LO + 4)
#define NO_LABEL -1

static void emit(builder *b, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
    if (b->n >= b->cap) {
        b->overflow = 1;
        return;
    }
    b->p[b->n++] = (struct sock_filter){code, jt, jf, k};
}

static int new_label(builder *b)
{
    if (b->n_labels >= MAX_LABELS) {
        b->overflow = 1;
        return 0;
    }
    b->label_at[b->n_labels] = -1;
    return b->n_labels++;
}

static void place(builder *b, int label)
{
    b->label_at[label] = b->n;
}

static void fixup(builder *b, int at, int label, int is_jt)
{
    if (label == NO_LABEL)
        return;
    if (b->n_fix >= (int)(sizeof b->fix / sizeof b->fix[0])) {
        b->overflow = 1;
        return;
    }
    b->fix[b->n_fix].at = at;
    b->fix[b->n_fix].label = label;
    b->fix[b->n_fix++].is_jt = is_jt;
}

/* A conditional jump: to label t when true, to f when false; NO_LABEL for
 * either means the next instruction. */
static void jump(builder *b, uint16_t op, uint32_t k, int t, int f)
{
    int at = b->n;
    emit(b, BPF_JMP | op | BPF_K, 0, 0, k);
    fixup(b, at, t, 1);
    fixup(b, at, f, 0);
}

static void jump_x(builder *b, uint16_t op, int t, int f)
{
    int at = b->n;
    emit(b, BPF_JMP | op | BPF_X, 0, 0, 0);
    fixup(b, at, t, 1);
    fixup(b, at, f, 0);
}

static void resolve(builder *b)
{
    for (int i = 0; i < b->n_fix && !b->overflow; i++) {
        int at = b->fix[i].at, to = b->label_at[b->fix[i].label];
        int off = to - (at + 1);
        if (to < 0 || off < 0 || off > 255) {
            b->overflow = 1;
            return;
        }
        if (b->fix[i].is_jt)
            b->p[at].jt = (uint8_t)off;
        else
            b->p[at].jf = (uint8_t)off;
    }
}

static void load(builder *b, uint32_t off)
{
    emit(b, BPF_LD | BPF_W | BPF_ABS, 0, 0, off);
}

static void ret(builder *b, uint32_t action)
{
    emit(b, BPF_RET | BPF_K, 0, 0, action);
}

static uint32_t trap(int rule, int range)
{
    return SECCOMP_RET_TRAP | (uint32_t)(rule * 16 + range);
}

/* Jumps to yes when the 64-bit argument a is above c (or at least c, when
 * or_equal), else to no. */
static void arg_above(builder *b, int a, uint64_t c, int or_equal, int yes, int no)
{
    int low = new_label(b), after = NO_LABEL;
    if (no == NO_LABEL) /* "no" falls through to what follows, not to the low word */
        no = after = new_label(b);
    load(b, ARG_HI(a));
    jump(b, BPF_JGT, (uint32_t)(c >> 32), yes, NO_LABEL);
    jump(b, BPF_JEQ, (uint32_t)(c >> 32), low, no);
    place(b, low);
    load(b, ARG_LO(a));
    jump(b, or_equal ? BPF_JGE : BPF_JGT, (uint32_t)c, yes, no);
    if (after != NO_LABEL)
        place(b, after);
}

/* Traps with (rule, range) when [args[a], args[a] + args[l]) meets one of the
 * guarded ranges, or when args[a] lies inside one (so a length of 0 counts);
 * else falls through. The sum is kept in M[0] (low) and M[1] (high). */
static void guard_ranges(builder *b, const sandbox_spec *s, int a, int l, int rule)
{
    for (int r = 0; r < s->n_ranges; r++) {
        const uint64_t lo = s->ranges[r].lo, hi = s->ranges[r].hi;
        int hit = new_label(b), below_hi = new_label(b), next = new_label(b);
        int carry = new_label(b), sum_hi = new_label(b), sum_low = new_label(b);
        /* args[a] >= hi: nothing of the range is touched. */
        arg_above(b, a, hi, 1, next, below_hi);
        place(b, below_hi);
        /* args[a] >= lo (and below hi): inside. */
        arg_above(b, a, lo, 1, hit, NO_LABEL);
        /* Below lo: does args[a] + args[l] reach past lo? */
        load(b, ARG_LO(a));
        emit(b, BPF_MISC | BPF_TAX, 0, 0, 0);
        load(b, ARG_LO(l));
        emit(b, BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0);
        emit(b, BPF_ST, 0, 0, 0);
        emit(b, BPF_LD | BPF_IMM, 0, 0, 0);
        emit(b, BPF_ST, 0, 0, 1);
        emit(b, BPF_LD | BPF_MEM, 0, 0, 0);
        jump_x(b, BPF_JGE, sum_hi, carry); /* low sum >= low of args[a]: no carry */
        place(b, carry);
        emit(b, BPF_LD | BPF_IMM, 0, 0, 1);
        emit(b, BPF_ST, 0, 0, 1);
        place(b, sum_hi);
        load(b, ARG_HI(a));
        emit(b, BPF_MISC | BPF_TAX, 0, 0, 0);
        load(b, ARG_HI(l));
        emit(b, BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0);
        emit(b, BPF_MISC | BPF_TAX, 0, 0, 0);
        emit(b, BPF_LD | BPF_MEM, 0, 0, 1);
        emit(b, BPF_ALU | BPF_ADD | BPF_X, 0, 0, 0);
        emit(b, BPF_ST, 0, 0, 1);
        /* (M[1]:M[0]) > lo */
        jump(b, BPF_JGT, (uint32_t)(lo >> 32), hit, NO_LABEL);
        jump(b, BPF_JEQ, (uint32_t)(lo >> 32), sum_low, next);
        place(b, sum_low);
        emit(b, BPF_LD | BPF_MEM, 0, 0, 0);
        jump(b, BPF_JGT, (uint32_t)lo, hit, next);
        place(b, hit);
        ret(b, trap(rule, r));
        place(b, next);
    }
}

/* One block per system call: "if nr == number: <block>", the block ending in
 * a return. The dispatch jumps over it with BPF_JA, so a block may be long. */
static int block_begin(builder *b, long nr)
{
    int skip = b->n + 1;
    emit(b, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, (uint32_t)nr);
    emit(b, BPF_JMP | BPF_JA, 0, 0, 0); /* patched by block_end */
    return skip;
}

static void block_end(builder *b, int skip)
{
    if (!b->overflow)
        b->p[skip].k = (uint32_t)(b->n - (skip + 1));
}

/* Call nr's block: when its argument a matches k (op BPF_JSET: has one of
 * its bits; BPF_JEQ: is k), the memory it names (arguments 0 and 1) may not
 * touch a guarded range (else rule's refusal); otherwise it is allowed. */
static void guard_ranges_when(builder *b, const sandbox_spec *s, long nr, int a, uint16_t op,
                              uint32_t k, int rule)
{
    int skip = block_begin(b, nr);
    int check = new_label(b);
    load(b, ARG_LO(a));
    jump(b, op, k, check, NO_LABEL);
    ret(b, SECCOMP_RET_ALLOW);
    place(b, check);
    guard_ranges(b, s, 0, 1, rule);
    ret(b, SECCOMP_RET_ALLOW);
    block_end(b, skip);
}

static void refuse(builder *b, long nr, int rule)
{
    emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (uint32_t)nr);
    ret(b, trap(rule, 0));
}

/* nr allowed when argument a is value, value2 or value3; else the action
 * refusal (a trap, or an error). */
static void allow_only_arg(builder *b, long nr, int a, uint32_t value, uint32_t value2,
                           uint32_t value3, uint32_t refusal)
{
    int skip = block_begin(b, nr);
    int ok = new_label(b);
    load(b, ARG_LO(a));
    jump(b, BPF_JEQ, value, ok, NO_LABEL);
    jump(b, BPF_JEQ, value2, ok, NO_LABEL);
    jump(b, BPF_JEQ, value3, ok, NO_LABEL);
    ret(b, refusal);
    place(b, ok);
    ret(b, SECCOMP_RET_ALLOW);
    block_end(b, skip);
}

/* Falls through when the 64-bit value at off (of seccomp_data) is v, else
 * jumps to no. */
static void require64(builder *b, uint32_t off, uint64_t v, int no)
{
    load(b, off);
    jump(b, BPF_JEQ, (uint32_t)v, NO_LABEL, no);
    load(b, off + 4);
    jump(b, BPF_JEQ, (uint32_t)(v >> 32), NO_LABEL, no);
}

/* nr refused (rule R_RESULTS) when argument a, or b2 (>= 0), is the results
 * file's descriptor. The kernel reads a descriptor as 32 bits: only the low
 * word counts. */
static void refuse_on_fd(builder *b, long nr, int a, int b2, uint32_t fd)
{
    int skip = block_begin(b, nr);
    int hit = new_label(b);
    load(b, ARG_LO(a));
    jump(b, BPF_JEQ, fd, hit, NO_LABEL);
    if (b2 >= 0) {
        load(b, ARG_LO(b2));
        jump(b, BPF_JEQ, fd, hit, NO_LABEL);
    }
    ret(b, SECCOMP_RET_ALLOW);
    place(b, hit);
    ret(b, trap(R_RESULTS, 0));
    block_end(b, skip);
}

static void fail_with(builder *b, long nr, int err)
{
    emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (uint32_t)nr);
    ret(b, SECCOMP_RET_ERRNO | (uint32_t)err);
}

/* The results file (sandbox_guard_results). Its descriptor is written by
 * one pwrite64 from the grader's stub, of the test's own record; every other
 * way to write it, or to get a second descriptor of it, is closed:
 * - the other writing calls, mmap of it, and sendfile, splice, tee and
 *   copy_file_range into it: refused;
 * - dup, dup2, dup3, every fcntl of it but F_GETFD and F_GETFL (F_DUPFD copies
 *   it; F_SETFL's O_APPEND would stay set for every later test: guard_fcntl),
 *   dup2/dup3 over it, close and
 *   close_range of it, fchmod of it, pidfd_getfd (which copies any
 *   descriptor): refused;
 * - io_uring (its writes never pass the filter), userfaultfd: ENOSYS
 *   (guard_around, in every filter);
 * - reopening it through /proc/self/fd: the file has mode 0 (results.c), and
 *   chmod, fchmodat and setting extended attributes (ACLs) fail with EPERM,
 *   so that no one but root can open it again;
 * - passing it to itself over a UNIX socket (SCM_RIGHTS): new sockets fail
 *   (guard_around, in every filter). */
static void guard_results(builder *b, const sandbox_spec *s)
{
    const uint32_t fd = (uint32_t)s->results_fd;
    {
        int skip = block_begin(b, SYS_pwrite64);
        int ok = new_label(b), bad = new_label(b);
        load(b, ARG_LO(0));
        jump(b, BPF_JEQ, fd, NO_LABEL, ok);
        require64(b, IP_LO, s->results_ip, bad);
        require64(b, ARG_LO(3), s->results_offset, bad);
        require64(b, ARG_LO(2), s->results_bytes, bad);
        place(b, ok);
        ret(b, SECCOMP_RET_ALLOW);
        place(b, bad);
        ret(b, trap(R_RESULTS, 0));
        block_end(b, skip);
    }
    static const long writes[] = {SYS_write, SYS_writev, SYS_pwritev, SYS_pwritev2,
                                  SYS_ftruncate, SYS_fallocate, SYS_dup, SYS_close,
                                  SYS_sendfile};
    for (size_t i = 0; i < sizeof writes / sizeof writes[0]; i++)
        refuse_on_fd(b, writes[i], 0, -1, fd);
    {
        /* fchmod: of the results file refused, of any other file EPERM
         * (guard_metadata) */
        int skip = block_begin(b, SYS_fchmod);
        int other = new_label(b);
        load(b, ARG_LO(0));
        jump(b, BPF_JEQ, fd, NO_LABEL, other);
        ret(b, trap(R_RESULTS, 0));
        place(b, other);
        ret(b, SECCOMP_RET_ERRNO | EPERM);
        block_end(b, skip);
    }
#ifdef SYS_dup2
    refuse_on_fd(b, SYS_dup2, 0, 1, fd);
#endif
    refuse_on_fd(b, SYS_dup3, 0, 1, fd);
    refuse_on_fd(b, SYS_splice, 2, -1, fd);
    refuse_on_fd(b, SYS_copy_file_range, 2, -1, fd);
    refuse_on_fd(b, SYS_tee, 1, -1, fd);
    {
        /* close_range(first, last, flags) with first <= fd <= last */
        int skip = block_begin(b, SYS_close_range);
        int ok = new_label(b);
        load(b, ARG_LO(0));
        jump(b, BPF_JGT, fd, ok, NO_LABEL);
        load(b, ARG_LO(1));
        jump(b, BPF_JGE, fd, NO_LABEL, ok);
        ret(b, trap(R_RESULTS, 0));
        place(b, ok);
        ret(b, SECCOMP_RET_ALLOW);
        block_end(b, skip);
    }
    refuse(b, SYS_pidfd_getfd, R_FD_COPY);
}

/* What Landlock (sandbox_restrict_files) does not cover: a file's mode,
 * owner, times, extended attributes (ACLs) and inode flags, which a
 * descriptor opened only for reading, or a path, can change. They fail with
 * EPERM: making the course's files writable to everyone, or an earlier
 * timestamp that fools make, needs no write. So do truncate() of a path
 * (Landlock covers truncation only from ABI 3, Linux 6.2; before that an open
 * with O_TRUNC still empties a file, instructors.md says so) and the terminal ioctls that push
 * input into the terminal the grader was started from (TIOCSTI), which the
 * shell would run after the grader ends. Nothing a stage or CUDA does in a
 * grading child needs them; the results file's fchmod is refused
 * (guard_results) before this. */
#ifndef FS_IOC_SETFLAGS
#define FS_IOC_SETFLAGS 0x40086602u
#endif
#ifndef FS_IOC32_SETFLAGS
#define FS_IOC32_SETFLAGS 0x40046602u
#endif
#ifndef FS_IOC_FSSETXATTR
#define FS_IOC_FSSETXATTR 0x401c5820u
#endif
#ifndef __NR_removexattrat
#define __NR_removexattrat 466
#endif
#define SANDBOX_TIOCSTI 0x5412u
#define SANDBOX_TIOCLINUX 0x541Cu

static void guard_metadata(builder *b)
{
    static const long calls[] = {
#ifdef SYS_chmod
        SYS_chmod,
#endif
#ifdef SYS_chown
        SYS_chown,
#endif
#ifdef SYS_lchown
        SYS_lchown,
#endif
#ifdef SYS_utime
        SYS_utime,
#endif
#ifdef SYS_utimes
        SYS_utimes,
#endif
#ifdef SYS_futimesat
        SYS_futimesat,
#endif
        SYS_fchmod, SYS_fchmodat, __NR_fchmodat2, SYS_fchown, SYS_fchownat, SYS_utimensat,
        SYS_setxattr, SYS_lsetxattr, SYS_fsetxattr, __NR_setxattrat, SYS_removexattr,
        SYS_lremovexattr, SYS_fremovexattr, __NR_removexattrat, SYS_truncate,
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        fail_with(b, calls[i], EPERM);
    /* ioctl's request is an unsigned int: the low word. */
    int skip = block_begin(b, SYS_ioctl);
    int no = new_label(b);
    load(b, ARG_LO(1));
    static const uint32_t requests[] = {
        SANDBOX_TIOCSTI, SANDBOX_TIOCLINUX, FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR,
        /* a terminal's settings, owner and lines, which stay after the
         * grader ends: TCSETS, TCSETSW, TCSETSF, TCSETA, TCSETAW, TCSETAF,
         * TCXONC, TIOCEXCL, TIOCSCTTY, TIOCSPGRP, TIOCSWINSZ, TIOCCONS,
         * TIOCSETD, TIOCVHANGUP, TCSETS2, TCSETSW2, TCSETSF2; and what
         * throws away its input or output or drives its lines: TCFLSH,
         * TCSBRK, TCSBRKP, TIOCSBRK, TIOCCBRK, TIOCMBIS, TIOCMBIC, TIOCMSET,
         * TIOCSSERIAL */
        0x5402u, 0x5403u, 0x5404u, 0x5406u, 0x5407u, 0x5408u, 0x540Au, 0x540Cu, 0x540Eu,
        0x5410u, 0x5414u, 0x541Du, 0x5423u, 0x5437u, 0x402C542Bu, 0x402C542Cu, 0x402C542Du,
        0x540Bu, 0x5409u, 0x5425u, 0x5427u, 0x5428u, 0x5416u, 0x5417u, 0x5418u, 0x541Fu,
        /* whom a descriptor's signals go to, as fcntl's F_SETOWN
         * (guard_fcntl): FIOSETOWN, SIOCSPGRP, and FIOASYNC */
        0x8901u, 0x8902u, 0x5452u};
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++)
        jump(b, BPF_JEQ, requests[i], no, NO_LABEL);
    ret(b, SECCOMP_RET_ALLOW);
    place(b, no);
    ret(b, SECCOMP_RET_ERRNO | EPERM);
    block_end(b, skip);
}

#ifndef __NR_openat2
#define __NR_openat2 437
#endif

/* Where Landlock is older than ABI 3 (Linux 6.2) its rules do not cover
 * truncation: an open with O_TRUNC empties a file the user may write even
 * where the rules allow reading it only, when the open asks for no write
 * access (O_RDONLY, or access mode 3, which asks for neither); an open for
 * writing is Landlock's to refuse, and is left to it (so fopen(..., "w") of
 * /dev/null works). So, only there, such an open fails with EPERM; openat2,
 * whose flags the filter cannot read (they are in memory), fails with ENOSYS,
 * so that a caller falls back to openat. */
static void guard_truncation(builder *b)
{
    static const struct {
        long nr;
        int flags;
    } opens[] = {
#ifdef SYS_open
        {SYS_open, 1},
#endif
        {SYS_openat, 2},
    };
    for (size_t i = 0; i < sizeof opens / sizeof opens[0]; i++) {
        int skip = block_begin(b, opens[i].nr);
        int check = new_label(b), ok = new_label(b);
        load(b, ARG_LO(opens[i].flags));
        jump(b, BPF_JSET, O_TRUNC, check, ok);
        place(b, check);
        emit(b, BPF_ALU | BPF_AND | BPF_K, 0, 0, O_ACCMODE);
        jump(b, BPF_JEQ, O_WRONLY, ok, NO_LABEL);
        jump(b, BPF_JEQ, O_RDWR, ok, NO_LABEL);
        ret(b, SECCOMP_RET_ERRNO | EPERM);
        place(b, ok);
        ret(b, SECCOMP_RET_ALLOW);
        block_end(b, skip);
    }
    fail_with(b, __NR_openat2, ENOSYS);
}

#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443
#endif
#ifndef F_SETOWN_EX
#define F_SETOWN_EX 15
#endif
#ifndef F_SETSIG
#define F_SETSIG 10
#endif

/* fcntl: F_SETOWN, F_SETOWN_EX and F_SETSIG fail with EPERM for every
 * descriptor (an owner is the process that gets the descriptor's signal,
 * SIGIO or any other: the grader, or a whole process group), and so does
 * F_SETFL with O_ASYNC: on a terminal that makes its foreground group, the
 * grader's and the shell's, the owner, on an open file they share, and the
 * next line typed kills them with SIGIO. Of the results file only F_GETFD
 * and F_GETFL are allowed (guard_results). */
static void guard_fcntl(builder *b, const sandbox_spec *s)
{
    int skip = block_begin(b, SYS_fcntl);
    int ok = new_label(b), no = new_label(b), setfl = new_label(b), rest = new_label(b);
    load(b, ARG_LO(1));
    jump(b, BPF_JEQ, F_SETOWN, no, NO_LABEL);
    jump(b, BPF_JEQ, F_SETOWN_EX, no, NO_LABEL);
    jump(b, BPF_JEQ, F_SETSIG, no, NO_LABEL);
    jump(b, BPF_JEQ, F_SETFL, setfl, rest);
    place(b, setfl);
    load(b, ARG_LO(2));
    jump(b, BPF_JSET, O_ASYNC, no, rest);
    place(b, rest);
    if (s->results_fd >= 0) {
        int hit = new_label(b);
        load(b, ARG_LO(0));
        jump(b, BPF_JEQ, (uint32_t)s->results_fd, NO_LABEL, ok);
        load(b, ARG_LO(1)); /* only reading its flags: F_SETFL's O_APPEND would stay */
        jump(b, BPF_JEQ, F_GETFD, ok, NO_LABEL); /* set for every later test */
        jump(b, BPF_JEQ, F_GETFL, ok, hit);
        place(b, hit);
        ret(b, trap(R_RESULTS, 0));
    }
    place(b, ok);
    ret(b, SECCOMP_RET_ALLOW);
    place(b, no);
    ret(b, SECCOMP_RET_ERRNO | EPERM);
    block_end(b, skip);
}

/* Jumps to no when the loaded id is one of this process's elders (the
 * grader and what started it), else falls through. */
static void not_an_elder(builder *b, const sandbox_spec *s, int no)
{
    for (int i = 0; i < s->n_elders; i++)
        jump(b, BPF_JEQ, (uint32_t)s->elders[i], no, NO_LABEL);
}

/* Falls through when the loaded id is 0 (the caller), this process or one
 * of the threads it had when the spec was made, else jumps to no. */
static void own_thread_or(builder *b, const sandbox_spec *s, int no)
{
    int ok = new_label(b);
    jump(b, BPF_JEQ, 0, ok, NO_LABEL);
    for (int i = 0; i < s->n_threads; i++)
        jump(b, BPF_JEQ, (uint32_t)s->threads[i], ok, NO_LABEL);
    jump(b, BPF_JEQ, (uint32_t)s->self, ok, no);
    place(b, ok);
}

/* Calls that name a process or thread by its id, where only this process
 * may be meant: allowed for 0, this process and its threads (those it had
 * when the filter was made: the grader's, CUDA's), else EPERM. An id is all
 * the filter sees, so a rule by range (every id from this process's on)
 * would also let in a process started after it, such as another student's
 * test process beside it, and, once process ids wrap around, older ones. A
 * thread started later names itself with 0. Else the error err. */
static void only_own_threads(builder *b, long nr, int a, const sandbox_spec *s, uint32_t err)
{
    int skip = block_begin(b, nr);
    int no = new_label(b);
    load(b, ARG_LO(a));
    own_thread_or(b, s, no);
    ret(b, SECCOMP_RET_ALLOW);
    place(b, no);
    ret(b, SECCOMP_RET_ERRNO | err);
    block_end(b, skip);
}

/* The same for setpriority and ioprio_set, which also take whom: one
 * process (PRIO_PROCESS, IOPRIO_WHO_PROCESS) only, not a group or a user. */
static void only_own_threads_process(builder *b, long nr, uint32_t which_process,
                                     const sandbox_spec *s)
{
    int skip = block_begin(b, nr);
    int no = new_label(b);
    load(b, ARG_LO(0));
    jump(b, BPF_JEQ, which_process, NO_LABEL, no);
    load(b, ARG_LO(1));
    own_thread_or(b, s, no);
    ret(b, SECCOMP_RET_ALLOW);
    place(b, no);
    ret(b, SECCOMP_RET_ERRNO | EPERM);
    block_end(b, skip);
}

/* Other processes of the same user, which the kernel lets a process change:
 * their limits (prlimit64: a limit of one process for the grader stops its
 * next fork), CPUs, scheduling, nice value and I/O priority: refused as
 * above, since every later test's child inherits the grader's. And leaving
 * the test's process group (setpgid into the grader's, setsid), which would
 * let the child outlive the test's time limit and then kill(0) the grader's
 * group: EPERM (Check makes the group before the filter). */
static void guard_others(builder *b, const sandbox_spec *s)
{
    static const struct {
        long nr;
        int a;
    } by_id[] = {
        {SYS_sched_setaffinity, 0}, {SYS_sched_setscheduler, 0},
        {SYS_sched_setparam, 0},    {SYS_sched_setattr, 0},     {SYS_migrate_pages, 0},
        {SYS_move_pages, 0},
    };
    for (size_t i = 0; i < sizeof by_id / sizeof by_id[0]; i++)
        only_own_threads(b, by_id[i].nr, by_id[i].a, s, EPERM);
    /* Limits belong to a whole process, so prlimit64 needs no thread id:
     * 0 or this process only (a thread id of the grader's would reach its
     * limits too). */
    allow_only_arg(b, SYS_prlimit64, 0, 0, (uint32_t)s->self, (uint32_t)s->self,
                   SECCOMP_RET_ERRNO | EPERM);
    /* perf_event_open on another process would read its registers and
     * stack (where ptrace's rules let it); on this process's own threads
     * (0, or their ids) it is a profiler's, else EACCES. */
    only_own_threads(b, SYS_perf_event_open, 1, s, EACCES);
    only_own_threads_process(b, SYS_setpriority, 0 /* PRIO_PROCESS */, s);
    only_own_threads_process(b, SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, s);
    fail_with(b, SYS_setpgid, EPERM);
    fail_with(b, SYS_setsid, EPERM);
}

/* What only root may do, to the machine rather than to this process: mount
 * and namespaces, kernel modules, rebooting, swap, the clocks, keyrings
 * (which outlive the process), eBPF, the hostname, process accounting, the
 * kernel's log, I/O ports. No stage and nothing of CUDA's in a grading child
 * does any of it. EPERM for every user: some of them (keyrings, unshare,
 * fanotify, reading the kernel's log or the clock's adjustment) are open to
 * an ordinary user too. */
static void guard_machine(builder *b)
{
    static const long calls[] = {
        SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_unshare, SYS_setns,
        SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_kexec_load, SYS_reboot,
        SYS_swapon, SYS_swapoff, SYS_settimeofday, SYS_clock_settime, SYS_clock_adjtime,
        SYS_adjtimex, SYS_add_key, SYS_request_key, SYS_keyctl, SYS_bpf, SYS_sethostname,
        SYS_setdomainname, SYS_acct, SYS_quotactl, SYS_syslog,
#ifdef SYS_kexec_file_load
        SYS_kexec_file_load,
#endif
#ifdef SYS_iopl
        SYS_iopl,
#endif
#ifdef SYS_ioperm
        SYS_ioperm,
#endif
#ifdef SYS_fsopen
        SYS_fsopen, SYS_fsmount, SYS_move_mount, SYS_open_tree, SYS_fspick, SYS_fsconfig,
#endif
#ifdef SYS_mount_setattr
        SYS_mount_setattr,
#endif
        __NR_quotactl_fd, SYS_fanotify_init,
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        fail_with(b, calls[i], EPERM);
}

/* Ways around the other rules, in every filter: io_uring, whose operations
 * (open with O_TRUNC, write, set extended attributes) never pass the filter,
 * Linux AIO (the same for writes) and userfaultfd fail with ENOSYS;
 * open_by_handle_at, whose flags the truncation rule would have to read too,
 * with EPERM (it needs
 * CAP_DAC_READ_SEARCH: only a grader run as root could use it). So do the
 * System V objects, shared memory segments, semaphore sets and message
 * queues, and POSIX message queues (mq_open makes the queue even where
 * Landlock then refuses to open it): they outlive the process, and a
 * segment holds memory for every later student until someone removes it
 * (what Landlock does for /dev/shm; no stage and nothing of CUDA's in a
 * grading child makes one).
 * New sockets, and pairs of them, fail with EACCES, but for netlink's route
 * protocol (the machine's network interfaces, as getifaddrs reads them; it
 * carries no descriptors, and changing anything needs a capability): other
 * netlink protocols reach other processes (NETLINK_USERSOCK is a channel to
 * any local process that listens) or watch the machine's (the connector's
 * fork and exit events). A UNIX socket could pass the results file's
 * descriptor back to the process under a number the filter does not know
 * (SCM_RIGHTS), and a network socket could send the graded inputs out, or
 * fetch answers, from wherever the machine can reach. CUDA connects to what it needs (an MPS
 * server) when it starts, before the filter is installed. */
static void guard_around(builder *b)
{
    {
        int skip = block_begin(b, SYS_socket);
        int no = new_label(b);
        load(b, ARG_LO(0));
        jump(b, BPF_JEQ, AF_NETLINK, NO_LABEL, no);
        load(b, ARG_LO(2));
        jump(b, BPF_JEQ, 0 /* NETLINK_ROUTE */, NO_LABEL, no);
        ret(b, SECCOMP_RET_ALLOW);
        place(b, no);
        ret(b, SECCOMP_RET_ERRNO | EACCES);
        block_end(b, skip);
    }
    fail_with(b, SYS_socketpair, EACCES);
    fail_with(b, SYS_io_uring_setup, ENOSYS);
    fail_with(b, SYS_io_uring_enter, ENOSYS);
    fail_with(b, SYS_io_uring_register, ENOSYS);
    fail_with(b, SYS_userfaultfd, ENOSYS);
    /* Linux AIO: io_submit's writes name their descriptor in memory the
     * filter cannot read, so it could write the results file */
    static const long aio[] = {SYS_io_setup,     SYS_io_submit, SYS_io_getevents,
                               __NR_io_pgetevents, SYS_io_cancel, SYS_io_destroy};
    for (size_t i = 0; i < sizeof aio / sizeof aio[0]; i++)
        fail_with(b, aio[i], ENOSYS);
    static const long calls[] = {SYS_open_by_handle_at, SYS_shmget,         SYS_semget,
                                 SYS_msgget,            SYS_mq_open,        SYS_mq_unlink,
                                 SYS_mq_timedsend,      SYS_mq_timedreceive, SYS_mq_notify,
                                 SYS_mq_getsetattr};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
        fail_with(b, calls[i], EPERM);
}

int sandbox_build(const sandbox_spec *s, struct sock_filter *prog, int cap)
{
#ifndef SANDBOX_ARCH
    (void)s;
    (void)prog;
    (void)cap;
    return -1;
#else
    builder b;
    memset(&b, 0, sizeof b);
    b.p = prog;
    b.cap = cap;
    const uint32_t self = (uint32_t)s->self;

    /* Another ABI: its numbers mean other calls. */
    load(&b, offsetof(struct seccomp_data, arch));
    emit(&b, BPF_JMP | BPF_JEQ | BPF_K, 1, 0, SANDBOX_ARCH);
    ret(&b, trap(R_ABI, 0));
    load(&b, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
    emit(&b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, 0x40000000u); /* __X32_SYSCALL_BIT */
    ret(&b, trap(R_ABI, 0));
#endif

    /* Memory: the grader's image and its results page stay as they are. */
    static const long protects[] = {SYS_mprotect,
#ifdef SYS_pkey_mprotect
                                    SYS_pkey_mprotect
#endif
    };
    for (size_t i = 0; i < sizeof protects / sizeof protects[0]; i++)
        guard_ranges_when(&b, s, protects[i], 2, BPF_JSET, PROT_WRITE | PROT_EXEC, R_PROTECT);
    {
        int skip = block_begin(&b, SYS_mmap);
        int check = new_label(&b);
        if (s->results_fd >= 0) { /* a mapping of the results file, even read-only */
            int anonymous = new_label(&b);
            load(&b, ARG_LO(3));
            jump(&b, BPF_JSET, MAP_ANONYMOUS, anonymous, NO_LABEL);
            load(&b, ARG_LO(4));
            emit(&b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (uint32_t)s->results_fd);
            ret(&b, trap(R_RESULTS, 0));
            place(&b, anonymous);
        }
        load(&b, ARG_LO(3));
        jump(&b, BPF_JSET, MAP_FIXED, check, NO_LABEL);
        ret(&b, SECCOMP_RET_ALLOW);
        place(&b, check);
        guard_ranges(&b, s, 0, 1, R_MAP_OVER);
        ret(&b, SECCOMP_RET_ALLOW);
        block_end(&b, skip);
    }
    {
        int skip = block_begin(&b, SYS_mremap);
        int check = new_label(&b);
        guard_ranges(&b, s, 0, 1, R_MOVE); /* the old range, even of length 0 */
        load(&b, ARG_LO(3));
        jump(&b, BPF_JSET, MREMAP_FIXED, check, NO_LABEL);
        ret(&b, SECCOMP_RET_ALLOW);
        place(&b, check);
        guard_ranges(&b, s, 4, 2, R_MAP_OVER);
        ret(&b, SECCOMP_RET_ALLOW);
        block_end(&b, skip);
    }
    {
        int skip = block_begin(&b, SYS_munmap);
        guard_ranges(&b, s, 0, 1, R_MOVE);
        ret(&b, SECCOMP_RET_ALLOW);
        block_end(&b, skip);
    }
    /* MADV_REMOVE frees a shared mapping's file blocks, read-only or not,
     * as long as the file was opened for writing: over the results page it
     * would wipe every record. */
    guard_ranges_when(&b, s, SYS_madvise, 2, BPF_JEQ, MADV_REMOVE, R_DISCARD);
#ifdef SYS_shmat
    {
        int skip = block_begin(&b, SYS_shmat);
        int no = new_label(&b);
        load(&b, ARG_LO(2));
        jump(&b, BPF_JSET, SHM_REMAP, NO_LABEL, no);
        ret(&b, trap(R_SHM_OVER, 0));
        place(&b, no);
        ret(&b, SECCOMP_RET_ALLOW);
        block_end(&b, skip);
    }
#endif

    if (s->results_fd >= 0)
        guard_results(&b, s);
    guard_metadata(&b);
    guard_around(&b);
    guard_machine(&b);
    guard_fcntl(&b, s);
    guard_others(&b, s);
    if (s->refuse_truncating_open)
        guard_truncation(&b);

    /* Processes and programs. */
    {
        int skip = block_begin(&b, SYS_clone);
        int thread = new_label(&b);
        load(&b, ARG_LO(0));
        jump(&b, BPF_JSET, CLONE_THREAD, thread, NO_LABEL);
        ret(&b, trap(R_PROCESS, 0));
        place(&b, thread);
        ret(&b, SECCOMP_RET_ALLOW);
        block_end(&b, skip);
    }
#ifdef SYS_clone3
    emit(&b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, SYS_clone3);
    ret(&b, SECCOMP_RET_ERRNO | ENOSYS);
#endif
    /* A pidfd may be any process's: pidfd_open is this process's only, but
     * opening /proc/<pid> gives one too. */
    static const struct {
        long nr;
        int rule;
    } refused[] = {
#ifdef SYS_fork
        {SYS_fork, R_PROCESS},
#endif
#ifdef SYS_vfork
        {SYS_vfork, R_PROCESS},
#endif
        {SYS_execve, R_EXEC},
#ifdef SYS_execveat
        {SYS_execveat, R_EXEC},
#endif
        {SYS_ptrace, R_TRACE},
        {SYS_process_vm_readv, R_TRACE},
        {SYS_process_vm_writev, R_TRACE},
#ifdef SYS_process_madvise
        {SYS_process_madvise, R_TRACE},
#endif
#ifdef SYS_process_mrelease
        {SYS_process_mrelease, R_TRACE},
#endif
#ifdef SYS_pidfd_send_signal
        {SYS_pidfd_send_signal, R_SIGNAL},
#endif
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        refuse(&b, refused[i].nr, refused[i].rule);

    /* Signals: this process only. kill(0) and kill(-self) mean its own
     * group, allowed only when the group is this process alone (Check makes
     * each test's child a group of its own). */
    if (s->own_group)
        allow_only_arg(&b, SYS_kill, 0, self, 0, (uint32_t)-(int32_t)s->self,
                       trap(R_SIGNAL, 0));
    else
        allow_only_arg(&b, SYS_kill, 0, self, self, self, trap(R_SIGNAL, 0));
    allow_only_arg(&b, SYS_tgkill, 0, self, self, self, trap(R_SIGNAL, 0));
    allow_only_arg(&b, SYS_rt_sigqueueinfo, 0, self, self, self, trap(R_SIGNAL, 0));
    allow_only_arg(&b, SYS_rt_tgsigqueueinfo, 0, self, self, self, trap(R_SIGNAL, 0));
#ifdef SYS_pidfd_open
    allow_only_arg(&b, SYS_pidfd_open, 0, self, self, self, trap(R_SIGNAL, 0));
#endif
    {
        /* tkill takes a thread id, and any process's main thread has its
         * pid: a newer process (another grader's child, on a shared machine)
         * could be killed with it. glibc signals through tgkill, so tkill is
         * allowed for this process's main thread only; aimed at an elder
         * (the grader and what started it) it is REJECTED, at anything else
         * it fails with EPERM (a thread of this process it could mean). */
        int skip = block_begin(&b, SYS_tkill);
        int ok = new_label(&b), no = new_label(&b);
        load(&b, ARG_LO(0));
        jump(&b, BPF_JEQ, self, ok, NO_LABEL);
        not_an_elder(&b, s, no);
        ret(&b, SECCOMP_RET_ERRNO | EPERM);
        place(&b, no);
        ret(&b, trap(R_SIGNAL, 0));
        place(&b, ok);
        ret(&b, SECCOMP_RET_ALLOW);
        block_end(&b, skip);
    }
    {
        int skip = block_begin(&b, SYS_prctl);
        int ok = new_label(&b), dumpable = new_label(&b);
        load(&b, ARG_LO(0));
        jump(&b, BPF_JEQ, PR_SET_DUMPABLE, dumpable, ok);
        place(&b, dumpable);
        load(&b, ARG_LO(1));
        jump(&b, BPF_JEQ, 0, ok, NO_LABEL);
        ret(&b, trap(R_DUMPABLE, 0));
        place(&b, ok);
        ret(&b, SECCOMP_RET_ALLOW);
        block_end(&b, skip);
    }
    ret(&b, SECCOMP_RET_ALLOW);
    resolve(&b);
    return b.overflow ? -1 : b.n;
#endif
}

/* ---- the executable's image ------------------------------------------------ */

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    sandbox_range *r = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    r->lo = lo;
    r->hi = hi;
    return 1; /* the first object is the executable */
}

/* The object whose image holds find->lo (dl_iterate_phdr): its image into
 * find, found set. */
typedef struct object_find {
    uintptr_t at;
    sandbox_range image;
    int found;
} object_find;

static int holding_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    object_find *f = arg;
    sandbox_range r = {0, 0, NULL};
    first_object(info, size, &r);
    if (f->at < r.lo || f->at >= r.hi)
        return 0;
    f->image = r;
    f->found = 1;
    return 1;
}

int sandbox_add_object(sandbox_spec *s, const void *p, const char *what)
{
    object_find f = {.at = (uintptr_t)p};
    dl_iterate_phdr(holding_object, &f);
    if (!f.found)
        return -1;
    return sandbox_add_range(s, (const void *)f.image.lo, f.image.hi - f.image.lo, what);
}

int sandbox_add_range(sandbox_spec *s, const void *p, size_t bytes, const char *what)
{
    if (s->n_ranges >= SANDBOX_MAX_RANGES || !p || bytes == 0)
        return -1;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    sandbox_range *r = &s->ranges[s->n_ranges++];
    r->lo = (uintptr_t)p & ~(page - 1);
    r->hi = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
    r->what = what;
    return 0;
}

void sandbox_guard_results(sandbox_spec *s, int fd, uint64_t ip, uint64_t offset, uint64_t bytes)
{
    s->results_fd = fd;
    s->results_ip = ip;
    s->results_offset = offset;
    s->results_bytes = bytes;
}

/* The parent of process pid (from /proc/<pid>/stat: "pid (comm) state
 * ppid ...", comm may hold spaces and parentheses), or 0 when unknown. */
static pid_t parent_of(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    const char *end = strrchr(text, ')');
    int ppid = 0;
    if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
        return 0;
    return (pid_t)ppid;
}

int sandbox_prepare(sandbox_spec *s)
{
    memset(s, 0, sizeof *s);
    s->results_fd = -1;
    s->self = getpid();
    s->parent = getppid();
    for (pid_t p = s->parent; p > 1 && s->n_elders < SANDBOX_MAX_ELDERS; p = parent_of(p))
        s->elders[s->n_elders++] = p;
    s->own_group = getpgrp() == s->self;
    DIR *task = opendir("/proc/self/task");
    for (struct dirent *e; task && (e = readdir(task)) && s->n_threads < SANDBOX_MAX_THREADS;) {
        long tid = strtol(e->d_name, NULL, 10);
        if (tid > 0)
            s->threads[s->n_threads++] = (pid_t)tid;
    }
    if (task)
        closedir(task);
    sandbox_range image = {0, 0, NULL};
    dl_iterate_phdr(first_object, &image);
    if (image.hi <= image.lo)
        return -1;
    return sandbox_add_range(s, (const void *)image.lo, image.hi - image.lo,
                             "the grader's own code and data");
}

int sandbox_disabled(void)
{
    const char *e = getenv("CUDA_LABS_NO_SANDBOX");
    return e && *e && strcmp(e, "0") != 0;
}

/* ---- the report ---------------------------------------------------------------- */

static sandbox_spec installed;
static sandbox_report_fn reporter;

static const char *syscall_name(long nr)
{
    static const struct {
        long nr;
        const char *name;
    } names[] = {
        {SYS_mprotect, "mprotect"}, {SYS_mmap, "mmap"}, {SYS_mremap, "mremap"},
        {SYS_madvise, "madvise"},
        {SYS_munmap, "munmap"}, {SYS_clone, "clone"}, {SYS_execve, "execve"},
        {SYS_ptrace, "ptrace"}, {SYS_process_vm_readv, "process_vm_readv"},
        {SYS_process_vm_writev, "process_vm_writev"}, {SYS_kill, "kill"},
        {SYS_tkill, "tkill"}, {SYS_tgkill, "tgkill"}, {SYS_rt_sigqueueinfo, "rt_sigqueueinfo"},
        {SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo"}, {SYS_prctl, "prctl"},
#ifdef SYS_pkey_mprotect
        {SYS_pkey_mprotect, "pkey_mprotect"},
#endif
#ifdef SYS_shmat
        {SYS_shmat, "shmat"},
#endif
#ifdef SYS_fork
        {SYS_fork, "fork"},
#endif
#ifdef SYS_vfork
        {SYS_vfork, "vfork"},
#endif
#ifdef SYS_execveat
        {SYS_execveat, "execveat"},
#endif
#ifdef SYS_pidfd_open
        {SYS_pidfd_open, "pidfd_open"},
#endif
#ifdef SYS_pidfd_send_signal
        {SYS_pidfd_send_signal, "pidfd_send_signal"},
#endif
#ifdef SYS_process_madvise
        {SYS_process_madvise, "process_madvise"},
#endif
#ifdef SYS_process_mrelease
        {SYS_process_mrelease, "process_mrelease"},
#endif
        {SYS_pwrite64, "pwrite64"}, {SYS_write, "write"}, {SYS_writev, "writev"},
        {SYS_pwritev, "pwritev"}, {SYS_pwritev2, "pwritev2"}, {SYS_ftruncate, "ftruncate"},
        {SYS_fallocate, "fallocate"}, {SYS_dup, "dup"}, {SYS_dup3, "dup3"},
        {SYS_close, "close"}, {SYS_close_range, "close_range"}, {SYS_fchmod, "fchmod"},
        {SYS_fcntl, "fcntl"}, {SYS_sendfile, "sendfile"}, {SYS_splice, "splice"},
        {SYS_tee, "tee"}, {SYS_copy_file_range, "copy_file_range"},
        {SYS_pidfd_getfd, "pidfd_getfd"},
#ifdef SYS_dup2
        {SYS_dup2, "dup2"},
#endif
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].nr == nr)
            return names[i].name;
    return NULL;
}

static void on_sigsys(int sig, siginfo_t *si, void *context)
{
    (void)sig;
    (void)context;
    int data = si->si_errno; /* SECCOMP_RET_DATA */
    int rule = data / 16, range = data % 16;
    const char *where = range < installed.n_ranges && installed.ranges[range].what
                            ? installed.ranges[range].what
                            : "the grader's memory";
    char what[200];
    switch (rule) {
    case R_PROTECT:
        snprintf(what, sizeof what, "make %s writable or executable", where);
        break;
    case R_MAP_OVER:
        snprintf(what, sizeof what, "map other memory over %s", where);
        break;
    case R_MOVE:
        snprintf(what, sizeof what, "move or unmap %s", where);
        break;
    case R_DISCARD:
        snprintf(what, sizeof what, "discard the contents of %s", where);
        break;
    case R_SHM_OVER:
        snprintf(what, sizeof what, "map shared memory over memory already in use");
        break;
    case R_PROCESS:
        snprintf(what, sizeof what, "start another process");
        break;
    case R_EXEC:
        snprintf(what, sizeof what, "run another program");
        break;
    case R_TRACE:
        snprintf(what, sizeof what, "trace, read or write another process");
        break;
    case R_SIGNAL:
        snprintf(what, sizeof what, "send a signal to another process");
        break;
    case R_DUMPABLE:
        snprintf(what, sizeof what, "make its memory open to other processes again");
        break;
    case R_ABI:
        snprintf(what, sizeof what, "use another system call interface (32-bit or x32)");
        break;
    case R_RESULTS:
        snprintf(what, sizeof what, "write the grader's results (its results file)");
        break;
    case R_FD_COPY:
        snprintf(what, sizeof what, "take a copy of a descriptor (one of them holds the grader's results)");
        break;
    default:
        snprintf(what, sizeof what, "make a system call the grader refuses");
    }
    char name[48];
    const char *known = rule == R_ABI ? NULL : syscall_name(si->si_syscall);
    if (known)
        snprintf(name, sizeof name, "%s", known);
    else
        snprintf(name, sizeof name, "number %d", si->si_syscall);
    if (reporter)
        reporter(what, name);
    _exit(SANDBOX_EXIT);
}

/* A grader run as root: its grading child gives up every capability, so
 * that what root may do beyond its own files, such as opening the results
 * file again (it has mode 0), configuring the network, raising limits or the
 * drivers' administrative calls, fails as for an ordinary user. Files owned
 * by root stay root's: its threads' /proc/self/task/<tid>/mem, which the
 * rules on files leave writable (instructors.md says so). For an
 * ordinary user there is nothing to drop. The capability sets as capset(2)
 * takes them (version 3: two words). They are the calling thread's alone,
 * and a thread starts with its creator's: the grading child calls this
 * before CUDA starts its threads (sandbox.h), and sandbox_install again. */
void sandbox_drop_capabilities(void)
{
    struct {
        uint32_t version;
        int pid;
    } head = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
    struct {
        uint32_t effective, permitted, inheritable;
    } none[2];
    memset(none, 0, sizeof none);
    if (syscall(SYS_capget, &head, none) != 0 || (!none[0].permitted && !none[1].permitted))
        return;
    for (int cap = 0; cap < 64; cap++) /* what an execve could give back (none is allowed) */
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    memset(none, 0, sizeof none);
    syscall(SYS_capset, &head, none);
}

int sandbox_install(const sandbox_spec *s, sandbox_report_fn report, char *err, size_t errn)
{
    static struct sock_filter prog[BPF_MAXINSNS]; /* the kernel's limit for one filter */
    int n = sandbox_build(s, prog, (int)(sizeof prog / sizeof prog[0]));
    if (n < 0) {
        snprintf(err, errn, "the filter could not be built for this machine");
        return -1;
    }
    installed = *s;
    reporter = report;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigset_t sys;
    sigemptyset(&sys);
    sigaddset(&sys, SIGSYS);
    if (sigaction(SIGSYS, &sa, NULL) != 0 || sigprocmask(SIG_UNBLOCK, &sys, NULL) != 0) {
        snprintf(err, errn, "cannot handle SIGSYS: %s", strerror(errno));
        return -1;
    }
    /* Non-dumpable: /proc/<pid>/mem of this process belongs to root from now
     * on, so neither it nor another process of the user can open it. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, errn, "prctl(PR_SET_NO_NEW_PRIVS) failed: %s", strerror(errno));
        return -1;
    }
    sandbox_drop_capabilities();
    struct sock_fprog fprog = {(unsigned short)n, prog};
    long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog);
    if (rc != 0 && errno == ENOSYS)
        rc = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
    if (rc != 0) {
        snprintf(err, errn, "the kernel refused the seccomp filter: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int sandbox_probe(char *err, size_t errn)
{
    int fds[2];
    if (pipe(fds) != 0) {
        snprintf(err, errn, "cannot try the filter: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        snprintf(err, errn, "cannot try the filter: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        sandbox_spec s;
        char why[200] = "the grader's image was not found";
        int rc = sandbox_prepare(&s) == 0 ? sandbox_install(&s, NULL, why, sizeof why) : -1;
        if (rc != 0 && write(fds[1], why, strlen(why)) < 0)
            rc = -1;
        _exit(rc == 0 ? 0 : 1);
    }
    close(fds[1]);
    char why[200];
    ssize_t got = read(fds[0], why, sizeof why - 1);
    close(fds[0]);
    why[got > 0 ? got : 0] = '\0';
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    snprintf(err, errn, "%s", why[0] ? why : "the test process failed");
    return -1;
}

/* ---- files (Landlock) ------------------------------------------------------- */

/* The Landlock interface (linux/landlock.h), spelled out so that the grader
 * builds against older kernel headers; these numbers are the same on every
 * architecture. */
#define LL_CREATE_RULESET 444
#define LL_ADD_RULE 445
#define LL_RESTRICT_SELF 446
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_WRITE_FILE (1ull << 1)
#define LL_REMOVE_DIR (1ull << 4)
#define LL_REMOVE_FILE (1ull << 5)
#define LL_MAKE_CHAR (1ull << 6)
#define LL_MAKE_DIR (1ull << 7)
#define LL_MAKE_REG (1ull << 8)
#define LL_MAKE_SOCK (1ull << 9)
#define LL_MAKE_FIFO (1ull << 10)
#define LL_MAKE_BLOCK (1ull << 11)
#define LL_MAKE_SYM (1ull << 12)
#define LL_REFER (1ull << 13)    /* ABI 2 */
#define LL_TRUNCATE (1ull << 14) /* ABI 3 */

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
};
struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

static int files_abi_limit = INT_MAX;

void sandbox_files_abi_limit(int abi)
{
    files_abi_limit = abi;
}

int sandbox_files_abi(void)
{
    long abi = syscall(LL_CREATE_RULESET, NULL, 0, LL_CREATE_RULESET_VERSION);
    if (abi > files_abi_limit)
        abi = files_abi_limit;
    return abi > 0 ? (int)abi : 0;
}

/* Allows `access` beneath the folder `path`, or on the file `path` (then
 * only rights on files may be asked); one that does not exist is skipped
 * (nothing can be written there anyway). 0, or -1 with errno. */
static int allow_beneath(int ruleset, const char *path, uint64_t access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    struct ll_path_beneath_attr rule = {access, fd};
    long rc = syscall(LL_ADD_RULE, ruleset, LL_RULE_PATH_BENEATH, &rule, 0);
    int e = errno;
    close(fd);
    errno = e;
    return rc == 0 ? 0 : -1;
}

/* The device files a grading child may open for writing: /dev/null, and
 * the GPU's (/dev/nvidia*, with /dev/nvidia-caps/). Not all of /dev: that
 * holds disks (a root process writing /dev/loop0 or /dev/sda writes any
 * file's blocks), terminals and files bind-mounted there. Nodes that appear
 * later are not covered; none can be made under the rules. */
static int allow_devices(int ruleset, uint64_t access, const char **where)
{
    static char path[300];
    *where = "/dev/null";
    if (allow_beneath(ruleset, "/dev/null", access) != 0)
        return -1;
    DIR *d = opendir("/dev");
    if (!d)
        return 0;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "nvidia", 6) != 0)
            continue;
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        *where = path;
        rc = allow_beneath(ruleset, path, access);
    }
    closedir(d);
    return rc;
}

int sandbox_restrict_files(const char *const *writable, char *err, size_t errn)
{
    int abi = sandbox_files_abi();
    if (abi <= 0) {
        snprintf(err, errn, "this kernel has no Landlock (or it is turned off)");
        return 1;
    }
    uint64_t changes = LL_WRITE_FILE | LL_REMOVE_DIR | LL_REMOVE_FILE | LL_MAKE_CHAR |
                       LL_MAKE_DIR | LL_MAKE_REG | LL_MAKE_SOCK | LL_MAKE_FIFO | LL_MAKE_BLOCK |
                       LL_MAKE_SYM;
    if (abi >= 2)
        changes |= LL_REFER;
    if (abi >= 3)
        changes |= LL_TRUNCATE;
    struct ll_ruleset_attr attr = {changes};
    int ruleset = (int)syscall(LL_CREATE_RULESET, &attr, sizeof attr, 0);
    if (ruleset < 0) {
        snprintf(err, errn, "landlock_create_ruleset failed: %s", strerror(errno));
        return -1;
    }
    /* Device files are opened for writing (the GPU's /dev/nvidia*, /dev/null);
     * /dev/shm, a memory file system every later process of the machine sees,
     * is not writable unless the caller names it (the probe does where CUDA
     * does not start without it; on the H200 it does); the driver names
     * its threads through /proc/self/task/<tid>/comm and fails to start
     * (cudaErrorOperatingSystem, seen on the H200) when it cannot. So its
     * threads' files (/proc/self/task, /proc/<pid>/task) and its own name
     * are writable, not the rest of /proc/self: root could write
     * /proc/self/autogroup there, the nice value of the whole session the
     * grader runs in, which outlives the child. Their files belong to root
     * once the process is non-dumpable (sandbox_install), so for an
     * ordinary user they stay closed anyway. */
    const uint64_t write_only = changes & (LL_WRITE_FILE | LL_TRUNCATE);
    const char *where = "/dev";
    int rc = allow_devices(ruleset, write_only, &where);
    if (rc == 0) {
        rc = allow_beneath(ruleset, "/proc/self/task", write_only);
        where = "/proc/self/task";
    }
    if (rc == 0) {
        rc = allow_beneath(ruleset, "/proc/self/comm", write_only);
        where = "/proc/self/comm";
    }
    for (int i = 0; rc == 0 && writable && writable[i]; i++) {
        rc = allow_beneath(ruleset, writable[i], changes);
        where = writable[i];
    }
    if (rc != 0) {
        snprintf(err, errn, "cannot allow writes beneath %s: %s", where, strerror(errno));
        close(ruleset);
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        snprintf(err, errn, "prctl(PR_SET_NO_NEW_PRIVS) failed: %s", strerror(errno));
        close(ruleset);
        return -1;
    }
    if (syscall(LL_RESTRICT_SELF, ruleset, 0) != 0) {
        snprintf(err, errn, "landlock_restrict_self failed: %s", strerror(errno));
        close(ruleset);
        return -1;
    }
    close(ruleset);
    return 0;
}
