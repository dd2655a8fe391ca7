/* bench_conv.cu: lab 6's reference solution on every graded layer, each stage
 * checked against the CPU reference and timed, next to cuDNN's fastest
 * float32 algorithm (tensor-op math off) when cuDNN is installed, in one
 * process. Effective TFLOP/s count 2 N K P Q C R S per call.
 * make bench (GPU needed); build/bench_conv [reps] [first layer] [last layer]
 * [algos]. With "algos", each layer also lists every FMA-math algorithm
 * cuDNN offers in NCHW and in NHWC: the time cudnnFind reported and the
 * mean of reps calls timed here (tools/settle-handouts reads these lines). */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef HAVE_CUDNN
#include <cudnn.h>
#endif

extern "C" {
#include "../../common/rng.h"
#include "../labs/conv_lab.h"
#include "../verdict.h"
}
#include "../../solutions/6-conv/conv.cu"

static const struct {
    const char *name;
    conv_fn fn;
} stages[] = {
    {"0 direct (given)", conv_direct},  {"1 direct, tiled", conv_direct_tiled},
    {"2 im2col + GEMM", conv_im2col_gemm}, {"3 implicit GEMM", conv_implicit_gemm},
    {"4 NHWC, split-K", conv_nhwc},
};

#include "bench_timing.cuh"

#ifdef HAVE_CUDNN
static const char *const algo_names[] = {"implicit GEMM", "implicit precomputed GEMM", "GEMM",
                                         "direct", "FFT", "FFT tiling", "Winograd",
                                         "Winograd non-fused"};

/* The GEMM family: what the lab's stages 2 to 4 are. */
static bool gemm_family(cudnnConvolutionFwdAlgo_t a)
{
    return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM;
}

/* A layer's cuDNN descriptors in one layout, FMA math (TF32 off). */
struct cudnn_layer {
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
};

static cudnn_layer cudnn_describe(conv_shape l, cudnnTensorFormat_t fmt)
{
    cudnn_layer d;
    cudnnCreateTensorDescriptor(&d.xd);
    cudnnCreateTensorDescriptor(&d.yd);
    cudnnCreateFilterDescriptor(&d.wd);
    cudnnCreateConvolutionDescriptor(&d.cd);
    cudnnSetTensor4dDescriptor(d.xd, fmt, CUDNN_DATA_FLOAT, l.N, l.C, l.H, l.W);
    cudnnSetTensor4dDescriptor(d.yd, fmt, CUDNN_DATA_FLOAT, l.N, l.K, conv_p(l), conv_q(l));
    cudnnSetFilter4dDescriptor(d.wd, CUDNN_DATA_FLOAT, fmt, l.K, l.C, l.R, l.S);
    cudnnSetConvolution2dDescriptor(d.cd, l.pad, l.pad, l.stride, l.stride, 1, 1,
                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    cudnnSetConvolutionMathType(d.cd, CUDNN_FMA_MATH);
    return d;
}

static void cudnn_forget(cudnn_layer &d)
{
    cudnnDestroyTensorDescriptor(d.xd);
    cudnnDestroyTensorDescriptor(d.yd);
    cudnnDestroyFilterDescriptor(d.wd);
    cudnnDestroyConvolutionDescriptor(d.cd);
}

/* cudnnFind's results, fastest first; how many. */
static int cudnn_find(cudnnHandle_t h, const cudnn_layer &d, cudnnConvolutionFwdAlgoPerf_t *perf)
{
    int found = 0;
    if (cudnnFindConvolutionForwardAlgorithm(h, d.xd, d.wd, d.cd, d.yd, 16, &found, perf) !=
        CUDNN_STATUS_SUCCESS)
        return 0;
    return found;
}

static const char *algo_name(cudnnConvolutionFwdAlgo_t a)
{
    return (int)a >= 0 && (int)a < 8 ? algo_names[a] : "another";
}

/* One algorithm's time in ms (the mean of reps calls), or -1 when it is not
 * an FMA-math one that ran or its workspace cannot be had. */
static float cudnn_time(cudnnHandle_t h, const cudnn_layer &d, const cudnnConvolutionFwdAlgoPerf_t &p,
                        const float *x, const float *w, float *y, int reps)
{
    if (p.status != CUDNN_STATUS_SUCCESS || p.mathType != CUDNN_FMA_MATH)
        return -1;
    void *ws = nullptr;
    if (p.memory && cudaMalloc(&ws, p.memory) != cudaSuccess)
        return -1;
    float one = 1, zero = 0;
    float ms = time_ms([&] { cudnnConvolutionForward(h, &one, d.xd, x, d.wd, w, d.cd, p.algo, ws, p.memory, &zero, d.yd, y); }, reps);
    cudaFree(ws);
    return ms;
}

/* cuDNN's fastest FMA-math algorithm for this layer in NCHW (of the GEMM
 * family only, when gemm_only); its time in ms or -1, and its name in *name. */
static float cudnn_ms(cudnnHandle_t h, conv_shape l, const float *x, const float *w, float *y,
                      int reps, bool gemm_only, const char **name)
{
    cudnn_layer d = cudnn_describe(l, CUDNN_TENSOR_NCHW);
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int found = cudnn_find(h, d, perf);
    float ms = -1;
    for (int i = 0; i < found && ms < 0; i++) {
        if (gemm_only && !gemm_family(perf[i].algo))
            continue;
        ms = cudnn_time(h, d, perf[i], x, w, y, reps);
        *name = algo_name(perf[i].algo);
    }
    cudnn_forget(d);
    return ms;
}

/* Every FMA-math algorithm cuDNN finds for this layer in this layout, one
 * line each: cudnnFind's own time and the mean of reps calls timed here. */
static void cudnn_list(cudnnHandle_t h, conv_shape l, cudnnTensorFormat_t fmt, const float *x,
                       const float *w, float *y, int reps, double tflop)
{
    cudnn_layer d = cudnn_describe(l, fmt);
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int found = cudnn_find(h, d, perf);
    for (int i = 0; i < found; i++) {
        float ms = cudnn_time(h, d, perf[i], x, w, y, reps);
        if (ms < 0)
            continue;
        printf("  cuDNN %s %-26s %s  find %7.3f ms %6.2f TFLOP/s  timed %7.3f ms %6.2f TFLOP/s\n",
               fmt == CUDNN_TENSOR_NHWC ? "NHWC" : "NCHW", algo_name(perf[i].algo),
               gemm_family(perf[i].algo) ? "GEMM family" : "other      ", perf[i].time,
               tflop / (perf[i].time * 1e-3), ms, tflop / (ms * 1e-3));
    }
    cudnn_forget(d);
}
#endif

int main(int argc, char **argv)
{
    if (bench_no_gpu("bench_conv"))
        return 77;
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    int first = argc > 2 ? atoi(argv[2]) : 0, last = argc > 3 ? atoi(argv[3]) : conv_n_layers - 1;
    const bool algos = argc > 4 && strcmp(argv[4], "algos") == 0;
    uint64_t seed = 0x5eed6;
    printf("seed 0x%llx, %d timed calls per figure\n", (unsigned long long)seed, reps);
#ifdef HAVE_CUDNN
    cudnnHandle_t h;
    cudnnCreate(&h);
#endif
    int failures = 0;
    for (int li = first; li <= last && li < conv_n_layers; li++) {
        const conv_layer cl = conv_layers[li].l;
        conv_shape l = {cl.N, cl.C, cl.H, cl.W, cl.K, cl.R, cl.S, cl.stride, cl.pad};
        size_t nx = (size_t)l.N * l.C * l.H * l.W, nw = (size_t)l.K * l.C * l.R * l.S;
        size_t ny = conv_out_elems(&cl);
        std::vector<float> hx(nx), hw(nw), got(ny);
        std::vector<double> exact(ny), scale(ny);
        rng r;
        rng_seed(&r, seed + li);
        rng_fill_uniform(&r, hx.data(), nx, -1.0f, 1.0f);
        rng_fill_uniform(&r, hw.data(), nw, -1.0f, 1.0f);
        conv_problem prob = {cl, hx.data(), hw.data()};
        if (conv_reference(&prob, exact.data(), scale.data()) != 0) {
            printf("out of host memory\n");
            return 1;
        }
        float *x, *w, *y;
        void *work;
        cudaMalloc(&x, nx * 4);
        cudaMalloc(&w, nw * 4);
        cudaMalloc(&y, ny * 4);
        cudaMalloc(&work, conv_work_bytes(l));
        cudaMemcpy(x, hx.data(), nx * 4, cudaMemcpyHostToDevice);
        cudaMemcpy(w, hw.data(), nw * 4, cudaMemcpyHostToDevice);
        double tflop = 2.0 * ny * l.C * l.R * l.S / 1e12;
        printf("\n%s (N %d, C %d, %dx%d, K %d, %dx%d, stride %d, pad %d): %.1f GFLOP\n",
               conv_layers[li].name, l.N, l.C, l.H, l.W, l.K, l.R, l.S, l.stride, l.pad,
               tflop * 1e3);
        double ceiling = 0;
#ifdef HAVE_CUDNN
        const char *best = "", *best_gemm = "";
        float cm = cudnn_ms(h, l, x, w, y, reps, false, &best);
        float cg = cudnn_ms(h, l, x, w, y, reps, true, &best_gemm);
        if (cm > 0) {
            ceiling = tflop / (cm * 1e-3);
            printf("  %-52s %8.3f ms  %6.2f TFLOP/s  (%s)\n", "cuDNN FP32, fastest algorithm", cm,
                   ceiling, best);
        }
        if (cg > 0)
            printf("  %-52s %8.3f ms  %6.2f TFLOP/s  (%s)\n", "cuDNN FP32, fastest GEMM algorithm",
                   cg, tflop / (cg * 1e-3), best_gemm);
        if (algos) {
            cudnn_list(h, l, CUDNN_TENSOR_NCHW, x, w, y, reps, tflop);
            cudnn_list(h, l, CUDNN_TENSOR_NHWC, x, w, y, reps, tflop);
        }
#endif
        for (auto &st : stages) {
            cudaMemset(y, 0xff, ny * 4);
            lab_status ls = st.fn(l, x, w, y, work, 0);
            cudaError_t err = cudaDeviceSynchronize();
            if (ls != LAB_OK || err != cudaSuccess) {
                printf("  %-52s status %d, %s\n", st.name, (int)ls, cudaGetErrorString(err));
                failures++;
                if (err != cudaSuccess)
                    return 1;
                continue;
            }
            cudaMemcpy(got.data(), y, ny * 4, cudaMemcpyDeviceToHost);
            char msg[512] = "";
            int v = conv_judge(&prob, exact.data(), scale.data(), got.data(), msg, sizeof msg);
            float ms = time_ms([&] { st.fn(l, x, w, y, work, 0); }, reps);
            double tf = tflop / (ms * 1e-3);
            printf("  %-52s %8.3f ms  %6.2f TFLOP/s", st.name, ms, tf);
            if (ceiling > 0)
                printf("  %5.1f%% of cuDNN", 100 * tf / ceiling);
            printf("  %s\n", v == V_PASS ? "correct" : msg);
            failures += v != V_PASS;
        }
        cudaFree(x);
        cudaFree(w);
        cudaFree(y);
        cudaFree(work);
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("\n%s, %d failures\n", cudaGetErrorString(e), failures);
    return e != cudaSuccess || failures;
}
