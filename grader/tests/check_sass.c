/* check_sass.c: reading cuobjdump -sass output, matching technique patterns,
 * and the technique lines of the report, on a recorded-style listing. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lab.h"
#include "../results.h"
#include "../sass.h"
#include "../verdict.h"
#include "../labs/conv_lab.h"
#include "../labs/gemm_lab.h"
#include "tests.h"

/* The layout cuobjdump prints: one section per architecture of the fat
 * binary, a "Function :" line per kernel, an instruction per line with its
 * address and its encoding in comments, continuation lines with encodings
 * only. */
static const char listing[] =
    "\n"
    "Fatbin elf code:\n"
    "================\n"
    "arch = sm_80\n"
    "code version = [1,7]\n"
    "host = linux\n"
    "compile_size = 64bit\n"
    "\n"
    "\tcode for sm_80\n"
    "\t\tFunction : _Z11tile_kernelILi1EEvPKfPfii\n"
    "\t.headerflags\t@\"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM80\"\n"
    "        /*0000*/                   MOV R1, c[0x0][0x28] ;                  /* 0x00000a0000017a02 */\n"
    "                                                                           /* 0x000fe40000000f00 */\n"
    "        /*0010*/              @!P0 LDG.E R5, [R2.64] ;                      /* 0x0000000402058981 */\n"
    "        /*0020*/                   STS [R7.X4], R5 ;                       /* 0x0000000507007388 */\n"
    "        /*0030*/                   BAR.SYNC 0x0 ;                          /* 0x0000000000007b1d */\n"
    "        /*0040*/                   LDS.U R9, [R4.X4] ;                     /* 0x0000000004097984 */\n"
    "        /*0050*/                   EXIT ;                                  /* 0x000000000000794d */\n"
    "\t\t..........\n"
    "\n"
    "\t\tFunction : _Z13vector_kernelPK6float4PS_ii\n"
    "        /*0000*/                   LDG.E.128.CONSTANT R4, [R2.64] ;        /* 0x0000000402047981 */\n"
    "        /*0010*/                   STG.E.128 [R6.64], R4 ;                 /* 0x0000000406007986 */\n"
    "\t\t..........\n"
    "\n"
    "\t\tFunction : _Z8mma_tf32PKfS0_Pf\n"
    "        /*0000*/                   HMMA.1688.F32.TF32 R4, R12, R20, R4 ;   /* 0x000000140c04723c */\n"
    "\t\t..........\n"
    "\n"
    "\t\tFunction : _Z8mma_bf16PKtS0_Pf\n"
    "        /*0000*/                   HMMA.16816.F32.BF16 R4, R12, R20, R4 ;  /* 0x000000140c04723c */\n"
    "        /*0010*/                   HGMMA.64x256x16.F32.BF16 R24, gdesc[UR4], R24 ; /* 0x0 */\n"
    "\t\t..........\n"
    "\n"
    "\t\tFunction : _Z9wgmma_tf32PKfS0_Pf\n"
    "        /*0000*/                   HGMMA.64x256x8.F32.TF32 R24, R152, gdesc[UR4], R24 ; /* 0x0 */\n"
    "\t\t..........\n"
    "\n"
    "\t\tFunction : _Z13mma_fp16_deadPKfS0_Pf\n"
    "        /*0000*/                   HMMA.16816.F32 R4, R12, R20, R4 ;       /* 0x000000140c04723c */\n"
    "        /*0010*/              @!P0 HMMA.1688.F32.TF32 R4, R12, R20, R4 ;   /* 0x000000140c04723c */\n"
    "\t\t..........\n"
    "\n"
    "\t\tFunction : _Z8mma_fp64PKdS0_Pd\n"
    "        /*0000*/                   DMMA.884 R4, R12, R20, R4 ;             /* 0x000000140c04723f */\n"
    "\t\t..........\n"
    "\n"
    "\tcode for sm_90\n"
    "\t\tFunction : _Z11tile_kernelILi1EEvPKfPfii\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */\n"
    "        /*0010*/                   SHFL.BFLY PT, R3, R2, 0x10, 0x1f ;      /* 0x0e201f0002037f89 */\n"
    "\t\t..........\n";

START_TEST(reads_kernels_and_opcodes)
{
    sass_code code;
    ck_assert_int_eq(sass_parse(listing, &code), 0);
    ck_assert_int_eq(code.n, 7); /* the tile kernel appears for two architectures: merged */
    const char *tile = "_Z11tile_kernelILi1EEvPKfPfii", *vec = "_Z13vector_kernelPK6float4PS_ii";
    ck_assert_int_eq(sass_uses(&code, tile, "STS"), 1);
    ck_assert_int_eq(sass_uses(&code, tile, "LDS"), 1);      /* LDS.U */
    ck_assert_int_eq(sass_uses(&code, tile, "LDG"), 1);      /* behind a predicate */
    ck_assert_int_eq(sass_uses(&code, tile, "SHFL"), 1);     /* from the sm_90 code */
    ck_assert_int_eq(sass_uses(&code, tile, "SHFL.UP"), 0);  /* BFLY is not UP */
    ck_assert_int_eq(sass_uses(&code, tile, "LDG.128"), 0);
    ck_assert_int_eq(sass_uses(&code, tile, "LD"), 0);       /* whole first parts only */
    ck_assert_int_eq(sass_uses(&code, vec, "LDG.128"), 1);   /* LDG.E.128.CONSTANT */
    ck_assert_int_eq(sass_uses(&code, vec, "LDG.E.128"), 1);
    ck_assert_int_eq(sass_uses(&code, vec, "LDG.12"), 0);    /* whole modifiers only */
    ck_assert_int_eq(sass_uses(&code, vec, "LDS|STG.128"), 1);
    ck_assert_int_eq(sass_uses(&code, vec, "HMMA"), 0);
    ck_assert_int_eq(sass_uses(&code, "_Z5otherv", "LDS"), -1);
    /* The TF32 stages' patterns (lab 4's stage 8, lab 7's bonus): the TF32
     * forms of mma.sync and wgmma match; BF16 (and FP16) forms do not. */
    const char *mt = "_Z8mma_tf32PKfS0_Pf", *mb = "_Z8mma_bf16PKtS0_Pf", *wt = "_Z9wgmma_tf32PKfS0_Pf";
    ck_assert_int_eq(sass_uses(&code, mt, "HMMA.TF32"), 1);
    ck_assert_int_eq(sass_uses(&code, mb, "HMMA.TF32"), 0);
    ck_assert_int_eq(sass_uses(&code, mb, "HMMA"), 1);
    ck_assert_int_eq(sass_uses(&code, wt, "HGMMA.TF32"), 1);
    ck_assert_int_eq(sass_uses(&code, mb, "HGMMA.TF32"), 0);
    ck_assert_int_eq(sass_uses(&code, mb, "HGMMA"), 1);
    ck_assert_int_eq(sass_uses(&code, wt, "HMMA.TF32"), 0); /* HGMMA is not HMMA */
    sass_free(&code);
    ck_assert_int_eq(code.n, 0);
}
END_TEST

/* Blackwell's tcgen05.mma, as ptxas 13.0 writes it for sm_100a (cuobjdump on
 * the H200's machine, 2026-12-04): kind::f16 and kind::tf32 both give
 * UTCHMMA, the kind being in the instruction descriptor; kind::f8f6f4 gives
 * UTCQMMA, kind::i8 UTCIMMA. */
static const char blackwell[] =
    "\tcode for sm_100a\n"
    "\t\tFunction : _Z5k_f16jmmji\n"
    "        /*00a0*/                   UTCHMMA gdesc[UR10], gdesc[UR12], tmem[UR8], tmem[UR4], "
    "idesc[UR5], UP0 ;  /* 0x00ff040c0a0075ea */\n"
    "\t\t..........\n"
    "\t\tFunction : _Z6k_tf32jmmji\n"
    "        /*00a0*/                   UTCHMMA gdesc[UR10], gdesc[UR12], tmem[UR8], tmem[UR4], "
    "idesc[UR5], UP0 ;  /* 0x00ff040c0a0075ea */\n"
    "\t\t..........\n"
    "\t\tFunction : _Z8k_f8f6f4jmmji\n"
    "        /*00a0*/                   UTCQMMA gdesc[UR10], gdesc[UR12], tmem[UR8], tmem[UR4], "
    "idesc[UR5], UP0 ;  /* 0x00ff040c0a0075ea */\n"
    "\t\t..........\n"
    "\t\tFunction : _Z4k_i8jmmji\n"
    "        /*00a0*/                   UTCIMMA gdesc[UR10], gdesc[UR12], tmem[UR8], tmem[UR4], "
    "idesc[UR5], UP0 ;  /* 0x00ff040c0a0075ea */\n"
    "\t\t..........\n";

START_TEST(blackwell_tensor_cores_refused)
{
    sass_code code;
    ck_assert_int_eq(sass_parse(blackwell, &code), 0);
    ck_assert_int_eq(code.n, 4);
    const char *k[] = {"_Z5k_f16jmmji", "_Z6k_tf32jmmji", "_Z8k_f8f6f4jmmji", "_Z4k_i8jmmji"};
    /* Lab 4's float32 stages and lab 6 refuse every kind. */
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(sass_uses(&code, k[i], GEMM_TENSOR_OPS), 1);
        ck_assert_int_eq(sass_uses(&code, k[i], CONV_REFUSED_OPS), 1);
    }
    /* The TF32 stage refuses the integer and FP8 kinds; UTCHMMA cannot be
     * told from kind::tf32, so it is left to the inputs. */
    ck_assert_int_eq(sass_uses(&code, k[0], GEMM_BELOW_TF32_OPS), 0);
    ck_assert_int_eq(sass_uses(&code, k[1], GEMM_BELOW_TF32_OPS), 0);
    ck_assert_int_eq(sass_uses(&code, k[2], GEMM_BELOW_TF32_OPS), 1);
    ck_assert_int_eq(sass_uses(&code, k[3], GEMM_BELOW_TF32_OPS), 1);
    sass_free(&code);
}
END_TEST

START_TEST(short_names)
{
    char s[64];
    sass_short_name("_Z11tile_kernelILi1EEvPKfPfii", s, sizeof s);
    ck_assert_str_eq(s, "tile_kernel");
    sass_short_name("plain_c_kernel", s, sizeof s);
    ck_assert_str_eq(s, "plain_c_kernel");
    sass_short_name("_Z99x", s, sizeof s); /* a length past the end: left as it is */
    ck_assert_str_eq(s, "_Z99x");
}
END_TEST

/* sass_report into a string (the caller frees it); its count in *n. */
static char *report_text(const lab_spec *spec, lab_results *res, const sass_code *code,
                         const lab_technique **missing, int *n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    *n = sass_report(f, spec, res, code, missing);
    fclose(f);
    return text;
}

/* A correct stage whose kernels lack its technique gets a line; one that
 * has it, an incorrect one, or one whose kernels the library does not hold
 * (a grader helper), gets none. */
START_TEST(report_names_what_is_missing)
{
    static const lab_stage stages[4] = {
        {.title = "given", .symbol = "s0", .given = 1},
        {.title = "vectorised", .symbol = "s1", .points_correct = 10, .points_speed = 10,
         .min_speedup = 1.1, LAB_BASES(0),
         .technique = {{"LDG.128|STG.128", "16-byte global loads or stores (LDG.E.128, STG.E.128)"}}},
        {.title = "shared tile", .symbol = "s2", .points_correct = 10, .points_speed = 10,
         .min_speedup = 1.1, LAB_BASES(1), .technique = {{"STS", "shared-memory stores (STS)"}}},
        {.title = "shuffles", .symbol = "s3", .points_correct = 10, .points_speed = 10,
         .min_speedup = 1.1, LAB_BASES(2),
         .technique = {{"SHFL.DOWN", "downward warp shuffles (SHFL.DOWN)"}}},
    };
    lab_spec spec = {.number = 9, .name = "test", .stages = stages, .n_stages = 4};
    lab_results *res = calloc(1, sizeof *res);
    ck_assert_ptr_nonnull(res);
    res->t[1][TEST_CORRECT].v = V_PASS; /* its kernel is the tile kernel: no 128-bit access */
    snprintf(res->t[1][TEST_CORRECT].kernels, sizeof res->t[1][TEST_CORRECT].kernels, "%s",
             "_Z11tile_kernelILi1EEvPKfPfii");
    res->t[2][TEST_CORRECT].v = V_PASS; /* has STS */
    snprintf(res->t[2][TEST_CORRECT].kernels, sizeof res->t[2][TEST_CORRECT].kernels, "%s",
             "_Z13vector_kernelPK6float4PS_ii,_Z11tile_kernelILi1EEvPKfPfii");
    res->t[3][TEST_CORRECT].v = V_WRONG; /* not correct: not looked at */
    snprintf(res->t[3][TEST_CORRECT].kernels, sizeof res->t[3][TEST_CORRECT].kernels, "%s",
             "_Z13vector_kernelPK6float4PS_ii");
    sass_code code;
    ck_assert_int_eq(sass_parse(listing, &code), 0);
    const lab_technique *missing[4];
    int n = 0;
    char *text = report_text(&spec, res, &code, missing, &n);
    ck_assert_int_eq(n, 1);
    ck_assert_ptr_eq(missing[1], &stages[1].technique[0]);
    ck_assert_str_eq(res->t[1][TEST_CORRECT].missing_technique,
                     "16-byte global loads or stores (LDG.E.128, STG.E.128)");
    ck_assert_str_eq(res->t[2][TEST_CORRECT].missing_technique, "");
    ck_assert_ptr_null(missing[2]);
    ck_assert_ptr_null(missing[3]);
    /* An instructor who requires stage 1's technique (and stage 2's, which is
     * there) fails stage 1's speed test, which had passed; nothing else. */
    res->t[1][TEST_PERF].v = V_PASS;
    res->t[2][TEST_PERF].v = V_PASS;
    int required[4] = {0, 1, 1, 0};
    ck_assert_int_eq(sass_require(&spec, res, missing, required), 1);
    ck_assert_int_eq(res->t[1][TEST_PERF].v, V_NO_TECHNIQUE);
    ck_assert_ptr_nonnull(strstr(res->t[1][TEST_PERF].msg, "this course requires"));
    ck_assert_int_eq(res->t[1][TEST_CORRECT].v, V_PASS);
    ck_assert_int_eq(res->t[2][TEST_PERF].v, V_PASS);
    ck_assert_str_eq(verdict_name(V_NO_TECHNIQUE), "TECHNIQUE MISSING");
    /* Without the requirement, nothing changes. */
    res->t[1][TEST_PERF].v = V_PASS;
    ck_assert_int_eq(sass_require(&spec, res, missing, NULL), 0);
    ck_assert_int_eq(res->t[1][TEST_PERF].v, V_PASS);
    /* Code that could not be read: each required stage that passed is said to
     * be unchecked, and keeps its verdict; one that failed is not named. */
    char *note = NULL;
    size_t note_len = 0;
    FILE *nf = open_memstream(&note, &note_len);
    res->t[2][TEST_PERF].v = V_SLOW;
    ck_assert_int_eq(sass_unchecked(nf, &spec, res, required, "cuobjdump was not found"), 1);
    fclose(nf);
    ck_assert_ptr_nonnull(strstr(note, "Technique not checked: stage 1 (vectorised) must use "
                                       "16-byte global loads or stores (LDG.E.128, STG.E.128), "
                                       "but its machine code could not be read (cuobjdump was "
                                       "not found). No points are lost for it."));
    ck_assert_ptr_null(strstr(note, "stage 2"));
    ck_assert_int_eq(res->t[1][TEST_PERF].v, V_PASS);
    free(note);
    res->t[2][TEST_PERF].v = V_PASS;
    ck_assert_ptr_nonnull(strstr(text, "Techniques (read from the machine code"));
    ck_assert_ptr_nonnull(strstr(text, "stage 1 (vectorised): no 16-byte global loads or stores "
                                       "(LDG.E.128, STG.E.128) in tile_kernel."));
    ck_assert_ptr_null(strstr(text, "stage 2"));
    ck_assert_ptr_null(strstr(text, "stage 3"));
    free(text);
    /* Everything there: no heading either. */
    res->t[1][TEST_CORRECT].v = V_WRONG;
    text = report_text(&spec, res, &code, NULL, &n);
    ck_assert_int_eq(n, 0);
    ck_assert_str_eq(text, "");
    free(text);
    /* The kernels of its timed calls count too: stage 1's checked calls
     * launched the tile kernel, its timed ones the vector kernel, which has
     * the 16-byte accesses (each kernel named once in the message). */
    res->t[1][TEST_CORRECT].v = V_PASS;
    snprintf(res->t[1][TEST_PERF].kernels, sizeof res->t[1][TEST_PERF].kernels, "%s",
             "_Z11tile_kernelILi1EEvPKfPfii,_Z13vector_kernelPK6float4PS_ii");
    text = report_text(&spec, res, &code, missing, &n);
    ck_assert_int_eq(n, 0);
    ck_assert_ptr_null(missing[1]);
    ck_assert_str_eq(text, "");
    free(text);
    snprintf(res->t[1][TEST_PERF].kernels, sizeof res->t[1][TEST_PERF].kernels, "%s",
             "_Z11tile_kernelILi1EEvPKfPfii");
    text = report_text(&spec, res, &code, missing, &n);
    ck_assert_int_eq(n, 1);
    ck_assert_ptr_nonnull(strstr(text, "(LDG.E.128, STG.E.128) in tile_kernel. The stage"));
    free(text);
    res->t[1][TEST_PERF].kernels[0] = '\0';
    /* A kernel the library's code does not hold counts as not seen. */
    res->t[1][TEST_CORRECT].v = V_PASS;
    snprintf(res->t[1][TEST_CORRECT].kernels, sizeof res->t[1][TEST_CORRECT].kernels, "%s",
             "_Z6helperv");
    text = report_text(&spec, res, &code, missing, &n);
    ck_assert_int_eq(n, 0);
    ck_assert_ptr_null(missing[1]);
    free(text);
    sass_free(&code);
    free(res);
}
END_TEST

/* Instructions a stage must not hold: "!MOD" asks for a modifier's absence;
 * a correct TF32 stage whose kernels (checked or timed calls) hold a tensor-
 * core instruction below TF32 is REJECTED, its passed speed test SKIPPED;
 * with a partial kernel list every kernel of the library answers for it. */
START_TEST(refuses_instructions_below_the_stage)
{
    sass_code code;
    ck_assert_int_eq(sass_parse(listing, &code), 0);
    const char *tf32 = "_Z8mma_tf32PKfS0_Pf", *bf16 = "_Z8mma_bf16PKtS0_Pf",
               *wgmma = "_Z9wgmma_tf32PKfS0_Pf", *fp16 = "_Z13mma_fp16_deadPKfS0_Pf",
               *fp64 = "_Z8mma_fp64PKdS0_Pd";
    ck_assert_int_eq(sass_uses(&code, tf32, "HMMA!TF32"), 0);
    ck_assert_int_eq(sass_uses(&code, tf32, "HMMA.TF32"), 1);
    ck_assert_int_eq(sass_uses(&code, bf16, "HMMA!TF32"), 1);
    ck_assert_int_eq(sass_uses(&code, bf16, "HMMA.F32!BF16"), 0);
    ck_assert_int_eq(sass_uses(&code, bf16, "HMMA.F32!TF32!F16"), 1); /* .F16 is not .F32 */
    ck_assert_int_eq(sass_uses(&code, fp16, "HMMA!TF32"), 1); /* the FP16 form, beside a TF32 one */
    ck_assert_int_eq(sass_uses(&code, fp16, "HMMA.TF32"), 1);
    ck_assert_int_eq(sass_uses(&code, wgmma, GEMM_BELOW_TF32_OPS), 0);
    ck_assert_int_eq(sass_uses(&code, tf32, GEMM_BELOW_TF32_OPS), 0);
    ck_assert_int_eq(sass_uses(&code, fp64, GEMM_BELOW_TF32_OPS), 0);
    ck_assert_int_eq(sass_uses(&code, bf16, GEMM_BELOW_TF32_OPS), 1);
    ck_assert_int_eq(sass_uses(&code, fp16, GEMM_BELOW_TF32_OPS), 1);

    static const lab_stage stages[2] = {
        {.title = "float32", .symbol = "s0", .points_correct = 5},
        {.title = "TF32", .symbol = "s1", .points_correct = 5, .points_speed = 5,
         .technique = {{"HMMA.TF32", "TF32 tensor-core instructions (HMMA with .TF32)"}},
         .refused_ops = {GEMM_BELOW_TF32_OPS, GEMM_BELOW_TF32_TEXT}},
    };
    lab_spec spec = {.number = 9, .name = "test", .stages = stages, .n_stages = 2};
    lab_results *res = calloc(1, sizeof *res);
    ck_assert_ptr_nonnull(res);
    test_record *corr = &res->t[1][TEST_CORRECT], *perf = &res->t[1][TEST_PERF];
    res->t[0][TEST_CORRECT].v = V_PASS; /* no refused_ops: never looked at */
    snprintf(res->t[0][TEST_CORRECT].kernels, sizeof corr->kernels, "%s", bf16);
    corr->v = V_PASS;
    perf->v = V_PASS;
    snprintf(corr->kernels, sizeof corr->kernels, "%s,%s", tf32, fp64);
    snprintf(perf->kernels, sizeof perf->kernels, "%s", tf32);
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 0);
    ck_assert_int_eq(corr->v, V_PASS);
    ck_assert_int_eq(perf->v, V_PASS);
    /* Its timed calls launched another kernel than its checked ones. */
    snprintf(perf->kernels, sizeof perf->kernels, "%s,%s", tf32, fp16);
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_int_eq(corr->v, V_REJECTED);
    ck_assert_str_eq(verdict_name(V_REJECTED), "REJECTED");
    ck_assert_ptr_nonnull(strstr(corr->msg, "stage 1 (TF32) launched mma_fp16_dead, which holds "
                                            "HMMA.16816.F32, one of the tensor-core instructions "
                                            "below TF32's precision"));
    ck_assert_ptr_nonnull(strstr(corr->msg, "move the path into a kernel of its own"));
    ck_assert_int_eq(perf->v, V_SKIPPED);
    ck_assert_ptr_nonnull(strstr(perf->msg, "HMMA.16816.F32"));
    ck_assert_int_eq(res->t[0][TEST_CORRECT].v, V_PASS);
    /* A name merely starting like a listed one is not that kernel: not
     * refused for the other's instruction (but for code it cannot read). */
    corr->v = V_PASS;
    perf->v = V_SLOW;
    snprintf(perf->kernels, sizeof perf->kernels, "%s,%sx", tf32, fp16);
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_ptr_null(strstr(corr->msg, "holds HMMA"));
    ck_assert_ptr_nonnull(strstr(corr->msg, "whose machine code is not in build/lab9.so"));
    corr->v = V_PASS;
    perf->v = V_SLOW;
    /* A partial list: every kernel of the library is read, those another
     * stage launched too (it could call them), so mma_bf16 comes first; the
     * message says how to avoid it. */
    corr->kernels_partial = 1;
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_int_eq(corr->v, V_REJECTED);
    ck_assert_ptr_nonnull(strstr(corr->msg, "so every kernel of the library was read, and "
                                            "mma_bf16 holds HMMA.16816.F32.BF16,"));
    ck_assert_ptr_nonnull(strstr(corr->msg, "let it launch fewer kernels"));
    ck_assert_int_eq(perf->v, V_SKIPPED);
    /* A whole listing without a kernel the stage launched: its code came
     * from somewhere else (a module registered at run time from bytes the
     * library carries), unread, so the stage is refused, saying why. */
    corr->kernels_partial = 0;
    corr->v = V_PASS;
    perf->v = V_PASS;
    snprintf(perf->kernels, sizeof perf->kernels, "%s", tf32);
    snprintf(corr->kernels, sizeof corr->kernels, "%s,_Z6unseenv", tf32);
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_int_eq(corr->v, V_REJECTED);
    ck_assert_ptr_nonnull(strstr(corr->msg, "launched unseen, whose machine code is not in "
                                            "build/lab9.so (a module registered or loaded at "
                                            "run time?)"));
    ck_assert_int_eq(perf->v, V_SKIPPED);
    ck_assert_ptr_nonnull(strstr(perf->msg, "code the grader could not read"));
    /* A listing cut short (over 64 MB) that may not hold a launched kernel
     * whole (it lacks it, or stops in it: the last one) could hold anything,
     * so the stage is refused, saying why. A kernel it holds before its last
     * passes. */
    corr->v = V_PASS;
    perf->v = V_PASS;
    code.cut = 1;
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_int_eq(corr->v, V_REJECTED);
    ck_assert_ptr_nonnull(strstr(corr->msg, "launched unseen, and cuobjdump's listing of "
                                            "build/lab9.so is longer than the 64 MB"));
    ck_assert_ptr_nonnull(strstr(perf->msg, "code the grader could not read"));
    corr->v = V_PASS;
    perf->v = V_PASS;
    snprintf(corr->kernels, sizeof corr->kernels, "%s", tf32);
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 0);
    /* the kernel of the listing's last "Function :" line (the tile kernel's
     * sm_90 code), where a cut listing stopped */
    snprintf(corr->kernels, sizeof corr->kernels, "_Z11tile_kernelILi1EEvPKfPfii");
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_ptr_nonnull(strstr(corr->msg, "launched tile_kernel, and cuobjdump's listing"));
    code.cut = 0;
    /* A stage that is not correct keeps its verdict. */
    corr->v = V_WRONG;
    perf->v = V_SKIPPED;
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 0);
    ck_assert_int_eq(corr->v, V_WRONG);
    /* Code that could not be read: said, and nothing lost. */
    corr->v = V_PASS;
    char *note = NULL;
    size_t note_len = 0;
    FILE *nf = open_memstream(&note, &note_len);
    ck_assert_int_eq(sass_unchecked(nf, &spec, res, NULL, "cuobjdump was not found"), 1);
    fclose(nf);
    ck_assert_ptr_nonnull(strstr(note, "Instructions not checked: stage 1 (TF32) must not use "
                                       "tensor-core instructions below TF32's precision"));
    ck_assert_int_eq(corr->v, V_PASS);
    free(note);
    sass_free(&code);
    free(res);
}
END_TEST

/* The code a GPU runs from a fat binary decides (a fallback for older GPUs
 * is not held against a stage on an H200), and a callee listed apart from
 * its kernel counts as the kernel's. */
static const char fat_listing[] =
    "\tcode for sm_75\n"
    "\t\tFunction : _Z4fat1v\n"
    "        /*0000*/                   HMMA.1688.F32 R4, R12, R20, R4 ;        /* 0x0 */\n"
    "\t\t..........\n"
    "\tcode for sm_90a\n"
    "\t\tFunction : _Z4fat1v\n"
    "        /*0000*/                   HMMA.1688.F32.TF32 R4, R12, R20, R4 ;   /* 0x0 */\n"
    "\t\t..........\n"
    "\t\tFunction : _Z4callv\n"
    "        /*0000*/                   CALL.REL.NOINC `($_Z4callv$_Z4halfv) ;  /* 0x0 */\n"
    "\t\tFunction : $_Z4callv$_Z4halfv\n"
    "        /*0010*/                   HMMA.16816.F32 R4, R12, R20, R4 ;       /* 0x0 */\n"
    "\t\t..........\n";

START_TEST(refuses_only_the_code_the_gpu_runs)
{
    static const lab_stage stages[1] = {
        {.title = "TF32", .symbol = "s0", .points_correct = 5,
         .refused_ops = {GEMM_BELOW_TF32_OPS, GEMM_BELOW_TF32_TEXT}},
    };
    lab_spec spec = {.number = 9, .name = "test", .stages = stages, .n_stages = 1};
    lab_results *res = calloc(1, sizeof *res);
    ck_assert_ptr_nonnull(res);
    test_record *corr = &res->t[0][TEST_CORRECT];
    snprintf(corr->kernels, sizeof corr->kernels, "_Z4fat1v");
    /* device (10 major + minor), the section it runs, whether refused */
    /* (a 9.1 GPU, were there one, could not load the sm_90a code) */
    static const int cases[][3] = {{90, 90, 0}, {75, 75, 1}, {86, 0, 1}, {0, 0, 1}, {120, 0, 1},
                                   {91, 0, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sass_code code;
        ck_assert_int_eq(sass_parse_for(fat_listing, &code, cases[i][0]), 0);
        ck_assert_int_eq(code.n, 3); /* the callee's opcodes are _Z4callv's too */
        ck_assert_int_eq(code.loaded_sm, cases[i][1]);
        corr->v = V_PASS;
        ck_assert_int_eq(sass_refuse(&spec, res, &code), cases[i][2]);
        ck_assert_int_eq(sass_uses(&code, "_Z4callv", "HMMA!TF32"), 1);
        sass_free(&code);
    }
    sass_code code;
    ck_assert_int_eq(sass_parse_for(fat_listing, &code, 90), 0);
    snprintf(corr->kernels, sizeof corr->kernels, "_Z4callv");
    corr->v = V_PASS;
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_ptr_nonnull(strstr(corr->msg, "launched call, which holds HMMA.16816.F32"));
    /* An extern "C" kernel may itself be named "$a$b": it keeps its entry. */
    snprintf(corr->kernels, sizeof corr->kernels, "$_Z4callv$_Z4halfv");
    corr->v = V_PASS;
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_int_eq(sass_uses(&code, "$_Z4callv$_Z4halfv", "HMMA!TF32"), 1);
    /* Cut short, a listing whose kernel lacks the section this GPU runs (a
     * fat binary cut before it) cannot clear it: refused. Whole, the
     * sm_90a code decides, as above. */
    snprintf(corr->kernels, sizeof corr->kernels, "_Z4fat1v");
    corr->v = V_PASS;
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 0);
    sass_free(&code);
    static const char cut_fat[] = "\tcode for sm_75\n"
                                  "\t\tFunction : _Z4fat1v\n"
                                  "        /*0000*/   HMMA.1688.F32.TF32 R4, R12, R20, R4 ; /* 0x0 */\n"
                                  "\t\tFunction : _Z5otherv\n"
                                  "        /*0000*/   FFMA R4, R12, R20, R4 ; /* 0x0 */\n";
    ck_assert_int_eq(sass_parse_for(cut_fat, &code, 90), 0);
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 0); /* whole: the sm_75 code, all there is */
    code.cut = 1;
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_ptr_nonnull(strstr(corr->msg, "launched fat1, and cuobjdump's listing"));
    corr->v = V_PASS; /* cut, and a partial list: what it launched is not known */
    snprintf(corr->kernels, sizeof corr->kernels, "_Z5otherv");
    /* not the last, but without this GPU's section either: refused */
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_ptr_nonnull(strstr(corr->msg, "launched other, and cuobjdump's listing"));
    corr->v = V_PASS;
    corr->kernels_partial = 1;
    ck_assert_int_eq(sass_refuse(&spec, res, &code), 1);
    ck_assert_ptr_nonnull(strstr(corr->msg, "launched more kernels than the grader lists, and "
                                            "cuobjdump's listing"));
    sass_free(&code);
    free(res);
}
END_TEST

/* Lab 6 refuses packed FP16 and BF16 arithmetic on the CUDA cores, but not
 * the same instructions with a zero among their first two sources: ptxas's
 * constant loads (HFMA2.MMA R3, -RZ, RZ, 1.875, 0 on sm_75 to sm_86) and its
 * FP16-to-FP32 conversions (HADD2.F32 R0, -RZ, R2.H0_H0), which an FP32
 * kernel may hold. */
START_TEST(packed_half_arithmetic_told_from_moves)
{
    static const char half_listing[] =
        "\tcode for sm_86\n"
        "\t\tFunction : _Z6constsPf\n"
        "        /*0000*/                   HFMA2.MMA R3, -RZ, RZ, 1.875, 0 ;      /* 0x0 */\n"
        "        /*0010*/              @!P0 HADD2.F32 R0, -RZ, R2.H0_H0 ;          /* 0x0 */\n"
        "        /*0020*/                   HFMA2 R5, R4, RZ.H0_H0, R6 ;           /* 0x0 */\n"
        "        /*0030*/                   HMUL2 R1, |RZ|, R1 ;                   /* 0x0 */\n"
        "        /*0040*/                   FFMA R7, R8, R9, R7 ;                  /* 0x0 */\n"
        "\t\t..........\n"
        "\t\tFunction : _Z5half2Pf\n"
        "        /*0000*/                   HFMA2 R4, R5, R6, R4 ;                 /* 0x0 */\n"
        "\t\t..........\n"
        "\t\tFunction : _Z9half2_mmaPf\n"
        "        /*0000*/                   HFMA2.MMA R4, -R5.H0_H0, R6, RZ ;      /* 0x0 */\n"
        "\t\t..........\n"
        "\t\tFunction : _Z4bf16Pf\n"
        "        /*0000*/                   HMUL2.BF16_V2 R1, R2, R3 ;             /* 0x0 */\n"
        "        /*0010*/                   HADD2 R4, R4, -R5 ;                    /* 0x0 */\n"
        "\t\t..........\n";
    sass_code code;
    ck_assert_int_eq(sass_parse(half_listing, &code), 0);
    ck_assert_int_eq(sass_uses(&code, "_Z6constsPf", CONV_REFUSED_OPS), 0);
    ck_assert_int_eq(sass_uses(&code, "_Z6constsPf", "HFMA2.MMA.ZEROSRC"), 1);
    ck_assert_int_eq(sass_uses(&code, "_Z6constsPf", "HADD2.F32.ZEROSRC"), 1);
    ck_assert_int_eq(sass_uses(&code, "_Z6constsPf", "FFMA"), 1);
    ck_assert_int_eq(sass_uses(&code, "_Z5half2Pf", CONV_REFUSED_OPS), 1);
    ck_assert_int_eq(sass_uses(&code, "_Z9half2_mmaPf", CONV_REFUSED_OPS), 1); /* a term, not a factor */
    ck_assert_int_eq(sass_uses(&code, "_Z4bf16Pf", "HMUL2!ZEROSRC"), 1);
    ck_assert_int_eq(sass_uses(&code, "_Z4bf16Pf", "HADD2!ZEROSRC"), 1);
    ck_assert_int_eq(sass_uses(&code, "_Z4bf16Pf", "HFMA2"), 0);
    sass_free(&code);
}
END_TEST

Suite *make_sass_suite(void)
{
    Suite *s = suite_create("sass");
    TCase *tc = tcase_create("sass");
    tcase_add_test(tc, reads_kernels_and_opcodes);
    tcase_add_test(tc, short_names);
    tcase_add_test(tc, blackwell_tensor_cores_refused);
    tcase_add_test(tc, report_names_what_is_missing);
    tcase_add_test(tc, refuses_instructions_below_the_stage);
    tcase_add_test(tc, refuses_only_the_code_the_gpu_runs);
    tcase_add_test(tc, packed_half_arithmetic_told_from_moves);
    suite_add_tcase(s, tc);
    return s;
}
