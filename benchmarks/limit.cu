// SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
// SPDX-License-Identifier: Apache-2.0
// limit.cu -- benchmark only, never part of the sample: the `limit` row of
// benchmarks/bench_scatter_add.py, the least that a scatter-add in random order does. It reads idx
// and src once and adds src to dst with the widest RED there is, and nothing else: no counts, no
// runs, no order. dst [n_nodes, F] += src [n_edges, F] at rows idx [n_edges] (0-based; others
// skipped). T (float, __half, __nv_bfloat16) and I (int, long long) come as -DLIMIT_T, -DLIMIT_I.
// limit_rows: a thread per 16 bytes of a row, one vector RED each (sm_90; F * sizeof(T) a multiple
// of 16, dst and src 16-byte aligned). limit_values: a thread per value, for narrower rows: fp32 by
// a scalar RED, 16-bit values paired with -0.0 (which adds nothing) in their aligned 4 bytes
// (dst's element count must be even).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using T = LIMIT_T;
using I = LIMIT_I;

__device__ __forceinline__ void red16(float* p, uint4 v) {
    asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y),
                 "r"(v.z), "r"(v.w) : "memory");
}
__device__ __forceinline__ void red16(__half* p, uint4 v) {
    asm volatile("red.global.add.noftz.v4.f16x2 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__device__ __forceinline__ void red16(__nv_bfloat16* p, uint4 v) {
    asm volatile("red.global.add.noftz.v4.bf16x2 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

extern "C" __global__ void limit_rows(T* dst, const T* src, const I* idx, long long n_edges,
                                      long long n_nodes, long long n_feat) {
    const long long chunks = n_feat * (long long)sizeof(T) / 16;  // of a row
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long i = first; i < n_edges * chunks; i += stride) {
        const long long e = i / chunks;
        const long long row = idx[e];
        if (row < 0 || row >= n_nodes) continue;
        const uint4 v = reinterpret_cast<const uint4*>(src)[i];
        red16(dst + row * n_feat + (i - e * chunks) * (16 / (long long)sizeof(T)), v);
    }
}

// The value v at element `at` of dst, in the RED of its aligned 4 bytes (dst has an even count).
__device__ __forceinline__ void add_value(float* dst, long long at, float v) {
    asm volatile("red.global.add.f32 [%0], %1;" ::"l"(dst + at), "f"(v) : "memory");
}
template <typename S> __device__ __forceinline__ unsigned paired(S v, long long at) {
    const unsigned short bits = __builtin_bit_cast(unsigned short, v);
    const unsigned short zero = 0x8000;  // -0.0
    return at & 1 ? (unsigned)bits << 16 | zero : (unsigned)zero << 16 | bits;
}
__device__ __forceinline__ void add_value(__half* dst, long long at, __half v) {
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(dst + (at & ~1LL)),
                 "r"(paired(v, at)) : "memory");
}
__device__ __forceinline__ void add_value(__nv_bfloat16* dst, long long at, __nv_bfloat16 v) {
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(dst + (at & ~1LL)),
                 "r"(paired(v, at)) : "memory");
}

extern "C" __global__ void limit_values(T* dst, const T* src, const I* idx, long long n_edges,
                                        long long n_nodes, long long n_feat) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long i = first; i < n_edges * n_feat; i += stride) {
        const long long e = i / n_feat;
        const long long row = idx[e];
        if (row < 0 || row >= n_nodes) continue;
        const long long at = row * n_feat + (i - e * n_feat);
        add_value(dst, at, src[i]);
    }
}

// limit_counted: F = 1 with the counts, the least that a scatter-add that also counts does in
// random order: a thread an edge, one RED of the pair (value, 1.0) into pairs [n_nodes, 2] of T,
// the widest the hardware has for it (fp32: v2.f32, 8 bytes; 16-bit: f16x2 or bf16x2, 4 bytes).
// A 16-bit count is exact only to 2^11 (fp16) or 2^8 (bf16): a timing, not a result.
__device__ __forceinline__ void add_counted(float* p, float v) {
    asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(v), "f"(1.0f) : "memory");
}
__device__ __forceinline__ void add_counted(__half* p, __half v) {
    const unsigned two = (unsigned)__half_as_ushort(__float2half(1.0f)) << 16 | __half_as_ushort(v);
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(p), "r"(two) : "memory");
}
__device__ __forceinline__ void add_counted(__nv_bfloat16* p, __nv_bfloat16 v) {
    const unsigned short one = __bfloat16_as_ushort(__float2bfloat16(1.0f));
    const unsigned two = (unsigned)one << 16 | __bfloat16_as_ushort(v);
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(p), "r"(two) : "memory");
}

extern "C" __global__ void limit_counted(T* pairs, const T* src, const I* idx, long long n_edges,
                                         long long n_nodes, long long n_feat) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long e = first; e < n_edges; e += stride) {
        const long long row = idx[e];
        if (row < 0 || row >= n_nodes) continue;
        add_counted(pairs + 2 * row, src[e]);
    }
}
