// SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
// SPDX-License-Identifier: Apache-2.0
// scatter_add_aot.cu -- the QDP route's entry point, scatter_add_aot: scatter_add_aot.py
// compiles it to PTX for TensorRT's aot_impl, with -DSCATTER_AOT. The core is the plugin's
// kernel, scatter_add.cu, from this folder (its header has the contract and the glossary).
// ONE kernel, no workspace, no memset: that is all an AOT plugin gets. Arguments in TensorRT's
// order: the inputs (x, src, idx, counts_in), the int32 scalars (scatter_add_aot.scalars: the
// sizes, then the tile and span of plan.py, which aot_impl evaluates on the symbolic shapes), the
// outputs (dst, counts). Output 0 aliases input 0, output 1 input 3, which the network's Fill
// layer zeroed. The spans are those of the plugin's kernel, but every run is added atomically, the
// pieces of runs across spans too: right in any order, never bitwise repeatable.
//
// The run-time half of the contract: aot_impl refused at build time what it could see (ranks,
// types, F), but src's rows and counts' rows are symbolic there, so they come as scalars and are
// compared here. A mismatch, or outputs that are not their inputs (aliasing broken), gets a loud
// wrong answer: NaN in dst, -1 in counts. Not a __trap(), which would leave the CUDA context
// unusable. That path reads neither src nor idx, and writes only what the outputs surely hold: dst
// has X's shape (N x F, both read from X), counts has counts_rows rows.
#include "scatter_add.cu"

// NaN in dst's n_nodes * n_feat values, -1 in counts' first `marks` entries, grid-strided.
__device__ void mark_refused(T* dst, int* counts, int n_nodes, int n_feat, int marks) {
    const long long values = (long long)n_nodes * n_feat;
    const long long end = values > marks ? values : marks;
    const long long stride = (long long)gridDim.x * BLOCK;
    for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < end; i += stride) {
        if (i < values) dst[i] = from_f32<T>(__int_as_float(0x7fc00000));
        if (i < marks) counts[i] = -1;
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
scatter_add_aot(const T* x, const T* src, const I* idx, const int* counts_in, int n_edges,
                int n_nodes, int n_feat, int src_rows, int counts_rows, int columns, int lanes,
                int passes, int span, T* dst, int* counts) {
    const bool aliased = dst == x && counts == counts_in;
    const bool shaped = src_rows == n_edges && counts_rows == n_nodes;
    if (!aliased || !shaped) {
        return mark_refused(dst, counts, n_nodes, n_feat, min(counts_rows, n_nodes));
    }
    const Args a{dst,     src,    idx,   counts, nullptr,        nullptr, n_edges,
                 n_nodes, n_feat, lanes, passes, (unsigned)span, false};
    all_spans<false>(a, columns);
}
