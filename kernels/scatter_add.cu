// scatter_add.cu -- in-place scatter-add with per-row counts (the TensorRT plugin's kernel).
//
// Contract
//   dst    [n_nodes, n_feat]  T, row-major. Read AND written in place: dst[t, :] += sum of src rows
//                             whose index is t. In the plugin, dst is output 0, which TensorRT
//                             aliases to input 0 (X); the launcher copies X into dst first when
//                             the two addresses differ, so this kernel only ever sees one buffer.
//   src    [n_edges, n_feat]  T, row-major, read only.
//   idx    [n_edges]          I (int32 or int64), 0-based destination row of each src row.
//   counts [n_nodes]          int32, must be zeroed on the same stream before the launch;
//                             receives the number of in-range indices equal to each row.
//   An index outside [0, n_nodes) is skipped: its src row is not added and not counted, and
//   nothing outside the four buffers is read or written, whatever the index values are.
//
// Numerics
//   Each warp takes a chunk of CHUNK consecutive edges. Runs of equal consecutive indices are
//   summed in fp32 registers and flushed with one atomic per element per run, so sorted indices
//   cost about one atomic per destination element per chunk. 16-bit types never use the scalar
//   16-bit atomicAdd (a CAS loop on sm_90 that collapses under contention): they flush through
//   the paired __half2 / __nv_bfloat162 atomicAdd on the aligned 4-byte word that holds the
//   element, adding -0.0 (the exact identity of IEEE addition) to the neighbouring element.
//   Only the very last element of dst, when n_nodes * n_feat is odd, has no aligned pair inside
//   the buffer; it is updated with a 16-bit compare-and-swap loop.
//   Atomics make the order of additions, hence the last bits of the result, run-dependent.
//
// Launch geometry
//   block = WARPS_PER_BLOCK * 32 threads, grid = ceil(ceil(n_edges / CHUNK) / WARPS_PER_BLOCK).
//   Lanes stride over feature columns. Requires compute capability 7.0+ (16-bit atomicCAS);
//   the sample targets 7.5+ like TensorRT 11. dst must be 4-byte aligned.
//
// Entry points (extern "C", no name mangling): scatter_add_<f32|f16|bf16>_<i32|i64>.

#include <cuda_fp16.h>
#include <cuda_bf16.h>

constexpr int kWarp = 32;
constexpr int CHUNK = 32;            // edges per warp; equal to the warp size for the ballot below
constexpr int WARPS_PER_BLOCK = 8;

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }

__device__ __forceinline__ __half2 pair_with_identity(float v, bool high, __half) {
    const __half x = __float2half_rn(v), z = __float2half_rn(-0.0f);
    return high ? __halves2half2(z, x) : __halves2half2(x, z);
}
__device__ __forceinline__ __nv_bfloat162 pair_with_identity(float v, bool high, __nv_bfloat16) {
    const __nv_bfloat16 x = __float2bfloat16_rn(v), z = __float2bfloat16_rn(-0.0f);
    return high ? __halves2bfloat162(z, x) : __halves2bfloat162(x, z);
}

__device__ __forceinline__ unsigned short add_bits(unsigned short bits, float v, __half) {
    return __half_as_ushort(__float2half_rn(__half2float(__ushort_as_half(bits)) + v));
}
__device__ __forceinline__ unsigned short add_bits(unsigned short bits, float v, __nv_bfloat16) {
    return __bfloat16_as_ushort(
        __float2bfloat16_rn(__bfloat162float(__ushort_as_bfloat16(bits)) + v));
}

// dst[i] += v for element i of a buffer holding `total` elements.
__device__ __forceinline__ void flush(float* dst, long long i, long long, float v) {
    atomicAdd(dst + i, v);
}

template <typename T>
__device__ __forceinline__ void flush(T* dst, long long i, long long total, float v) {
    const long long pair = i & ~1LL;
    if (pair + 1 < total) {
        using T2 = decltype(pair_with_identity(v, false, T()));
        atomicAdd(reinterpret_cast<T2*>(dst + pair), pair_with_identity(v, (i & 1) != 0, T()));
        return;
    }
    // The odd last element: its 4-byte word would reach past the end of the buffer.
    unsigned short* word = reinterpret_cast<unsigned short*>(dst + i);
    unsigned short seen = *word, expected;
    do {
        expected = seen;
        seen = atomicCAS(word, expected, add_bits(expected, v, T()));
    } while (seen != expected);
}

template <typename T, typename I>
__device__ void scatter_add(T* __restrict__ dst, const T* __restrict__ src,
                            const I* __restrict__ idx, int* __restrict__ counts,
                            long long n_edges, long long n_nodes, int n_feat) {
    __shared__ long long rows[WARPS_PER_BLOCK][CHUNK];
    const int warp = threadIdx.x / kWarp, lane = threadIdx.x % kWarp;
    const long long first = ((long long)blockIdx.x * WARPS_PER_BLOCK + warp) * CHUNK;
    if (first >= n_edges) return;  // whole warp leaves together; only __syncwarp is used below
    const int len = (int)min((long long)CHUNK, n_edges - first);
    long long* row = rows[warp];

    const long long mine = lane < len ? (long long)idx[first + lane] : -1;
    row[lane] = mine;
    __syncwarp();

    // Counts: the first lane of each run adds the run's length.
    const bool head = lane < len && (lane == 0 || row[lane - 1] != mine);
    const unsigned heads = __ballot_sync(0xffffffffu, head);
    if (head && mine >= 0 && mine < n_nodes) {
        const unsigned later = lane == kWarp - 1 ? 0u : heads & (0xffffffffu << (lane + 1));
        const int end = later ? __ffs(later) - 1 : len;
        atomicAdd(counts + mine, end - lane);
    }

    const long long total = n_nodes * (long long)n_feat;
    for (int col = lane; col < n_feat; col += kWarp) {
        long long current = row[0];
        float acc = 0.0f;
        for (int k = 0; k < len; ++k) {
            const long long t = row[k];
            if (t != current) {
                if (current >= 0 && current < n_nodes) flush(dst, current * n_feat + col, total, acc);
                current = t;
                acc = 0.0f;
            }
            acc += to_f32(src[(first + k) * n_feat + col]);
        }
        if (current >= 0 && current < n_nodes) flush(dst, current * n_feat + col, total, acc);
    }
}

#define SCATTER_ADD_ENTRY(NAME, T, I)                                                         \
    extern "C" __global__ void __launch_bounds__(WARPS_PER_BLOCK * kWarp)                     \
    NAME(T* dst, const T* src, const I* idx, int* counts, long long n_edges,                  \
         long long n_nodes, int n_feat) {                                                      \
        scatter_add<T, I>(dst, src, idx, counts, n_edges, n_nodes, n_feat);                   \
    }

SCATTER_ADD_ENTRY(scatter_add_f32_i32, float, int)
SCATTER_ADD_ENTRY(scatter_add_f32_i64, float, long long)
SCATTER_ADD_ENTRY(scatter_add_f16_i32, __half, int)
SCATTER_ADD_ENTRY(scatter_add_f16_i64, __half, long long)
SCATTER_ADD_ENTRY(scatter_add_bf16_i32, __nv_bfloat16, int)
SCATTER_ADD_ENTRY(scatter_add_bf16_i64, __nv_bfloat16, long long)
