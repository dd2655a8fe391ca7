/* witness.h: the timing witness of a speed test.
 *
 * A speed test's child loads the lab library, so everything it writes (its
 * record, the times in it) is only as good as the library lets it be: a
 * library can change the grader's memory or call its writes. The witness is a
 * second process of the grader's, forked by the test's child before CUDA
 * starts and before the library is loaded, that never loads the library. It
 * has a CUDA context of its own, maps the graded buffers through CUDA's
 * interprocess memory handles, and shares one page with the child, in which
 * each process's GPU stream writes and waits for a word (the driver's stream
 * memory operations). Around every timed call of the child:
 *
 *   - its stream waits until the child has queued the call (or for 100 ms,
 *     whichever comes first), then records its start event; then, after the
 *     start event and before the go, it writes fresh inputs, from seeds the
 *     system draws for that call, into its own buffers and the graded inputs,
 *     poisons the outputs, flushes L2, and sets go, which the child's stream
 *     waits for, with an event of its own;
 *   - the child's stream sets done behind the call, and the witness's stream
 *     waits for it, records its stop event and copies the graded buffers as
 *     they are then;
 *   - it checks those copies against its own inputs, on the GPU.
 *
 * The input is written after the start event, so no work done before the
 * window can answer the call; contexts on one GPU take turns (without MPS),
 * so a done set early from the CPU stops the window before the work and
 * leaves the copies unfinished. The call's time is taken from the witness's
 * go (an event after the input is loaded) to its stop event, less the two
 * switches between the contexts, measured before the library is loaded (with
 * this hand-off, the switches took 0.286-0.298 ms on the H200, at most 11 us
 * apart within one test; instructors.md). Its findings go to the test's witness_record in the
 * results page, which the child cannot write. The parent then holds the
 * child's record to them (witness_judge): a PASS whose times the witness
 * contradicts, whose timed outputs were wrong, or that went around the
 * witness does not stand.
 *
 * (CUDA's interprocess events would do the hand-off too, but they live in
 * /dev/shm, which the child's Landlock rules close.)
 *
 * Where the witness cannot start (no stream memory operations or
 * interprocess memory: some virtual machines and WSL; the fake GPU of the
 * tests) the test is timed as before and the lab's report says why. A lab
 * takes part by setting lab_spec.witness (labs 1-4, 6, 7; labs 4, 6 and 7
 * with two inputs), and the witness runs unless CUDA_LABS_WITNESS=0
 * (instructors.md).
 *
 * Lab 5 times itself on the host (a stage returns when out, in host memory,
 * is complete), and its witness is a host witness (lab_spec.host_witness):
 * no CUDA. The test's host buffers are carved from one shared mapping made
 * here before the fork (witness_arena; the child pins what it pins itself).
 * Before each call of a stage the witness loads a fresh input there (an
 * input set and patches at positions drawn from the system's random
 * numbers) and poisons the output; its go is a message, sent after that,
 * and the child sends one back once the call has returned and the GPU has
 * finished the child's work (cudaDeviceSynchronize); the window
 * between them, on the witness's clock, less the hand-off (two messages,
 * measured before the library is loaded), is the call's time. Then it
 * checks the output and the inputs there. The ceiling's calls are timed
 * alone (its buffers are its own). It runs on the fake GPU too.
 *
 * A correctness test of a GPU lab has a witness too (witness_fork_check),
 * which times nothing that counts: after the test's own checks at each size
 * it graded, the child hands that size's buffers over and makes one more
 * call of the stage (its audit's tries after it, if any), whose input the
 * witness loads inside its window and whose output it checks, as in a speed
 * test. A correctness PASS stands only when the witness checked every size
 * the test grades and found each right (witness_judge_check): a library that
 * writes its own record (instructors.md) must still be right at every size,
 * on an input it could not foresee. */
#ifndef CUDA_LABS_WITNESS_H
#define CUDA_LABS_WITNESS_H

#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

#include "lab.h"
#include "results.h"

typedef struct witness witness;

/* Child side, before CUDA and before the library: forks the witness of the
 * speed test of spec's stage `stage`, timed at size `size`; rec is that
 * test's witness record in the results page (still writable here).
 * expected_calls: the calls of the stage the test makes (warm-up and
 * repetitions), warmups: the first calls of each role that are warm-ups;
 * seed: the size's input seed (a host witness's data). NULL
 * when none was forked (rec says why). */
witness *witness_fork(const lab_spec *spec, int stage, int size, uint64_t seed,
                      int expected_calls, int warmups, witness_record *rec);
/* Child side, before CUDA and before the library: forks the witness of the
 * correctness test of spec's stage `stage`, which checks one call at each
 * size in sizes (bit s: size s; those the test grades); seed: the run's (a
 * host witness's inputs at each size, runner_size_seed); rec is that test's
 * witness record. NULL when none was forked (a lab without a witness: rec
 * is then all 0, or rec says why). */
witness *witness_fork_check(const lab_spec *spec, int stage, uint32_t sizes, uint64_t seed,
                            witness_record *rec);
/* Child side: a host witness's shared memory (bytes long), where the lab's
 * setup puts the test's host buffers; NULL unless w is a host witness that
 * times this test. */
void *witness_arena(const witness *w, size_t *bytes);
/* Child side, once CUDA has started on stream s, before the library is
 * loaded: meets the witness and measures the hand-off. 0, or -1 with why
 * filled (the witness is then not used, and its record says so). */
int witness_connect(witness *w, cudaStream_t s, char *why, size_t n);
/* Child side: hands the graded buffers of ctx, made at size, to the witness
 * (a correctness test's, once a size, before that size's witnessed call).
 * 0, or -1 with why filled. */
int witness_attach(witness *w, const lab_spec *spec, lab_ctx *ctx, int size, char *why, size_t n);
/* 1 when w times this test's calls. */
int witness_active(const witness *w);
/* Around one call of role (a stage, or -1 for the ceiling) on stream s:
 * begin before the call's start event (the witness loads a fresh input, and
 * s waits for it), queued after its stop event and before any wait for the
 * GPU, end after that wait (the witness has checked the output). untimed: an
 * audited call of the stage made in addition to the test's calls (the audit's
 * tries after its first), which the witness loads and checks as any other but
 * does not time or count among them. begin and end return 0, or -1 with why
 * filled when the witness stopped answering. */
int witness_begin(witness *w, int role, int untimed, cudaStream_t s, char *why, size_t n);
/* The most untimed calls a test makes (an audit's tries after its first);
 * the witness stops at one more. */
#define WITNESS_MAX_UNTIMED 2
void witness_queued(witness *w, cudaStream_t s);
int witness_end(witness *w, char *why, size_t n);

/* Child side: the part of a witnessed call's wall time that is the
 * witness's own (its input, its hand-off), measured before the library was
 * loaded; 0 without a witness. */
double witness_overhead_ms(const witness *w);
/* Whether speed tests get a witness in this run: yes, unless
 * CUDA_LABS_WITNESS=0 is in the environment (instructors.md). */
int witness_wanted(void);

/* Parent side, no CUDA: does the speed test record rec of spec's stage
 * `stage` stand, held to its witness record w? The record's calls must all
 * have gone through the witness, its stage, base and ceiling times must be
 * the witness's (within a slack), its speedup its own times' and its base
 * the faster one, the timed outputs right; then the verdict is decided again
 * here from those times. V_PASS when it stands (or when nothing was
 * witnessed, or the test did not pass), else the verdict it gets instead,
 * with msg. Pure. */
verdict witness_judge(const lab_spec *spec, int stage, const test_record *rec,
                      const witness_record *w, char *msg, size_t n);
/* Parent side, no CUDA: does the correctness test record rec of
 * stage `stage` stand, held to its witness record w? A PASS stands when the
 * witness checked one call at every size it was told to (sizes_expected)
 * and found each right and its input unchanged; else the verdict it gets
 * instead, with msg. V_PASS too when nothing was witnessed or the test did
 * not pass. Pure. */
verdict witness_judge_check(int stage, const test_record *rec,
                            const witness_record *w, char *msg, size_t n);
/* Parent side: every speed and correctness test of res that passed, judged
 * so; a test that does not stand gets the verdict the judge gives (and a
 * correctness test's speed test, which it let run, is SKIPPED). Returns the
 * number of speed tests whose witness could not start, with the first one's
 * reason in why (n bytes). */
int witness_settle(const lab_spec *spec, lab_results *res, char *why, size_t n);
/* --timings: what each speed test's witness saw, a line a test. */
void witness_report(FILE *f, const lab_spec *spec, const lab_results *res);
/* The median of a role's windows (those kept, at most WITNESS_SAMPLES, less
 * the warm-ups), in ms; 0 when there are none. Pure. */
double witness_median(const witness_record *w, int role);

#endif
