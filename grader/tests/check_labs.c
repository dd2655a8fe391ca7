#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "../../common/rng.h"
#include "../labs/transpose_lab.h"
#include "../patch.h"

#include "../lab.h"
#include "../runner.h"
#include "tests.h"

extern const lab_spec lab_transpose;

START_TEST(find_by_any_name)
{
    ck_assert_ptr_eq(lab_find("lab1"), &lab_transpose);
    ck_assert_ptr_eq(lab_find("1"), &lab_transpose);
    ck_assert_ptr_eq(lab_find("transpose"), &lab_transpose);
    ck_assert_ptr_eq(lab_find("1-transpose"), &lab_transpose);
    ck_assert_ptr_null(lab_find("lab9"));
    ck_assert_ptr_null(lab_find("lab"));
    ck_assert_ptr_null(lab_find(""));
    ck_assert_ptr_null(lab_find(NULL));
    ck_assert_int_eq(lab_find("lab4")->number, 4);
    for (int i = 0; i < lab_count; i++) /* all seven are open */
        ck_assert_int_eq(lab_table[i]->available, 1);
    ck_assert_int_eq(lab_count, 7);
}
END_TEST

/* The sizes the issue asks for, the benchmark being 8192 x 8192. */
START_TEST(transpose_sizes)
{
    const char *want[] = {"8192 x 8192", "8192 x 4096", "1 x 1", "1 x 4097",
                          "4097 x 1", "33 x 65", "1000 x 1003", "4097 x 31"};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        int found = 0;
        for (int i = 0; i < lab_transpose.n_sizes; i++) {
            char t[64];
            lab_transpose.size_text(i, t, sizeof t);
            found |= strcmp(t, want[w]) == 0;
        }
        ck_assert_msg(found, "size %s missing", want[w]);
    }
    char b[64];
    lab_transpose.size_text(lab_transpose.bench_size, b, sizeof b);
    ck_assert_str_eq(b, "8192 x 8192");
    /* 2 x 8192^2 floats of 4 bytes = 0.537 GB per call */
    ck_assert_double_eq_tol(lab_transpose.work(5, lab_transpose.bench_size), 0.536870912, 1e-9);
}
END_TEST

/* In every available lab: each stage's speed is graded against earlier
 * stages only, with a real threshold and a hint, and the symbols are distinct. */
START_TEST(stage_tables_are_sound)
{
    const lab_spec *l = lab_table[_i];
    if (l->n_stages == 0) /* not written yet */
        return;
    ck_assert_int_le(l->n_stages, LAB_MAX_STAGES);
    ck_assert_int_gt(l->n_sizes, 0);
    ck_assert_int_le(l->n_sizes, 32); /* a checking witness's sizes are bits of a word */
    ck_assert(l->bench_size >= 0 && l->bench_size < l->n_sizes);
    for (int s = 0; s < l->n_stages; s++) {
        const lab_stage *st = &l->stages[s];
        for (int t = 0; t < s; t++)
            ck_assert_str_ne(st->symbol, l->stages[t].symbol);
        if (st->points_speed > 0) {
            /* Held to an earlier stage, or to a share of its ceiling alone. */
            ck_assert(st->n_base > 0 ? st->min_speedup > 0.5 : st->min_ceiling > 0);
            ck_assert_msg(st->hint && strlen(st->hint) > 40, "stage %d has no hint", s);
        } else {
            ck_assert(st->min_speedup == 0);
            ck_assert_int_eq(st->n_base, 0);
        }
        /* Its bases: earlier stages, each named once. */
        ck_assert(st->n_base >= 0 && st->n_base <= LAB_MAX_BASES);
        for (int b = 0; b < st->n_base; b++) {
            ck_assert_msg(st->base[b] >= 0 && st->base[b] < s, "stage %d: base %d", s, st->base[b]);
            for (int c = 0; c < b; c++)
                ck_assert_int_ne(st->base[b], st->base[c]);
        }
        /* Its techniques: each a pattern with its words, none after a gap. */
        for (int t = 0; t < LAB_MAX_TECHNIQUES; t++) {
            const lab_technique *te = &st->technique[t];
            ck_assert_msg(!te->pattern == !te->text, "stage %d technique %d", s, t);
            if (t > 0 && te->pattern)
                ck_assert_ptr_nonnull(st->technique[t - 1].pattern);
        }
        /* A size of its own: one of the lab's, not the lab's own (then it is
         * left out), and a ceiling of its own name, since the scoreboard
         * shows one line per ceiling name. A required technique exists. */
        if (st->timed_at) {
            ck_assert(st->timed_at - 1 >= 0 && st->timed_at - 1 < l->n_sizes);
            ck_assert_int_ne(lab_timed_size(l, s), l->bench_size);
            ck_assert_msg(st->ceiling && strcmp(st->ceiling, l->ceiling_name) != 0,
                          "lab %d stage %d is timed at a size of its own, under the lab's "
                          "ceiling name",
                          l->number, s);
            for (int t = 0; t < l->n_stages; t++)
                if (t != s && lab_timed_size(l, t) != lab_timed_size(l, s))
                    ck_assert_str_ne(lab_ceiling_name(l, t), lab_ceiling_name(l, s));
        }
        if (st->technique_required)
            ck_assert_int_gt(lab_stage_techniques(st), 0);
        /* Reference figures: for every stage, when the lab names their GPU, else for none. */
        ck_assert_msg(l->reference_gpu ? st->reference > 0 : st->reference == 0,
                      "lab %d stage %d: reference %g", l->number, s, st->reference);
        if (st->given)
            ck_assert_int_eq(st->points_correct + st->points_speed, 0);
        ck_assert(st->min_ceiling >= 0 && st->min_ceiling <= 1);
        if (st->min_ceiling > 0)
            ck_assert_int_gt(st->points_speed, 0);
    }
    /* Every size's words fit the 128 bytes the report and the messages give them. */
    for (int z = 0; z < l->n_sizes; z++) {
        char sz[256];
        l->size_text(z, sz, sizeof sz);
        ck_assert_msg(strlen(sz) > 0 && strlen(sz) < 128, "lab%d size %d: \"%s\"", l->number, z,
                      sz);
    }
}
END_TEST

/* Time limits follow the work: generous at the default reps, longer with
 * more reps, shorter with --quick. */
START_TEST(timeouts_follow_the_work)
{
    const lab_spec *l = lab_table[_i];
    if (l->n_stages == 0)
        return;
    for (int s = 0; s < l->n_stages; s++) {
        double t = runner_stage_timeout(l, s, 20, 0);
        ck_assert_msg(t >= 15 && t <= 400, "lab%d stage %d: %.0f s", l->number, s, t);
        ck_assert(runner_stage_timeout(l, s, 20, 1) <= t);
        if (l->stages[s].points_speed > 0 || !l->stages[s].given)
            ck_assert_msg(runner_stage_timeout(l, s, 200, 0) > t, "lab%d stage %d", l->number, s);
    }
}
END_TEST

/* Capability gates: lab 4's tensor-core stage needs 8.0 (TF32 mma.sync,
 * cp.async) and more; every stage of lab 7 needs 9.0 and only 9.0 (its code
 * is built for sm_90a alone); nothing else needs more than the 7.5 every lab
 * supports. */
START_TEST(capability_gates)
{
    for (int l = 0; l < lab_count; l++)
        for (int s = 0; s < lab_table[l]->n_stages; s++) {
            const lab_stage *st = &lab_table[l]->stages[s];
            int hopper = lab_table[l]->number == 7;
            int tensor = lab_table[l]->number == 4 && strcmp(st->symbol, "gemm_tensor_core") == 0;
            ck_assert_msg(st->min_cc == (hopper ? 90 : tensor ? 80 : 0),
                          "lab %d stage %d: min_cc %d", lab_table[l]->number, s, st->min_cc);
            ck_assert_msg(st->max_cc == (hopper ? 90 : 0), "lab %d stage %d: max_cc %d",
                          lab_table[l]->number, s, st->max_cc);
            ck_assert_int_eq(lab_stage_available(st, 8, 0), !hopper);
            ck_assert(lab_stage_available(st, 9, 0));
            ck_assert_int_eq(lab_stage_available(st, 10, 0), !hopper);
            ck_assert_int_eq(lab_stage_available(st, 12, 0), !hopper);
            ck_assert_int_eq(lab_stage_available(st, 8, 9), !hopper);
            ck_assert_int_eq(lab_stage_available(st, 7, 5), !tensor && !hopper);
            ck_assert_int_eq(lab_stage_available(st, 7, 9), !tensor && !hopper);
        }
    /* make test on a GPU leaves out, as a whole, the labs it cannot run: lab 7
     * off 9.0, never lab 4 (its stage 8 alone is NOT AVAILABLE on 7.5). */
    const char *saved = getenv("CUDA_LABS_TEST_GPU_CC");
    char keep[16] = "";
    if (saved)
        snprintf(keep, sizeof keep, "%s", saved);
    const char *ccs[] = {"75", "80", "90", "100", "120"};
    for (int c = 0; c < 5; c++) {
        setenv("CUDA_LABS_TEST_GPU_CC", ccs[c], 1);
        for (int l = 0; l < lab_count; l++)
            ck_assert_int_eq(test_lab_runs_here(lab_table[l]),
                             lab_table[l]->number != 7 || strcmp(ccs[c], "90") == 0);
    }
    unsetenv("CUDA_LABS_TEST_GPU_CC"); /* no GPU seen: every lab */
    for (int l = 0; l < lab_count; l++)
        ck_assert(test_lab_runs_here(lab_table[l]));
    if (saved)
        setenv("CUDA_LABS_TEST_GPU_CC", keep, 1);
}
END_TEST

START_TEST(transpose_thresholds)
{
    const lab_spec *l = &lab_transpose;
    ck_assert_int_eq(l->n_stages, 6);
    /* A stage that only calls the one before it must not pass its speed test. */
    ck_assert(l->stages[4].min_speedup > 1.0);
    ck_assert(l->stages[5].min_speedup > 1.0);
    ck_assert_int_eq(l->stages[3].base[0], 1); /* the tile beats the faster naive stage */
    ck_assert_int_eq(l->stages[3].base[1], 2);
}
END_TEST

/* Replays (lab 1): every timed call's input is patched. The check accepts
 * the transpose (or copy) of the patched input, rejects that of the
 * unpatched input and of the call before, and leaves the output as it was. */
START_TEST(transpose_replays_are_caught)
{
    static const int shapes[][2] = {{33, 65}, {1000, 1003}, {4097, 31}};
    for (int is_copy = 0; is_copy < 2; is_copy++)
        for (size_t z = 0; z < sizeof shapes / sizeof shapes[0]; z++) {
            int rows = shapes[z][0], cols = shapes[z][1];
            size_t n = (size_t)rows * cols;
            float *in = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
            float *expect = malloc(n * sizeof(float)), *now = malloc(n * sizeof(float));
            float *before = malloc(n * sizeof(float));
            ck_assert(in && y && expect && now && before);
            rng r;
            rng_seed(&r, 5 + z);
            rng_fill_uniform(&r, in, n, -1.0f, 1.0f);
            for (size_t i = 0; i < n; i++)
                expect[transpose_out_index(i, rows, cols, is_copy)] = in[i];
            memcpy(before, expect, n * sizeof(float));
            patch_set p = {0};
            for (int call = 0; call < 8; call++) {
                patch_pick(&p, 16, n, &r);
                transpose_patch_values(in, p.idx, p.n, &r, p.val);
                memcpy(y, in, n * sizeof(float));
                for (int k = 0; k < p.n; k++) {
                    memcpy(&y[p.idx[k]], &p.val[k], sizeof(float));
                    ck_assert(y[p.idx[k]] != in[p.idx[k]] && y[p.idx[k]] != 0.0f);
                    ck_assert(y[p.idx[k]] >= -1.0f && y[p.idx[k]] < 1.0f);
                }
                for (size_t i = 0; i < n; i++)
                    now[transpose_out_index(i, rows, cols, is_copy)] = y[i];
                ck_assert(transpose_patched_ok(expect, now, rows, cols, is_copy, p.idx, p.val, p.n));
                ck_assert(!transpose_patched_ok(expect, before, rows, cols, is_copy, p.idx, p.val,
                                                p.n));
                ck_assert(!transpose_patched_ok(expect, expect, rows, cols, is_copy, p.idx, p.val,
                                                p.n));
                /* a wrong word away from the patch is seen too, and got is left as it was */
                size_t o = transpose_out_index(n / 3, rows, cols, is_copy);
                if (patch_find(&p, n / 3) < 0) {
                    now[o] = 2.0f;
                    ck_assert(!transpose_patched_ok(expect, now, rows, cols, is_copy, p.idx, p.val,
                                                    p.n));
                    ck_assert(now[o] == 2.0f);
                    now[o] = y[n / 3];
                }
                size_t moved = 0;
                for (size_t i = 0; i < n; i++)
                    moved += now[transpose_out_index(i, rows, cols, is_copy)] != y[i];
                ck_assert_uint_eq(moved, 0);
                memcpy(before, now, n * sizeof(float));
            }
            free(in);
            free(y);
            free(expect);
            free(now);
            free(before);
        }
}
END_TEST

Suite *make_labs_suite(void)
{
    Suite *s = suite_create("labs");
    TCase *tc = tcase_create("labs");
    tcase_add_test(tc, find_by_any_name);
    tcase_add_test(tc, transpose_sizes);
    tcase_add_loop_test(tc, stage_tables_are_sound, 0, lab_count);
    tcase_add_test(tc, transpose_thresholds);
    tcase_add_test(tc, capability_gates);
    tcase_add_test(tc, transpose_replays_are_caught);
    tcase_add_loop_test(tc, timeouts_follow_the_work, 0, lab_count);
    suite_add_tcase(s, tc);
    return s;
}
