/* borrowed.h: is a (mangled) kernel or function name part of CUB, Thrust,
 * CUTLASS or CuTe? Those libraries are header-only, so their kernels compile
 * into a lab library as if they were the student's own; their names give
 * them away. Used on the library's symbol tables before anything runs
 * (policy.c) and on the names of the kernels a stage launched (runner.c). */
#ifndef CUDA_LABS_BORROWED_H
#define CUDA_LABS_BORROWED_H

#include <stddef.h>

/* The library a mangled name belongs to ("CUB", "Thrust", "CUTLASS", "CuTe"),
 * or NULL when it is none of them (or not a mangled C++ name). When shown is
 * not NULL it receives a readable name without the versioned inline
 * namespaces and template arguments, e.g. "cub::detail::reduce::
 * DeviceReduceKernel". A name is borrowed when a namespace or class in its
 * qualified name is cub, thrust, cutlass or cute (also wrapped in a namespace
 * of the student's, e.g. CUB_WRAPPED_NAMESPACE), is one of CUB's versioned
 * namespaces (CUB_300001_SM_900, THRUST_300001_SM_900_NS), or when its last
 * part is the name of one of CUB's device-wide kernels. Template arguments
 * are not looked at: a kernel of the student's that takes cub::Sum as an
 * argument is the student's kernel. */
const char *borrowed_library(const char *mangled, char *shown, size_t n);

/* A kernel-looking name is preferred for messages: 1 when shown's last part
 * contains "Kernel" or "kernel". */
int borrowed_is_kernel_name(const char *shown);

/* The library whose device-wide code a path names, after "." and ".." are
 * resolved, at any depth and length: "CUB" for CUB's agents and device-wide
 * algorithms (cub/agent, cub/device), "Thrust" for Thrust's own agents
 * (thrust/system/cuda), "CUTLASS" or "CuTe" for their headers (include/cutlass,
 * include/cute: a folder of the student's called cute is not theirs); NULL for
 * anything else, CUB's block- and warp-level headers (cub/block, cub/warp)
 * among them. */
const char *borrowed_path(const char *path);

/* Reads the file at lib (a lab library) for the source paths its kernels
 * were compiled from: make builds with -lineinfo, so the line tables in the
 * library's GPU code name every header that put code into a kernel, even
 * code force-inlined into a kernel of the student's own name (CUB's AgentScan
 * inside my_scan_kernel). Returns the library of the first path
 * borrowed_path knows, with the path in shown; NULL when there is none, and
 * NULL with err set when lib cannot be read. */
const char *borrowed_source(const char *lib, char *shown, size_t n, char *err, size_t errn);

#endif
