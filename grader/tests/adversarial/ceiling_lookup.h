/* For adversarial cases: the grader's own lab 7 ceiling (cuBLAS's BF16 GEMM,
 * ceiling_hopper() of build/ceilings/lab7.so, loaded in the grading child
 * from its sealed copy in memory),
 * found with maps_lookup.h. 0 when it ran, -1 when it was not found, else its
 * status. */
#pragma once
#include "maps_lookup.h"

typedef int (*case_ceiling_create_fn)(void **);
typedef int (*case_ceiling_gemm_fn)(void *, int, int, int, const unsigned short *,
                                    const unsigned short *, float *, cudaStream_t);

static int maps_ceiling_hopper(int M, int N, int K, const unsigned short *d_A,
                               const unsigned short *d_Bt, float *d_C, cudaStream_t stream)
{
    static void *handle;
    /* the grader's sealed copy in memory (/memfd:ceilings-lab7.so), else the file */
    const char *file = "ceilings-lab7.so";
    case_ceiling_create_fn create =
        (case_ceiling_create_fn)maps_lookup(file, "ceiling_hopper_create");
    if (!create)
        create = (case_ceiling_create_fn)maps_lookup(file = "ceilings/lab7.so",
                                                     "ceiling_hopper_create");
    case_ceiling_gemm_fn gemm = (case_ceiling_gemm_fn)maps_lookup(file, "ceiling_hopper");
    if (!create || !gemm || (!handle && create(&handle) != 0))
        return -1;
    return gemm(handle, M, N, K, d_A, d_Bt, d_C, stream);
}
