// SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
// SPDX-License-Identifier: Apache-2.0
// reference.cu -- the obvious scatter-add, the kernel "reference" (kernels/reference.py):
// dst [N, F] (X, or the launcher's copy of it) += the src [E, F] rows at idx [E] (0-based; rows
// outside [0, N) skipped); counts [N] int32, zeroed by the launcher, gets the in-degree. T (float,
// __half, __nv_bfloat16) and I (int, long long) come as -DSCATTER_T and -DSCATTER_I. Any N and F,
// E up to 2^31 - 1 (the counts' limit), no alignment, no workspace. A thread per value of src
// (grid-strided) adds it with an atomicAdd: each sum is rounded in T once per edge, in an order
// that varies from run to run (not bitwise repeatable); fp32 atomics flush subnormals to zero.

#include <cuda_fp16.h>
#include <cuda_bf16.h>
using T = SCATTER_T;
using I = SCATTER_I;

extern "C" __global__ void scatter_add_reference(T* dst, const T* src, const I* idx, int* counts,
                                                 long long n_nodes, long long n_edges,
                                                 long long n_feat) {
    const long long width = n_feat > 0 ? n_feat : 1;  // at F = 0, a thread per edge counts it
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n_edges * width;
         i += stride) {
        const long long e = i / width;
        const long long f = i - e * width;
        const long long row = idx[e];
        if (row < 0 || row >= n_nodes) continue;
        if (f == 0) atomicAdd(&counts[row], 1);
        if (n_feat > 0) atomicAdd(&dst[row * n_feat + f], src[i]);
    }
}
