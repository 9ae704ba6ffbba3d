// scatter_add_aot.cu -- the QDP route's entry point (qdp/aot_kernel.py compiles it to PTX for TensorRT's
// aot_impl). The core is the plugin's kernel, kernels/scatter_add.cu, which NVRTC receives as a header.
// ONE kernel, no workspace, no memset: that is all an AOT plugin gets. Arguments in TensorRT's order: inputs
// (x, src, idx, counts_in), the int32 scalars (the sizes, then the tile and span of kernels/plan.py, which
// aot_impl evaluates on the symbolic shapes), outputs (dst, counts). Output 0 aliases input 0, output 1 input
// 3, which the network's Fill layer zeroed. The spans are those of the plugin's kernel, but every run is added
// atomically, the pieces of runs across spans too: right in any order, never bitwise repeatable.
// Outputs that are not their inputs (aliasing broken) get NaN and -1: a loud wrong answer, not a trap that
// would leave the CUDA context unusable.
#include "scatter_add.cu"

using T = SCATTER_AOT_T;
using I = SCATTER_AOT_I;
extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
SCATTER_AOT_NAME(const T* x, const T* src, const I* idx, const int* counts_in, int n_edges, int n_nodes, int n_feat,
                 int columns, int rows, int lanes, int passes, int span, T* dst, int* counts) {
    const Args<T, I> a{dst, src, idx, counts, nullptr, nullptr, n_edges, n_nodes, n_feat, lanes, passes,
                       (unsigned)span};
    if (dst == x && counts == counts_in) return scatter_add<T, I, false>(a, columns, rows);
    const long long elements = (long long)n_nodes * (n_feat > 1 ? n_feat : 1);
    for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < elements; i += (long long)gridDim.x * BLOCK) {
        if (i < (long long)n_nodes * n_feat) dst[i] = from_f32<T>(__int_as_float(0x7fc00000));
        if (i < n_nodes) counts[i] = -1;
    }
}
