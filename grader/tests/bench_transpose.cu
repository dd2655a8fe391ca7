/* bench_transpose.cu: times the reference stages and several configurations
 * of stage 5 in one run, each checked against a CPU transpose, each rep with
 * a cold L2, medians of interleaved repetitions. A development tool
 * (make bench): it chose the configuration the solution uses. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../solutions/1-transpose/transpose.cu"
#include "bench_timing.cuh"

template <int TR, int TC, int TH>
static lab_status variant(const float *in, float *out, int r, int c, cudaStream_t s)
{
    return launch_vec<TR, TC, TH>(in, out, r, c, s);
}

static float *g_in, *g_out;
static lab_status memcpy_stage(const float *in, float *out, int r, int c, cudaStream_t s)
{
    cudaMemcpyAsync(out, in, (size_t)r * c * 4, cudaMemcpyDeviceToDevice, s);
    return LAB_OK;
}

struct entry {
    const char *name;
    transpose_fn fn;
    bool is_copy;
    std::vector<float> ms;
};

int main(int argc, char **argv)
{
    if (bench_no_gpu("bench_transpose"))
        return 77;
    int rows = argc > 1 ? atoi(argv[1]) : 8192, cols = argc > 2 ? atoi(argv[2]) : 8192;
    int reps = argc > 3 ? atoi(argv[3]) : 30;
    size_t n = (size_t)rows * cols, bytes = n * 4;
    std::vector<float> h_in(n), h_ref(n), h_out(n);
    unsigned long long x = 88172645463325252ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        h_in[i] = (float)(x >> 40) / 16777216.0f - 0.5f;
    }
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            h_ref[(size_t)c * rows + r] = h_in[(size_t)r * cols + c];
    int l2 = 0;
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    void *flush;
    cudaMalloc(&g_in, bytes);
    cudaMalloc(&g_out, bytes);
    cudaMalloc(&flush, 2 * (size_t)l2);
    cudaMemcpy(g_in, h_in.data(), bytes, cudaMemcpyHostToDevice);
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);

    std::vector<entry> list = {
        {"cudaMemcpy D2D", memcpy_stage, true, {}},
        {"copy kernel (given)", transpose_copy, true, {}},
        {"s1 naive read", transpose_naive_read, false, {}},
        {"s2 naive write", transpose_naive_write, false, {}},
        {"s3 tiled", transpose_tiled, false, {}},
        {"s4 padded", transpose_padded, false, {}},
        {"s5 solution", transpose_vectorized, false, {}},
        {"64x64x128", variant<64, 64, 128>, false, {}},
        {"32x64x128", variant<32, 64, 128>, false, {}},
        {"64x128x256", variant<64, 128, 256>, false, {}},
        {"128x64x256", variant<128, 64, 256>, false, {}},
        {"32x32x64", variant<32, 32, 64>, false, {}},
    };
    for (auto &e : list) { /* correctness first */
        cudaMemset(g_out, 0xff, bytes);
        e.fn(g_in, g_out, rows, cols, s);
        cudaError_t err = cudaDeviceSynchronize();
        cudaMemcpy(h_out.data(), g_out, bytes, cudaMemcpyDeviceToHost);
        const float *ref = e.is_copy ? h_in.data() : h_ref.data();
        bool ok = err == cudaSuccess && memcmp(ref, h_out.data(), bytes) == 0;
        printf("%-28s %s %s\n", e.name, ok ? "correct" : "WRONG", cudaGetErrorString(err));
    }
    for (int rep = -2; rep < reps; rep++)
        for (size_t k = 0; k < list.size(); k++) {
            entry &e = list[(k + rep + 2) % list.size()];
            cudaMemsetAsync(flush, rep, 2 * (size_t)l2, s);
            cudaEventRecord(e0, s);
            e.fn(g_in, g_out, rows, cols, s);
            cudaEventRecord(e1, s);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (rep >= 0)
                e.ms.push_back(ms);
        }
    double memcpy_med = 0;
    printf("\n%dx%d, %d reps, cold L2; GB/s counts bytes read + written\n", rows, cols, reps);
    for (auto &e : list) {
        std::sort(e.ms.begin(), e.ms.end());
        double med = e.ms[e.ms.size() / 2];
        if (!memcpy_med)
            memcpy_med = med;
        printf("%-28s %8.4f ms  %7.0f GB/s  %5.1f%% of memcpy  (min %.4f max %.4f)\n", e.name,
               med, 2.0 * bytes / med / 1e6, 100.0 * memcpy_med / med, e.ms.front(),
               e.ms.back());
    }
    return 0;
}
