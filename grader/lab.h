/* lab.h: what the grader knows about a lab. One const lab_spec per lab, in
 * grader/labs/<name>.c: the stage table (order, thresholds, points), the sizes,
 * and the callbacks that set up data, call a stage and check its output.
 * Students cannot change any of it by editing their own file. */
#ifndef CUDA_LABS_LAB_H
#define CUDA_LABS_LAB_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "verdict.h"

#define LAB_MAX_STAGES 12
/* The most labs the course may have (grader/labs/labs.def, the list of labs):
 * the one cap on arrays that hold something per lab, indexed by position. */
#define LAB_MAX 8
#define LAB_MAX_BASES 2
#define LAB_MAX_TECHNIQUES 3

/* Machine instructions that show a stage's technique (the technique check
 * reads the SASS of the kernels the stage launched). */
typedef struct lab_technique {
    const char *pattern; /* SASS opcodes: alternatives split by '|', each an opcode with the
                            modifiers it must carry, "LDG.128|STG.128"; NULL: no technique */
    const char *text;    /* "128-bit global loads or stores (LDG.E.128, STG.E.128)" */
} lab_technique;

/* What one lab alone knows about each of its stages (what a stage computes,
 * what memory it gets). A lab that needs it defines the struct in its spec
 * file, grader/labs/<name>.c, and only there: everywhere else it stays
 * incomplete, so no file sees two labs' definitions. */
struct lab_stage_extra;

/* One stage: everything the grader knows about it, in one row of its lab's
 * table, written with designated initializers. A field left out is 0: no
 * points, no threshold, no base, no technique. */
typedef struct lab_stage {
    const char *title;   /* "shared-memory tile" */
    const char *symbol;  /* the function in the lab library, "transpose_tiled" */
    int given;           /* complete in the skeleton (a yardstick), not the student's work */
    int points_correct;  /* for passing every correctness size */
    int points_speed;    /* for reaching min_speedup; 0 = speed reported, not graded */
    double min_speedup;  /* over the faster of the base stages */
    int base[LAB_MAX_BASES]; /* the earlier stages it must beat: set with LAB_BASES */
    int n_base;          /* how many; 0: none (held to its ceiling alone, if graded) */
    double min_speedup_per_sm; /* for a stage that spreads over the whole GPU what its base
                                  does on one SM (lab 2 stage 1 against one block), so that its
                                  gain grows with the SM count: on S SMs it needs the smaller of
                                  min_speedup and this x S, and where that is below 1.10 its
                                  speed is reported, not graded (decide_min_speedup). A config's
                                  min_speedup replaces both. 0: min_speedup on any GPU */
    double min_ceiling;  /* fraction of the ceiling it must also reach; 0 = none */
    const char *ceiling; /* its own ceiling's name when the lab has several; NULL: the lab's */
    int timed_at;        /* set with LAB_TIMED_AT(size) where its speed is graded at another
                            size than the lab's bench_size (one where its technique pays):
                            that size + 1; 0: the lab's bench_size (lab_timed_size) */
    int min_cc;          /* compute capability its technique needs, 10 * major + minor (80:
                            8.0); below it the stage is NOT AVAILABLE, not graded. 0: any */
    int max_cc;          /* the newest compute capability its code runs on, the same form:
                            90 for code built for sm_90a alone (its wgmma and setmaxnreg
                            exist on 9.0 only); above it NOT AVAILABLE too. 0: any */
    double reference;    /* the reference solution's speed on the lab's reference_gpu, in
                            its unit (charts mark it); 0: not measured */
    lab_technique technique[LAB_MAX_TECHNIQUES]; /* looked for in its machine code */
    int technique_required; /* 1: a correct stage without its technique loses its speed
                               points (TECHNIQUE MISSING) unless a config says hint; for a
                               stage whose speed cannot show the technique. 0: named only */
    lab_technique refused_ops; /* machine instructions its kernels must not hold, in the
                                  technique's pattern form, where "!MOD" asks that a modifier
                                  be absent ("HMMA!TF32": HMMA without .TF32); a stage whose
                                  kernels hold one is REJECTED (sass_refuse). NULL: none */
    const char *hint;    /* the likely cause when the stage is correct but too slow */
    const struct lab_stage_extra *extra; /* the lab's own facts about it, or NULL */
} lab_stage;

/* The stages a stage must beat, in a row: LAB_BASES(1, 2) sets base and
 * n_base together. */
#define LAB_BASES(...)                                                                             \
    .base = {__VA_ARGS__}, .n_base = (int)(sizeof(int[]){__VA_ARGS__} / sizeof(int))

/* The size, other than the lab's, at which a stage's speed is graded, with
 * its bases and its ceiling: LAB_TIMED_AT(10). */
#define LAB_TIMED_AT(size) .timed_at = (size) + 1

/* Can stage st be graded on a GPU of compute capability major.minor? */
static inline int lab_stage_available(const lab_stage *st, int major, int minor)
{
    int cc = 10 * major + minor;
    return st->min_cc <= cc && (st->max_cc == 0 || cc <= st->max_cc);
}

/* How many techniques the grader looks for in stage st's machine code. */
static inline int lab_stage_techniques(const lab_stage *st)
{
    int n = 0;
    while (n < LAB_MAX_TECHNIQUES && st->technique[n].pattern)
        n++;
    return n;
}

struct rng;
struct gbuf;
typedef struct lab_ctx lab_ctx; /* one lab's buffers and data at one size, child side */

/* What one check of a stage's output found. */
typedef struct check_outcome {
    verdict v;
    char msg[VERDICT_MSG];
} check_outcome;

/* What the timing witness (grader/witness.h) needs of a lab whose speed
 * tests it times: every timed call gets fresh inputs, made by the witness in
 * buffers of its own and copied into the graded inputs, and the graded
 * outputs are checked against those buffers after the call. */
#define WITNESS_INS 2  /* the inputs: one, or two (lab 4's A and B, lab 6's input and
                        * filter, lab 7's A and Bt) */
#define WITNESS_OUTS 2 /* an output, and a count where the lab has one */
typedef struct witness_layout {
    size_t in_bytes[WITNESS_INS];   /* each input of a call (0: none) */
    size_t out_bytes[WITNESS_OUTS]; /* each output's (0: none) */
    unsigned char poison[WITNESS_OUTS]; /* the byte written over each before a call, as the
                                         * lab's prepare writes it */
    int fill;                       /* the inputs' kind, DEVCHECK_FILL_* (ceilings.h) */
    double lo, hi;                  /* and their range, as that kind reads them */
} witness_layout;
typedef struct lab_witness {
    /* Child side: the graded inputs and outputs of ctx (the buffers of
     * grader/gbuf.h, guard zones included), NULL past the lab's own. */
    void (*buffers)(lab_ctx *ctx, const struct gbuf **in, const struct gbuf **out);
    /* Witness side, no lab_ctx: what the buffers of the speed test of
     * `stage` at size hold, and the kind of input to make. */
    void (*layout)(int stage, int size, witness_layout *l);
    /* Witness side: checks the outputs d_out that role (a stage, or
     * WITNESS_CEILING) wrote from the inputs d_in in the speed test of `stage`
     * at size; -1 when they are right, else the number of the first wrong
     * word with *out filled (-2: the check itself failed). A witnessed call
     * is always given the lab's input set 0 (prepare's variant), whose
     * other parameters (lab 4's alpha 1 and beta 0) the check assumes.
     * full: a correctness test's witness, which checks one call a size:
     * every output where that costs little (labs 4, 6 and 7 check a sample
     * otherwise; labs 1 to 3 check every output in any case). */
    long long (*check)(int role, int stage, int size, const void *const *d_out,
                       const void *const *d_in, cudaStream_t s, check_outcome *out, int full);
    /* The buffers as messages name them, inputs then outputs in the order
     * of buffers ("the input d_in", "the output d_out"; lab 4: "A", "B",
     * "C"); NULL past the lab's own. */
    const char *names[WITNESS_INS + WITNESS_OUTS];
    /* Child side, or NULL: the workspace d_work of ctx, whose guard zones
     * are checked after a witnessed call as the buffers' are (the witness
     * does not read it). */
    const struct gbuf *(*workspace)(lab_ctx *ctx);
} lab_witness;

/* The timing witness of a lab timed on the host (host_timed: lab 5), whose
 * stages take host buffers and return when out is complete. Its speed
 * test's host buffers are carved from one shared mapping (the arena), made
 * before the witness is forked and before CUDA: the witness, which never
 * loads the library and needs no CUDA, loads each call's input there, times
 * the call from its go to the child's word that the call has returned (and
 * the GPU finished the child's work), and
 * checks the output there. */
typedef struct lab_host_witness {
    /* Both sides: the bytes of arena the speed test of `stage` at size needs. */
    size_t (*arena_bytes)(int stage, int size);
    /* Witness side, once the child's setup is done: what the test's buffers
     * hold. param: the one figure the child's setup chose (lab 5: the heavy
     * job's degree), checked here. seed: the size's input seed. 0; -1 when
     * param is not one the setup can choose, -2 when the witness cannot go on
     * (no memory), with why filled (n bytes). */
    int (*start)(int stage, int size, uint64_t seed, long param, char *why, size_t n);
    /* Witness side, before a call of stage `role`: load, an input set
     * in the role's buffers of arena, chosen by seed, the output poisoned;
     * then, inside the window (its clock started), patch: a few elements
     * changed at positions drawn from seed, so that nothing done before the
     * window knows the call's input. Both seeds are the witness's. */
    void (*load)(void *arena, int role, uint64_t seed);
    void (*patch)(void *arena, int role, uint64_t seed);
    /* Witness side, after the call: its output and inputs checked; -1 when
     * right, else the first wrong element with out filled (out->v
     * V_INPUT_MODIFIED when an input changed); -2 when the check failed.
     * seed draws the elements a sampled check reads. It leaves the inputs as
     * load found them, for the child's own calls. */
    long long (*check)(void *arena, int role, uint64_t seed, check_outcome *out);
    /* Child side: param above, from the test's ctx. */
    long (*param)(lab_ctx *ctx);
    /* Child side, once CUDA has started, or NULL: 0 when the lab's stages
     * can take the arena's memory as they take the memory they get without
     * the witness, else -1 with why filled (the test is then timed without
     * it). */
    int (*usable)(char *why, size_t n);
} lab_host_witness;

typedef struct lab_spec {
    int number;               /* 1 */
    const char *name;         /* "transpose" */
    const char *dir;          /* "1-transpose" */
    int available;            /* 0: not written yet */
    const lab_stage *stages;
    int n_stages;
    int n_sizes;
    int bench_size;           /* index of the size that is timed */
    int check_variants;       /* input sets checked at every size (0 means 1) */
    const char *unit;         /* "GB/s" */
    const char *ceiling_name; /* "cudaMemcpy D2D" */
    const struct policy_rule *forbidden_calls; /* lab-specific rules for policy_check, or NULL */
    /* The GPU the stages' reference figures were measured on (charts mark
     * them when grading on it); NULL when not measured. */
    const char *reference_gpu;
    /* The slowest speed (in unit) a correct stage, or a base or ceiling it is
     * timed with, may run at on any supported GPU: it sizes each test's time
     * limit from the work the test does (runner_stage_timeout). */
    double floor_throughput;
    /* 1: a call's time is the wall clock from start to return (lab 5, whose
     * stages run on streams of their own and wait for them), not CUDA
     * events on the grader's stream. */
    int host_timed;
    /* A stage faster than this many times the ceiling is IMPOSSIBLE; 0 means
     * 1.10 (10% for noise). More where the ceiling is a good library call and
     * not a bound of the hardware (lab 6). */
    double impossible_over;
    /* Host side, no CUDA. */
    void (*size_text)(int size, char *buf, size_t n); /* "8192 x 8192" */
    double (*work)(int stage, int size); /* units of work per call (bytes, flops) for the unit above, x 1e9 */
    /* Parent side, optional, no CUDA: makes the host data of a size before any
     * test forks, so every child shares one copy instead of making its own. */
    int (*pregenerate)(int size, uint64_t seed, int variants);
    /* Parent side, set when pregenerate is: frees what it made for size.
     * ./grade makes a lab's data just before the lab's tests and releases it
     * right after, so the next lab's children are not forked from it (fork
     * copies the page tables of all the parent holds) and the labs' data is
     * never held all at once. A child then makes its own on demand. */
    void (*release)(int size);
    /* Parent side, set when pregenerate is: the bytes of the arrays held for
     * size (every one not freed; 0: none) and, when digest is not NULL and
     * some are held, a hash of them, so tests can prove that release frees
     * and that a second pregenerate makes the same data. */
    size_t (*held)(int size, uint64_t *digest);
    /* Child side, optional: the lab library, once loaded, before any setup,
     * for a lab whose stages are more than one function (lab 5: setup, run,
     * teardown), which looks the others up itself: lib for its stages, given
     * for its given stages (the course's copy; lib itself when not built). */
    void (*use_library)(void *lib, void *given);
    /* Child side, CUDA allowed. All return 0 on success; on failure they fill out. */
    int (*setup)(lab_ctx **ctx, int stage, int size, uint64_t seed, int variants,
                 check_outcome *out);
    /* Loads input variant v into the graded buffers and poisons the outputs. */
    int (*prepare)(lab_ctx *ctx, int variant, cudaStream_t s, check_outcome *out);
    /* Timed calls only, right after prepare: patches a few input words at
     * random positions from r (grader/patch.h), so that no timed call sees
     * inputs another call saw. The check that follows (full = 0) then expects
     * the outputs of the patched inputs and checks that the inputs hold exactly
     * what was loaded. NULL: the lab's inputs are not patched. */
    int (*perturb)(lab_ctx *ctx, int variant, struct rng *r, cudaStream_t s, check_outcome *out);
    /* Calls stage function fn (from the library) on the graded buffers; returns its status. */
    int (*call)(lab_ctx *ctx, int stage, void *fn, cudaStream_t s);
    /* Calls the ceiling (the grader's reference operation) of stage `stage`. */
    int (*call_ceiling)(lab_ctx *ctx, int stage, cudaStream_t s);
    /* Checks outputs and guard zones; full also checks the inputs are unchanged. */
    int (*check)(lab_ctx *ctx, int stage, int variant, int full, check_outcome *out);
    void (*teardown)(lab_ctx *ctx);
    /* The timing witness's part, or NULL: its speed tests are timed by the
     * test's own process alone. */
    const lab_witness *witness;
    /* Or, for a lab timed on the host, its host witness (NULL: none). */
    const lab_host_witness *host_witness;
} lab_spec;

/* The first given stage of spec (complete in the skeleton), or -1. */
static inline int lab_first_given(const struct lab_spec *spec)
{
    for (int s = 0; s < spec->n_stages; s++)
        if (spec->stages[s].given)
            return s;
    return -1;
}

/* Whether spec has a given stage. */
static inline int lab_has_given(const struct lab_spec *spec)
{
    return lab_first_given(spec) >= 0;
}

/* How many times the ceiling a stage may run at before it is IMPOSSIBLE. */
static inline double lab_impossible_over(const lab_spec *spec)
{
    return spec->impossible_over > 0 ? spec->impossible_over : 1.10;
}

/* The size at which stage s is timed: its own (LAB_TIMED_AT) or the lab's. */
static inline int lab_timed_size(const lab_spec *spec, int s)
{
    int own = s >= 0 && s < spec->n_stages ? spec->stages[s].timed_at : 0;
    return own > 0 ? own - 1 : spec->bench_size;
}

/* Does any stage of spec have instructions its kernels must not hold? */
static inline int lab_has_refused_ops(const lab_spec *spec)
{
    for (int s = 0; s < spec->n_stages; s++)
        if (spec->stages[s].refused_ops.pattern)
            return 1;
    return 0;
}

/* Does any stage of spec have a technique to look for? */
static inline int lab_has_techniques(const lab_spec *spec)
{
    for (int s = 0; s < spec->n_stages; s++)
        if (lab_stage_techniques(&spec->stages[s]))
            return 1;
    return 0;
}

/* The name of the ceiling stage s is measured against. */
static inline const char *lab_ceiling_name(const lab_spec *spec, int s)
{
    return s >= 0 && s < spec->n_stages && spec->stages[s].ceiling ? spec->stages[s].ceiling
                                                                    : spec->ceiling_name;
}

/* The table of every lab, available or not, in the order of the list of labs
 * (grader/labs/labs.def; grader/labs/registry.c): lab_count <= LAB_MAX. */
extern const lab_spec *const lab_table[];
extern const int lab_count;
/* The position in lab_table of the lab numbered number; -1 if none. */
int lab_position(int number);
/* Finds a lab by "lab1", "1", "transpose" or "1-transpose"; NULL if none. */
const lab_spec *lab_find(const char *name);

#endif
