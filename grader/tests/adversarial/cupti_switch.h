/* For adversarial cases: CUPTI's kernel recording switched off and on from
 * inside a stage, through the functions of the libcupti the grading child
 * has loaded for the kernel audit, found as maps_lookup.h finds cuBLAS. */
#pragma once
#include "maps_lookup.h"

#define CASE_CUPTI_KIND_CONCURRENT_KERNEL 10 /* CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL */

typedef int (*cupti_kind_fn)(int);

/* on 0: recording of kernels off; 1: on again. 0 when CUPTI was found. */
static int cupti_kernels(int on)
{
    cupti_kind_fn f = (cupti_kind_fn)maps_lookup("libcupti.so",
                                                 on ? "cuptiActivityEnable" : "cuptiActivityDisable");
    return f ? f(CASE_CUPTI_KIND_CONCURRENT_KERNEL) : -1;
}
