/* conv_lab.h: the pure parts of lab 6's specification (the CPU reference of
 * a forward convolution and its judgement), for the grader and the tests. */
#ifndef CUDA_LABS_CONV_LAB_H
#define CUDA_LABS_CONV_LAB_H

#include <stddef.h>
#include <stdint.h>

/* One layer: input N x C x H x W (NCHW), filter K x C x R x S, stride and
 * zero padding the same in both directions, output N x K x P x Q. */
typedef struct conv_layer {
    int N, C, H, W, K, R, S, stride, pad;
} conv_layer;

typedef struct conv_problem {
    conv_layer l;
    const float *x; /* the input, NCHW */
    const float *w; /* the filter, KCRS */
} conv_problem;

/* What no stage's kernels may hold. Tensor-core instructions: the ceiling
 * computes in FP32 (TF32 off), and on deep layers the FP32 bound would let
 * TF32 or FP16 through (it grows with the depth faster than their error
 * does). DMMA (FP64) is not below FP32. And packed FP16 or BF16 arithmetic on
 * the CUDA cores (HFMA2, HADD2, HMUL2), two products an instruction against
 * FP32's one, whose error on the deep layer also stays within the bound
 * (instructors.md). The same instructions with a zero among their sources
 * are ptxas's constant loads and conversions, not arithmetic (sass.c marks
 * them .ZEROSRC), and stay allowed. */
#define CONV_REFUSED_OPS                                                                           \
    "HMMA|HGMMA|UTCHMMA|IMMA|IGMMA|UTCIMMA|QMMA|QGMMA|UTCQMMA|OMMA|UTCOMMA|BMMA|BGMMA|"           \
    "HFMA2!ZEROSRC|HADD2!ZEROSRC|HMUL2!ZEROSRC"
#define CONV_REFUSED_TEXT                                                                          \
    "tensor-core instructions (HMMA, HGMMA, UTCHMMA, IMMA, QMMA) or packed FP16 or BF16 arithmetic "      \
    "(HFMA2, HADD2, HMUL2), while lab 6 computes in FP32 on the CUDA cores, as its ceiling does"

/* The graded layers, small and awkward first; the benchmark layers (N = 32)
 * after. Each with a name for the reports. */
typedef struct conv_named_layer {
    const char *name;
    conv_layer l;
} conv_named_layer;
extern const conv_named_layer conv_layers[];
extern const int conv_n_layers;

/* Output height and width: (H + 2 pad - R) / stride + 1, likewise for Q. */
int conv_out_h(const conv_layer *l);
int conv_out_w(const conv_layer *l);
/* Elements of the output (N K P Q) and multiply-adds per output (C R S). */
size_t conv_out_elems(const conv_layer *l);

/* exact[e] = the output in double precision, scale[e] = the sum of |x| |w|
 * over its window (padding counts as 0), for all N K P Q outputs (NKPQ
 * order). Uses every CPU; 0, or -1 when out of memory. */
int conv_reference(const conv_problem *p, double *exact, double *scale);
/* How far a float32 output with this scale may be off. */
double conv_tolerance(const conv_layer *l, double scale);
/* V_PASS, or the verdict for got (NKPQ floats) with what is wrong in msg:
 * unwritten or NaN outputs, errors only at the padded borders, an output
 * written in NHWC order, or wrong values. */
int conv_judge(const conv_problem *p, const double *exact, const double *scale, const float *got,
               char *msg, size_t msgn);

/* Timed calls patch a few words of the input (positions ix, new words vx,
 * nx of them, sorted) and of the filter (iw, vw, nw) of the problem p (its x
 * and w: the unpatched ones). conv_patch_expect saves the outputs the
 * patches change into save (room for conv_patch_room entries) and adds the
 * patches' effect to exact and scale (exactly, in double); it returns how
 * many it saved, for conv_patch_undo, which puts them back. */
typedef struct conv_saved {
    size_t e;
    double exact, scale;
} conv_saved;
size_t conv_patch_room(const conv_layer *l, int nx, int nw);
size_t conv_patch_expect(const conv_problem *p, double *exact, double *scale, const uint64_t *ix,
                         const uint32_t *vx, int nx, const uint64_t *iw, const uint32_t *vw,
                         int nw, conv_saved *save);
void conv_patch_undo(double *exact, double *scale, const conv_saved *save, size_t count);

#endif
