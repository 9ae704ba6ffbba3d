// SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
// SPDX-License-Identifier: Apache-2.0
// reference.cu -- the obvious scatter-add, the kernel "reference" (kernels/reference.py):
// dst [N, F] (X on entry) += the src [E, F] rows at idx [E] (0-based; rows outside [0, N)
// skipped); counts [N] int32, zeroed by the launcher, gets the in-degree. T (float, __half,
// __nv_bfloat16) and I (int, long long) come as -DSCATTER_T and -DSCATTER_I. Any N and F, E up to
// 2^31 - 1 (the counts' limit), no workspace. A thread per value of src (grid-strided) adds it
// with an atomic: each sum is rounded in T once per edge, in an order that varies from run to run
// (not bitwise repeatable); fp32 atomics flush subnormals to zero.
// Why pairs: a scalar 16-bit atomicAdd is a CAS loop, which stalls on hot rows; the 2-wide one is
// native (bf16's from sm_90; a CAS loop on sm_80-89). -0.0 beside the value keeps the neighbour.

#include <cuda_fp16.h>
#include <cuda_bf16.h>
using T = SCATTER_T;
using I = SCATTER_I;

template <typename V> struct Pair;  // the 2-wide type of a 16-bit V
template <> struct Pair<__half> { using type = __half2; };
template <> struct Pair<__nv_bfloat16> { using type = __nv_bfloat162; };

// dst[i] += v, dst having n elements.
__device__ void add(float* dst, long long i, long long n, float v) { atomicAdd(dst + i, v); }

template <typename V> __device__ void add(V* dst, long long i, long long n, V v) {
    using V2 = typename Pair<V>::type;
    const long long base = i & ~1LL;  // the pair (base, base + 1) holds element i
    const bool aligned = reinterpret_cast<unsigned long long>(dst) % sizeof(V2) == 0;
    if (!aligned || base + 1 >= n) {  // the pair would be misaligned or leave the buffer
        atomicAdd(dst + i, v);
        return;
    }
    const V zero = -0.0f;  // x + -0.0 == x for every x, -0.0 included
    const V2 pair = i == base ? V2(v, zero) : V2(zero, v);  // element base in the low half
    atomicAdd(reinterpret_cast<V2*>(dst + base), pair);
}

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
        if (n_feat > 0) add(dst, row * n_feat + f, n_nodes * n_feat, src[i]);
    }
}
