/* sandbox.c: the grading child's seccomp filter (sandbox.h).
 *
 * Why each refusal is safe for a legitimate stage, for CUDA and for Check:
 * - mprotect/pkey_mprotect to writable or executable, mmap or mremap with
 *   MAP_FIXED/MREMAP_FIXED, mremap and munmap, over the grader's executable
 *   image or the results page. The loader protects the executable's RELRO
 *   part at start-up (before the filter); afterwards nothing changes those
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
 *   another process; tkill aimed at the parent. raise(), abort() and
 *   pthread_kill() signal this process (tgkill with its own pid).
 * - prctl(PR_SET_DUMPABLE, non-zero): undoing the non-dumpable state that
 *   closes /proc/self/mem and the parent's /proc/<pid>/mem.
 * - a system call of another ABI: x32 numbers and int 0x80 (i386) on x86_64.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
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

/* What a refusal says; the filter's SECCOMP_RET_DATA is rule * 16 + range. */
enum rule {
    R_NONE = 0,
    R_PROTECT,  /* mprotect to W or X over a guarded range */
    R_MAP_OVER, /* MAP_FIXED / MREMAP_FIXED over a guarded range */
    R_MOVE,     /* mremap or munmap of a guarded range */
    R_SHM_OVER,
    R_PROCESS,
    R_EXEC,
    R_TRACE,
    R_SIGNAL,
    R_DUMPABLE,
    R_ABI,
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
    } fix[2048];
    int n_fix;
} builder;

#define ARG_LO(i) ((uint32_t)(offsetof(struct seccomp_data, args) + 8 * (i)))
#define ARG_HI(i) (ARG_LO(i) + 4)
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

static void refuse(builder *b, long nr, int rule)
{
    emit(b, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, (uint32_t)nr);
    ret(b, trap(rule, 0));
}

/* nr(arg a == value allowed, or also == value2 when value2 != value) */
static void allow_only_arg(builder *b, long nr, int a, uint32_t value, uint32_t value2,
                           uint32_t value3, int rule)
{
    int skip = block_begin(b, nr);
    int ok = new_label(b);
    load(b, ARG_LO(a));
    jump(b, BPF_JEQ, value, ok, NO_LABEL);
    jump(b, BPF_JEQ, value2, ok, NO_LABEL);
    jump(b, BPF_JEQ, value3, ok, NO_LABEL);
    ret(b, trap(rule, 0));
    place(b, ok);
    ret(b, SECCOMP_RET_ALLOW);
    block_end(b, skip);
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
    const uint32_t self = (uint32_t)s->self, parent = (uint32_t)s->parent;

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
    for (size_t i = 0; i < sizeof protects / sizeof protects[0]; i++) {
        int skip = block_begin(&b, protects[i]);
        int check = new_label(&b);
        load(&b, ARG_LO(2));
        jump(&b, BPF_JSET, PROT_WRITE | PROT_EXEC, check, NO_LABEL);
        ret(&b, SECCOMP_RET_ALLOW);
        place(&b, check);
        guard_ranges(&b, s, 0, 1, R_PROTECT);
        ret(&b, SECCOMP_RET_ALLOW);
        block_end(&b, skip);
    }
    {
        int skip = block_begin(&b, SYS_mmap);
        int check = new_label(&b);
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
#ifdef SYS_fork
    refuse(&b, SYS_fork, R_PROCESS);
#endif
#ifdef SYS_vfork
    refuse(&b, SYS_vfork, R_PROCESS);
#endif
    refuse(&b, SYS_execve, R_EXEC);
#ifdef SYS_execveat
    refuse(&b, SYS_execveat, R_EXEC);
#endif
    refuse(&b, SYS_ptrace, R_TRACE);
    refuse(&b, SYS_process_vm_readv, R_TRACE);
    refuse(&b, SYS_process_vm_writev, R_TRACE);

    /* Signals: this process only. kill(0) and kill(-self) mean its own
     * group, allowed only when the group is this process alone (Check makes
     * each test's child a group of its own). */
    if (s->own_group)
        allow_only_arg(&b, SYS_kill, 0, self, 0, (uint32_t)-(int32_t)s->self, R_SIGNAL);
    else
        allow_only_arg(&b, SYS_kill, 0, self, self, self, R_SIGNAL);
    allow_only_arg(&b, SYS_tgkill, 0, self, self, self, R_SIGNAL);
    allow_only_arg(&b, SYS_rt_sigqueueinfo, 0, self, self, self, R_SIGNAL);
    allow_only_arg(&b, SYS_rt_tgsigqueueinfo, 0, self, self, self, R_SIGNAL);
#ifdef SYS_pidfd_open
    allow_only_arg(&b, SYS_pidfd_open, 0, self, self, self, R_SIGNAL);
#endif
    {
        /* tkill takes a thread id, and this process's threads are not known
         * yet: only the parent's main thread (its pid) is refused. */
        int skip = block_begin(&b, SYS_tkill);
        int ok = new_label(&b);
        load(&b, ARG_LO(0));
        jump(&b, BPF_JEQ, parent, NO_LABEL, ok);
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

int sandbox_prepare(sandbox_spec *s)
{
    memset(s, 0, sizeof *s);
    s->self = getpid();
    s->parent = getppid();
    s->own_group = getpgrp() == s->self;
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

int sandbox_install(const sandbox_spec *s, sandbox_report_fn report, char *err, size_t errn)
{
    static struct sock_filter prog[1024];
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
