/* check_policy.c: the contract check on borrowed implementations. The names
 * of CUB, Thrust, CUTLASS and CuTe (as CUDA 13 mangles them), the imports no
 * lab library may use, the objdump scan for raw system calls, the full
 * symbol table of a library and a stripped one; and that every solution,
 * every skeleton and a library using what the labs teach (cp.async,
 * inline-PTX mma, atomics, __launch_bounds__, dynamic shared memory, names
 * like "cube") are accepted. The refused libraries themselves are the
 * adversarial cases with "needs-gpu: no" (check_grade.c runs them). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../borrowed.h"
#include "../elfsym.h"
#include "../hostcode.h"
#include "../lab.h"
#include "../policy.h"
#include "../proc.h"
#include "../toolkit.h"
#include "tests.h"

#define LEGIT "build/tests/policy/legit.so"
#define CUB_UMBRELLA "build/tests/policy/cub_umbrella.so"
#define DETAIL_NAMED "build/tests/policy/detail_named.so"
#define RAW_SYSCALL "build/adversarial/transpose_raw_syscall.so"

static const struct {
    const char *mangled, *lib, *shown;
} borrowed_names[] = {
    /* CUDA 13's CUB kernels: versioned inline namespace, internal linkage (L) */
    {"_ZN3cub17CUB_300001_SM_9006detail6reduceL18DeviceReduceKernelINS2_10policy_hubIfjN4cuda3std3__"
     "44plusIvEEE10Policy1000EPKfjS9_fNS7_10__identityEEEvT0_PT3_T1_NS0_13GridEvenShareISI_EET2_T4_",
     "CUB", "cub::detail::reduce::DeviceReduceKernel"},
    {"_ZN3cub17CUB_300001_SM_9006detail4scanL20DeviceScanInitKernelINS0_13ScanTileStateIfLb1EEEEEvT_i",
     "CUB", "cub::detail::scan::DeviceScanInitKernel"},
    {"_ZN3cub17CUB_300001_SM_9006detailL11EmptyKernelIvEEvv", "CUB", "cub::detail::EmptyKernel"},
    /* a host function of CUB's (what cub::DeviceReduce::Sum leaves in .dynsym) */
    {"_ZN3cub17CUB_300001_SM_90012DeviceReduce3SumIPKfPfiEE9cudaErrorPvRmT_T0_T1_P11CUstream_st",
     "CUB", "cub::DeviceReduce::Sum"},
    /* a static local of a CUB function */
    {"_ZZN3cub17CUB_300001_SM_90022DeviceCountCachedValueEvE5count", "CUB",
     "cub::DeviceCountCachedValue"},
    /* older CUDA: no versioned namespace */
    {"_ZN3cub18DeviceReduceKernelINS_18DeviceReducePolicyIfiN6thrust4plusIfEEE9Policy600EPfS5_iS4_EEvT0_",
     "CUB", "cub::DeviceReduceKernel"},
    {"_ZN6thrust23THRUST_300001_SM_900_NS8cuda_cub4core13_kernel_agentIvEEvv", "Thrust",
     "thrust::cuda_cub::core::_kernel_agent"},
    {"_ZN7cutlassL6KernelIPfEEvT_", "CUTLASS", "cutlass::Kernel"},
    {"_ZN7cutlass4gemm6kernel13GemmUniversalIiE10run_kernelEv", "CUTLASS",
     "cutlass::gemm::kernel::GemmUniversal"},
    {"_ZN4cute6detail11gemm_kernelIiEEvT_", "CuTe", "cute::detail::gemm_kernel"},
    /* CUB_WRAPPED_NAMESPACE, and CUB's namespace renamed by a macro */
    {"_ZN4mine3cub17CUB_300001_SM_9006detail4scanL16DeviceScanKernelIiEEvT_", "CUB",
     "mine::cub::detail::scan::DeviceScanKernel"},
    {"_ZN1x6detail6selectL23DeviceSelectSweepKernelIiEEvT_", "CUB",
     "x::detail::select::DeviceSelectSweepKernel"},
    /* nvcc's host stub of a CUTLASS kernel */
    {"_Z40__device_stub__ZN7cutlass6KernelIPfEEvT_Pf", "CUTLASS", "cutlass::Kernel"},
};

/* Names of the student's own: a namespace or class merely containing the
 * letters, CUB only in a template argument, CUDA's own libcu++, kernels of
 * the solutions, C names, junk. */
static const char *const own_names[] = {
    "_Z11cube_kernelILi3EEvPf",
    "_ZN4cubeILi3EE2ofEf",
    "_ZN8cuteness5scaleEPffi",
    "_ZN6cubist4drawEv",
    "_Z9block_sumIN3cub17CUB_300001_SM_90011BlockReduceIfLi128ELNS1_20BlockReduceAlgorithmE2ELi1E"
    "Li1EEEEvPKfPf",
    "_ZN4cuda3std3__44plusIvEclIffEEDaOT_OT0_",
    "_Z17naive_read_kernelPKfPfii",
    "_ZL13static_kernelPf",
    "_ZN39_GLOBAL__N__3084207d_7_misc_cu_492e780811anon_kernelEPf",
    "_Z16DeviceScanKernelPKiPii", /* a student's kernel may have CUB's name, outside detail */
    "transpose_tiled",
    "cub_reduce",
    "",
    "_Z",
    "_ZN",
    "_ZN999cub",
    "_ZN3cu",
};

START_TEST(recognises_library_names)
{
    for (size_t i = 0; i < sizeof borrowed_names / sizeof borrowed_names[0]; i++) {
        char shown[200];
        const char *lib = borrowed_library(borrowed_names[i].mangled, shown, sizeof shown);
        ck_assert_msg(lib && strcmp(lib, borrowed_names[i].lib) == 0, "%s: %s, expected %s",
                      borrowed_names[i].mangled, lib ? lib : "(none)", borrowed_names[i].lib);
        ck_assert_str_eq(shown, borrowed_names[i].shown);
    }
    ck_assert(borrowed_is_kernel_name("cub::detail::reduce::DeviceReduceKernel"));
    ck_assert(borrowed_is_kernel_name("thrust::cuda_cub::core::_kernel_agent"));
    ck_assert(!borrowed_is_kernel_name("cub::DeviceReduce::Sum"));
    /* a short buffer cuts the name, never overruns */
    char tiny[8];
    ck_assert_str_eq(borrowed_library(borrowed_names[0].mangled, tiny, sizeof tiny), "CUB");
    ck_assert_str_eq(tiny, "cub::de");
}
END_TEST

START_TEST(own_names_are_not_borrowed)
{
    for (size_t i = 0; i < sizeof own_names / sizeof own_names[0]; i++) {
        char shown[200] = "x";
        const char *lib = borrowed_library(own_names[i], shown, sizeof shown);
        ck_assert_msg(lib == NULL, "%s taken for %s (%s)", own_names[i], lib, shown);
        ck_assert_str_eq(shown, "");
    }
    ck_assert_ptr_null(borrowed_library(NULL, NULL, 0));
}
END_TEST

/* Imports that reach code around the rules, refused in every lab; and what
 * the solutions call, accepted. */
START_TEST(refuses_back_doors)
{
    static const struct {
        const char *name, *why;
    } refused[] = {
        {"cudaGetDriverEntryPoint", "fetch CUDA driver functions"},
        {"cudaGetDriverEntryPointByVersion", "fetch CUDA driver functions"},
        {"cuGetProcAddress", "fetch CUDA driver functions"},
        {"cuGetProcAddress_v2", "fetch CUDA driver functions"},
        {"cuMemAlloc_v2", "a CUDA driver function"},
        {"cuStreamCreate", "a CUDA driver function"},
        {"cuLaunchKernel", "a CUDA driver function"},
        {"cudaGetExportTable", "internal tables"},
        {"cudaLibraryLoadData", "load other GPU code"},
        {"dl_iterate_phdr", "look through the libraries"},
        {"_dl_find_object", "look through the libraries"},
        {"dladdr", "look through the libraries"},
        {"dladdr1", "look through the libraries"},
        {"dlinfo", "look through the libraries"},
        {"syscall", "call the operating system directly"},
        {"dlsym", "look up other code"},
        {"cublasSgemm_v2", "owns cuBLAS"},
        {"cudnnConvolutionForward", "owns cuDNN"},
        {"timer_create", "when a timer fires"},
        {"setitimer", "when a timer fires"},
        {"alarm", "when a timer fires"},
        {"mq_notify", "a thread of the C library's"},
        {"aio_write", "a thread of the C library's"},
        {"lio_listio64", "a thread of the C library's"},
        {"getaddrinfo_a", "a thread of the C library's"},
        {"thrd_create", "not on host threads"},
        {"__clone3", "not in other processes or threads"},
    };
    char why[512];
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        ck_assert_msg(policy_check_function(refused[i].name, 0, NULL, why, sizeof why) == 1,
                      "%s was not refused", refused[i].name);
        ck_assert_msg(strstr(why, refused[i].why), "%s: %s", refused[i].name, why);
        ck_assert_msg(strstr(why, refused[i].name), "%s: %s", refused[i].name, why);
    }
    static const char *const accepted[] = {
        "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemsetAsync", "cudaMemcpyAsync",
        "cudaFuncSetAttribute", "cudaGetDevice", "cudaDeviceGetAttribute",
        "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "__cudaLaunchKernel",
        "__cudaRegisterFunction", "cube", "cubic", "__cxa_guard_acquire", "_Unwind_Resume",
    };
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++)
        ck_assert_msg(policy_check_function(accepted[i], 0, policy_stream_stage_rules, why,
                                            sizeof why) == 0,
                      "%s refused: %s", accepted[i], why);
    /* Lab 5's stages own streams, events and graphs. */
    static const char *const lab5_ok[] = {"cudaStreamCreateWithFlags", "cudaEventRecord",
                                          "cudaStreamWaitEvent", "cudaStreamBeginCapture",
                                          "cudaGraphLaunch", "cudaGraphInstantiate",
                                          "cudaStreamSynchronize", "cudaMemcpyAsync"};
    for (size_t i = 0; i < sizeof lab5_ok / sizeof lab5_ok[0]; i++)
        ck_assert_msg(policy_check_function(lab5_ok[i], 0, policy_host_stage_rules, why,
                                            sizeof why) == 0,
                      "%s refused in lab 5: %s", lab5_ok[i], why);
    /* But not the host buffers the grader owns (shared with its witness). */
    static const char *const lab5_refused[] = {"cudaHostRegister", "cudaHostUnregister",
                                               "cudaHostAlloc", "cudaMallocHost"};
    for (size_t i = 0; i < sizeof lab5_refused / sizeof lab5_refused[0]; i++) {
        ck_assert_msg(policy_check_function(lab5_refused[i], 0, policy_host_stage_rules, why,
                                            sizeof why) == 1,
                      "%s accepted in lab 5", lab5_refused[i]);
        ck_assert_ptr_nonnull(strstr(why, "the grader gives x, y and out"));
    }
    /* A definition of CUB's is refused by name; a function named cube is not. */
    ck_assert_int_eq(policy_check_function(borrowed_names[0].mangled, 1, NULL, why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "cub::detail::reduce::DeviceReduceKernel, from CUB"));
    ck_assert_int_eq(policy_check_function("_Z4cubef", 1, NULL, why, sizeof why), 0);
}
END_TEST

/* Every built solution and skeleton passes the whole contract check with
 * its lab's rules (make test builds them first). */
START_TEST(references_pass)
{
    int checked = 0;
    for (int i = 0; i < lab_count; i++) {
        const lab_spec *spec = lab_table[i];
        if (!spec->available)
            continue;
        const char *dirs[] = {"build", "build/solutions"};
        for (int d = 0; d < 2; d++) {
            char lib[128], why[1024];
            snprintf(lib, sizeof lib, "%s/lab%d.so", dirs[d], spec->number);
            int rc = policy_check(lib, spec->forbidden_calls, why, sizeof why);
            ck_assert_msg(rc == 0, "%s: %d: %s", lib, rc, why);
            checked++;
        }
    }
    ck_assert_int_ge(checked, 12);
}
END_TEST

START_TEST(accepts_what_the_labs_teach)
{
    char why[1024];
    ck_assert_msg(policy_check(LEGIT, policy_stream_stage_rules, why, sizeof why) == 0, "%s", why);
    ck_assert_int_eq(hostcode_scan(LEGIT, why, sizeof why), 0);
}
END_TEST

/* A function of the library whose name holds what arg points to: 1 when found. */
typedef struct name_search {
    const char *part;
    int found;
} name_search;

static void find_part(const elf_symbol *e, void *arg)
{
    name_search *s = arg;
    s->found |= e->defined && strstr(e->name, s->part) != NULL;
}

/* Source paths of device-wide library code, "." and ".." resolved; CUB's
 * block- and warp-level headers and look-alike names are not. */
START_TEST(knows_device_wide_source_paths)
{
    static const struct {
        const char *path, *lib;
    } paths[] = {
        {"/usr/local/cuda-13.0/include/cccl/cub/agent", "CUB"},
        {"/usr/local/cuda/include/cccl/cub/agent/agent_scan.cuh", "CUB"},
        {"/opt/cccl/cub/device/dispatch", "CUB"},
        {"/x/cccl/cub/block/../agent", "CUB"},
        {"/x/cub/./agent", "CUB"},
        {"/x/cub/block/../../cub/device", "CUB"},
        {"cub/agent", "CUB"},
        {"/home/s/cutlass/include/cutlass/gemm", "CUTLASS"},
        {"/home/s/cutlass/include/cute/atom", "CuTe"},
        {"/usr/local/cuda/include/cccl/thrust/system/cuda/detail", "Thrust"},
        {"/home/s/cutlass/lab", NULL}, /* a folder of the student's */
        {"/tmp/cute", NULL},
        {"/usr/local/cuda/include/cccl/thrust/detail", NULL},
        {"/usr/local/cuda-13.0/include/cccl/cub/block", NULL},
        {"/usr/local/cuda-13.0/include/cccl/cub/warp/specializations", NULL},
        {"/usr/local/cuda-13.0/include/cccl/cub", NULL},
        {"/usr/local/cuda-13.0/include/cccl/cub/detail", NULL},
        {"/x/cub/agent/../block", NULL},
        {"/home/s/cubes/agent", NULL},
        {"/x/cub/agent_like", NULL},
        {"/home/s/cuteness/lab", NULL},
        {"/", NULL},
        {"", NULL},
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        const char *lib = borrowed_path(paths[i].path);
        ck_assert_msg(paths[i].lib ? lib && strcmp(lib, paths[i].lib) == 0 : lib == NULL,
                      "%s: %s, expected %s", paths[i].path, lib ? lib : "(none)",
                      paths[i].lib ? paths[i].lib : "(none)");
    }
    /* deeper than any fixed list of parts, and longer than any fixed buffer */
    static char deep[40000];
    size_t at = 0;
    for (int i = 0; i < 600; i++)
        at += (size_t)snprintf(deep + at, sizeof deep - at, "/proc/self/root");
    snprintf(deep + at, sizeof deep - at, "/usr/local/cuda/include/cccl/cub/agent");
    ck_assert_str_eq(borrowed_path(deep), "CUB");
    at = (size_t)snprintf(deep, sizeof deep, "/tmp/tmp.x/");
    for (int i = 0; i < 8000; i++)
        at += (size_t)snprintf(deep + at, sizeof deep - at, "./");
    snprintf(deep + at, sizeof deep - at, "cub/agent");
    ck_assert_str_eq(borrowed_path(deep), "CUB");
    char shown[300], err[300];
    /* in a file: binary bytes, a clean path, then the long one, read whole */
    char file[] = "/tmp/borrowed-XXXXXX";
    int fd = mkstemp(file);
    ck_assert_int_ge(fd, 0);
    static const char head[] = "\x7f" "ELF\x01\x02/usr/local/cuda/include/cccl/cub/block";
    ck_assert_int_eq(write(fd, head, sizeof head), (ssize_t)sizeof head);
    ck_assert_int_eq(write(fd, deep, strlen(deep) + 1), (ssize_t)(strlen(deep) + 1));
    close(fd);
    ck_assert_str_eq(borrowed_source(file, shown, sizeof shown, err, sizeof err), "CUB");
    unlink(file);
    ck_assert_msg(strncmp(shown, "/tmp/tmp.x/././", 15) == 0 && strlen(shown) == sizeof shown - 1 &&
                      strcmp(shown + sizeof shown - 4, "...") == 0,
                  "%s", shown);
    ck_assert_ptr_null(borrowed_source("/nonexistent/lab.so", shown, sizeof shown, err, sizeof err));
    ck_assert_msg(strstr(err, "cannot read /nonexistent/lab.so"), "%s", err);
}
END_TEST

/* <cub/cub.cuh> for a block-level reduction in a kernel of one's own: the
 * library holds CUB's EmptyKernel, which does no work, and is accepted. */
START_TEST(accepts_cub_s_umbrella_header)
{
    char why[1024], err[256];
    name_search empty = {"EmptyKernel", 0};
    ck_assert_int_eq(elf_each_symbol(CUB_UMBRELLA, ELF_DYNSYM | ELF_SYMTAB, find_part, &empty, err,
                                     sizeof err),
                     0);
    ck_assert_msg(empty.found, "the umbrella header no longer compiles in EmptyKernel: the test "
                               "proves nothing");
    name_search loader = {"dlsym", 0};
    ck_assert_int_eq(elf_each_symbol(CUB_UMBRELLA, ELF_DYNSYM, find_part, &loader, err, sizeof err), 0);
    ck_assert_msg(!loader.found, "NVTX's loader was compiled in (dlsym)");
    ck_assert_msg(policy_check(CUB_UMBRELLA, policy_stream_stage_rules, why, sizeof why) == 0, "%s",
                  why);
}
END_TEST

/* A kernel of CUB's device-wide shape in a namespace called detail is
 * refused, and the message says how to keep it if it is the student's. */
START_TEST(names_the_way_out_for_a_cub_shaped_name)
{
    char why[1024];
    ck_assert_int_eq(policy_check(DETAIL_NAMED, policy_stream_stage_rules, why, sizeof why), 1);
    ck_assert_msg(strstr(why, "detail::DeviceSumKernel") && strstr(why, "give it another name"), "%s",
                  why);
    ck_assert_int_eq(policy_check("build/adversarial/reduce_cub_sum.so", policy_stream_stage_rules,
                                  why, sizeof why),
                     1);
    ck_assert_msg(strstr(why, "cub::detail::reduce::") && !strstr(why, "give it another name"), "%s",
                  why);
}
END_TEST

/* CUDA 13 makes every kernel stub local: only .symtab names it. */
static void find_name(const elf_symbol *e, void *arg)
{
    int *where = arg;
    if (strcmp(e->name, "_Z17naive_read_kernelPKfPfii") == 0 && e->defined && e->is_function)
        *where |= e->from_symtab ? 2 : 1;
}

START_TEST(reads_the_full_symbol_table)
{
    char err[256];
    int where = 0;
    ck_assert_int_eq(elf_each_symbol("build/solutions/lab1.so", ELF_DYNSYM | ELF_SYMTAB, find_name,
                                     &where, err, sizeof err),
                     0);
    ck_assert_int_eq(where, 2);
    where = 0;
    ck_assert_int_eq(elf_each_symbol("build/solutions/lab1.so", ELF_DYNSYM, find_name, &where, err,
                                     sizeof err),
                     0);
    ck_assert_int_eq(where, 0);
}
END_TEST

/* A stripped library has no .symtab: the grader cannot see its kernels and
 * says so instead of calling it clean. */
START_TEST(refuses_a_stripped_library)
{
    char strip[4096];
    ck_assert_msg(toolkit_find("strip", strip, sizeof strip) == 0, "strip (binutils) is missing");
    char path[] = "/tmp/cudalabs-strippedXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char out[1024];
    char *cp[] = {"/bin/cp", LEGIT, path, NULL};
    ck_assert_int_eq(run_command(cp, NULL, out, sizeof out), 0);
    char *argv[] = {strip, "--strip-all", path, NULL};
    ck_assert_msg(run_command(argv, NULL, out, sizeof out) == 0, "%s", out);
    char why[1024];
    ck_assert_int_eq(policy_check(path, NULL, why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "no full symbol table (.symtab)"));
    unlink(path);
}
END_TEST

START_TEST(reads_objdump_lines)
{
    char what[32];
    static const char *const hits[][2] = {
        {"    23a8:\tsyscall\n", "syscall"},        {"  40:\tint    $0x80", "int $0x80"},
        {"  41:\tsysenter", "sysenter"},           {"  42:\tdata16 syscall", "syscall"},
        {"  1f4:\tsvc\t#0x0", "svc"},
    };
    for (size_t i = 0; i < sizeof hits / sizeof hits[0]; i++) {
        ck_assert_msg(hostcode_is_syscall_line(hits[i][0], what, sizeof what), "%s", hits[i][0]);
        ck_assert_str_eq(what, hits[i][1]);
    }
    static const char *const misses[] = {
        "    23ad:\tjmp    1040 <syscall@plt>\n", "  43:\tcall   1040 <syscall@plt>",
        "00000000000023a0 <syscall>:",              "  44:\tint3",
        "  45:\tint    $0x3",                        "  46:\tmov    %rax,%rbx",
        "  47:\tnopw   0x0(%rax,%rax,1)",            "build/lab1.so:     file format elf64-x86-64",
        "Disassembly of section .text:",             "",
    };
    for (size_t i = 0; i < sizeof misses / sizeof misses[0]; i++)
        ck_assert_msg(!hostcode_is_syscall_line(misses[i], what, sizeof what), "%s", misses[i]);
}
END_TEST

START_TEST(finds_a_raw_system_call)
{
    char why[1024];
    ck_assert_int_eq(hostcode_scan(RAW_SYSCALL, why, sizeof why), 1);
    ck_assert_ptr_nonnull(strstr(why, "in transpose_naive_read()"));
    /* the reference it calls has none */
    ck_assert_int_eq(hostcode_scan("build/solutions/lab1.so", why, sizeof why), 0);
}
END_TEST

/* Without objdump the grader says the machine lacks it; it never calls the
 * library clean, and grades nothing. */
START_TEST(without_objdump_nothing_is_clean)
{
    char why[1024];
    const char *old = getenv("PATH");
    char saved[4096];
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    setenv("PATH", "/nonexistent-cudalabs", 1);
    int rc = hostcode_scan("build/solutions/lab1.so", why, sizeof why);
    int prc = policy_check("build/solutions/lab1.so", NULL, why, sizeof why);
    setenv("PATH", saved, 1);
    ck_assert_int_eq(rc, -1);
    ck_assert_int_eq(prc, POLICY_SETUP);
    ck_assert_ptr_nonnull(strstr(why, "not of the submission"));
    static char out[65536];
    const char *env[] = {"PATH=/nonexistent-cudalabs", NULL};
    char *argv[] = {(char *)grade_path(), "lab1", "--solutions", NULL};
    ck_assert_int_eq(run_command(argv, env, out, sizeof out), 1);
    ck_assert_msg(strstr(out, "grade: cannot check") && strstr(out, "objdump") &&
                      strstr(out, "Nothing was graded") && !strstr(out, "REJECTED"),
                  "%s", out);
}
END_TEST

Suite *make_policy_suite(void)
{
    Suite *s = suite_create("policy");
    TCase *tc = tcase_create("policy");
    tcase_add_test(tc, recognises_library_names);
    tcase_add_test(tc, own_names_are_not_borrowed);
    tcase_add_test(tc, refuses_back_doors);
    tcase_add_test(tc, references_pass);
    tcase_add_test(tc, accepts_what_the_labs_teach);
    tcase_add_test(tc, accepts_cub_s_umbrella_header);
    tcase_add_test(tc, knows_device_wide_source_paths);
    tcase_add_test(tc, names_the_way_out_for_a_cub_shaped_name);
    tcase_add_test(tc, reads_the_full_symbol_table);
    tcase_add_test(tc, refuses_a_stripped_library);
    tcase_add_test(tc, reads_objdump_lines);
    tcase_add_test(tc, finds_a_raw_system_call);
    tcase_add_test(tc, without_objdump_nothing_is_clean);
    suite_add_tcase(s, tc);
    return s;
}
