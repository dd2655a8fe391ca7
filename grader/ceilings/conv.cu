/* grader/ceilings/conv.cu: lab 6's ceiling, built into build/ceilings/lab6.so.
 * With cuDNN (the Makefile defines HAVE_CUDNN when it finds it): cuDNN's
 * fastest forward algorithm for the layer in float32 with tensor-op math
 * off, chosen once when the ceiling is created (untimed). Without cuDNN:
 * cuBLAS SGEMM at the layer's GEMM shape (M = N P Q, N = K, depth C R S) on
 * scratch matrices of its own, the rate a GEMM-based convolution could
 * reach. The lab library may call neither. */
#include <new>

#include <cuda_runtime.h>

#ifdef HAVE_CUDNN
#include <cudnn.h>
#else
#include <cublas_v2.h>
#endif

struct conv_ceiling {
    int N, C, H, W, K, R, S, stride, pad, P, Q;
    void *ws;
    size_t ws_bytes;
#ifdef HAVE_CUDNN
    cudnnHandle_t h;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
#else
    cublasHandle_t h;
    float *a, *b, *c;
#endif
};

extern "C" const char *ceiling_conv_name(void)
{
#ifdef HAVE_CUDNN
    return "cuDNN FP32 convolution";
#else
    return "cuBLAS SGEMM at the GEMM shape (no cuDNN)";
#endif
}

extern "C" void ceiling_conv_destroy(void *handle)
{
    conv_ceiling *c = (conv_ceiling *)handle;
    if (!c)
        return;
    cudaFree(c->ws);
#ifdef HAVE_CUDNN
    if (c->xd) cudnnDestroyTensorDescriptor(c->xd);
    if (c->yd) cudnnDestroyTensorDescriptor(c->yd);
    if (c->wd) cudnnDestroyFilterDescriptor(c->wd);
    if (c->cd) cudnnDestroyConvolutionDescriptor(c->cd);
    if (c->h) cudnnDestroy(c->h);
#else
    cudaFree(c->a);
    cudaFree(c->b);
    cudaFree(c->c);
    if (c->h) cublasDestroy(c->h);
#endif
    delete c;
}

/* shape: N, C, H, W, K, R, S, stride, pad. x, w, y: the grader's buffers,
 * used to find cuDNN's fastest algorithm. 0 on success. */
extern "C" int ceiling_conv_create(void **handle, const int shape[9], const float *x,
                                   const float *w, float *y)
{
    conv_ceiling *c = new (std::nothrow) conv_ceiling();
    if (!c)
        return -1;
    *handle = c;
    c->N = shape[0], c->C = shape[1], c->H = shape[2], c->W = shape[3], c->K = shape[4];
    c->R = shape[5], c->S = shape[6], c->stride = shape[7], c->pad = shape[8];
    c->P = (c->H + 2 * c->pad - c->R) / c->stride + 1;
    c->Q = (c->W + 2 * c->pad - c->S) / c->stride + 1;
#ifdef HAVE_CUDNN
    if (cudnnCreate(&c->h) != CUDNN_STATUS_SUCCESS || cudnnCreateTensorDescriptor(&c->xd) ||
        cudnnCreateTensorDescriptor(&c->yd) || cudnnCreateFilterDescriptor(&c->wd) ||
        cudnnCreateConvolutionDescriptor(&c->cd) ||
        cudnnSetTensor4dDescriptor(c->xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, c->N, c->C, c->H, c->W) ||
        cudnnSetTensor4dDescriptor(c->yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, c->N, c->K, c->P, c->Q) ||
        cudnnSetFilter4dDescriptor(c->wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, c->K, c->C, c->R, c->S) ||
        cudnnSetConvolution2dDescriptor(c->cd, c->pad, c->pad, c->stride, c->stride, 1, 1,
                                        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT) ||
        cudnnSetConvolutionMathType(c->cd, CUDNN_FMA_MATH))
        return -1;
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int found = 0;
    if (cudnnFindConvolutionForwardAlgorithm(c->h, c->xd, c->wd, c->cd, c->yd, 16, &found, perf))
        return -1;
    for (int i = 0; i < found; i++) { /* fastest first */
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].mathType != CUDNN_FMA_MATH)
            continue;
        if (perf[i].memory && cudaMalloc(&c->ws, perf[i].memory) != cudaSuccess)
            continue;
        c->algo = perf[i].algo;
        c->ws_bytes = perf[i].memory;
        (void)x, (void)w, (void)y;
        return 0;
    }
    return -1;
#else
    (void)x, (void)w, (void)y;
    size_t m = (size_t)c->N * c->P * c->Q, n = c->K, k = (size_t)c->C * c->R * c->S;
    if (cublasCreate(&c->h) != CUBLAS_STATUS_SUCCESS || cudaMalloc(&c->a, m * k * 4) ||
        cudaMalloc(&c->b, k * n * 4) || cudaMalloc(&c->c, m * n * 4) ||
        cudaMemset(c->a, 0, m * k * 4) || cudaMemset(c->b, 0, k * n * 4))
        return -1;
    return 0;
#endif
}

/* One forward convolution of the layer (or the equivalent GEMM) on stream. */
extern "C" int ceiling_conv(void *handle, const float *x, const float *w, float *y,
                            cudaStream_t stream)
{
    conv_ceiling *c = (conv_ceiling *)handle;
    float one = 1.0f, zero = 0.0f;
#ifdef HAVE_CUDNN
    if (cudnnSetStream(c->h, stream) != CUDNN_STATUS_SUCCESS)
        return -1;
    return cudnnConvolutionForward(c->h, &one, c->xd, x, c->wd, w, c->cd, c->algo, c->ws,
                                   c->ws_bytes, &zero, c->yd, y) == CUDNN_STATUS_SUCCESS
               ? 0
               : -1;
#else
    (void)x, (void)w, (void)y;
    int m = c->N * c->P * c->Q, n = c->K, k = c->C * c->R * c->S;
    if (cublasSetStream(c->h, stream) != CUBLAS_STATUS_SUCCESS)
        return -1;
    /* Row-major C[m][n] = A[m][k] B[k][n], as column-major C^T = B^T A^T. */
    return cublasSgemm(c->h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, c->b, n, c->a, k, &zero,
                       c->c, n) == CUBLAS_STATUS_SUCCESS
               ? 0
               : -1;
#endif
}
