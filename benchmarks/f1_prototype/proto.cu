// SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
// SPDX-License-Identifier: Apache-2.0
// proto.cu -- F = 1 (one scalar per row): a narrow-row specialisation of v14's span walk, compiled by NVRTC together
// with v14's core (it includes v14/scatter_add.cu: Args, PARAMS, pair, cas_add, fix_up_width; SCATTER_ENTRIES may
// be empty). The contract is the plugin's: dst[N] (fp32/fp16/bf16) += the fp32 sum of src[e] over idx[e] == r,
// counts[N] gets the exact in-degree, indices outside [0, N) are skipped and nothing outside the buffers is touched,
// and non-decreasing idx gives each row ONE addition (bitwise repeatable), runs across spans meeting in v14's
// pieces and fix-up. Here F == 1 and the span (PARAMS' span) is a multiple of 32 * K except for the last one
// (plan: Tile(1, K, 1, 1)); dst, src, idx 16-byte aligned.
//
// Entries, from F1_ENTRIES = F1(NAME, T, I, K, HINT) ...; arguments PARAMS(T, I), float* ws, int how (bit 0: MODE 1
// allowed (fp32, N >= CTRL), bit 1: E >= 2^24). The workspace ws holds v14's flags and pieces (MODE 0) or the
// [N, 2] fp32 scratch (MODE 1): max(plan.workspace_bytes, 8N) bytes, within max(src/8, X + counts, 64 KiB).
//   NAME_small  ONE block of FIX_BLOCK threads, nothing before or after (zeroes counts, walks, fixes up).
//   else        NAME_zero (or, where MODE 1 is not allowed, a memset of counts), NAME, NAME_after (2+ spans or
//               MODE 1 allowed), NAME_recount (MODE 1 allowed and E >= 2^24).
// MODE 1 (vector REDs of (sum, count) into the scratch, then an unpack: one L2 atomic an edge in random order, not
// two) runs where 32 samples of idx show a decrease: the input is then surely not sorted, owes no bit-repeatability,
// and runs across spans are simply added. Every kernel derives the mode from the same samples.
#include "scatter_add.cu"

constexpr int CTRL = 130;             // MODE 1, E >= 2^24: counts[0] rows listed, [1, 129) the rows, [129] a ticket
constexpr float EXACT = 16777216.f;   // float counts are exact below 2^24

template <typename I> __device__ __forceinline__ unsigned row_of(I key, long long n) {  // one unsigned compare
    if constexpr (sizeof(I) == 4) return (unsigned)key < (unsigned)n ? (unsigned)key : OUT_OF_RANGE;
    else return (unsigned long long)key < (unsigned long long)n ? (unsigned)key : OUT_OF_RANGE;
}
template <typename I> __device__ __forceinline__ bool unsorted(const I* idx, long long n_edges) {  // a whole warp
    const int lane = threadIdx.x % 32;
    const I k = idx[lane * (n_edges - 1) / 31], next = __shfl_down_sync(kAll, k, 1);
    return __any_sync(kAll, lane < 31 && next < k);
}
template <int N, typename T, bool HINT> __device__ __forceinline__ Raw<N, T> ld16(const T* p, unsigned long long pol) {
    if constexpr (!HINT) return load_raw<N>(p);
    uint4 r;  // streamed once: L2 evict-first
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(pol));
    return __builtin_bit_cast(Raw<N, T>, r);
}
// Edges e .. e + K: rows (OUT_OF_RANGE past end) and values, in 16-byte loads where whole.
template <int K, bool HINT, typename T, typename I>
__device__ __forceinline__ void load_f1(const Args<T, I>& a, unsigned e, unsigned end, unsigned (&row)[K], float (&v)[K],
                                        unsigned long long pol) {
    constexpr int KI = 16 / sizeof(I), KT = 16 / sizeof(T);
    if (e + K <= end) {
        Raw<K, I> keys;
        Raw<K, T> vals;
        for (int c = 0; c < K; c += KI) *reinterpret_cast<Raw<KI, I>*>(&keys.v[c]) = ld16<KI, I, HINT>(a.idx + e + c, pol);
        for (int c = 0; c < K; c += KT) *reinterpret_cast<Raw<KT, T>*>(&vals.v[c]) = ld16<KT, T, HINT>(a.src + e + c, pol);
        for (int j = 0; j < K; ++j) row[j] = row_of(keys.v[j], a.n_nodes), v[j] = to_f32(vals.v[j]);
    } else {
        for (int j = 0; j < K; ++j) {
            row[j] = OUT_OF_RANGE, v[j] = 0.f;
            if (e + j < end) row[j] = row_of(a.idx[e + j], a.n_nodes), v[j] = to_f32(a.src[e + j]);
        }
    }
}

// A finished run where p: MODE 0 adds it to dst and counts (16-bit: the aligned pair holding row, the other half
// -0.0, as v14's red_add; a lone last element by compare-and-swap), MODE 1 to scratch[row] in one vector RED.
template <typename T> __device__ __noinline__ void add_lone(T* d, float s, int* c, int n) {
    cas_add<unsigned short>(d, &s);
    atomicAdd(c, n);
}
#define RED_PAIR(T, PTX_TYPE)                                                                                        \
    __device__ __forceinline__ void red_pair(bool p, T* d, unsigned w, int* c, int n) {                               \
        asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0;\n\t@q red.global.add.noftz." PTX_TYPE " [%1], %2;\n\t"    \
                     "@q red.global.add.s32 [%3], %4; }" :: "r"((int)p), "l"(d), "r"(w), "l"(c), "r"(n) : "memory"); \
    }
RED_PAIR(__half, "f16x2")
RED_PAIR(__nv_bfloat16, "bf16x2")  // sm_90
#undef RED_PAIR
template <bool SCR, typename T, typename I>
__device__ __forceinline__ void add_run(const Args<T, I>& a, float* ws, bool p, unsigned row, float s, int n) {
    if constexpr (SCR) {
        asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0;\n\t@q red.global.add.v2.f32 [%1], {%2, %3}; }"
                     :: "r"((int)p), "l"(ws + 2 * (unsigned long long)row), "f"(s), "f"((float)n) : "memory");
    } else if constexpr (sizeof(T) == 4) {
        asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0;\n\t@q red.global.add.f32 [%1], %2;\n\t"
                     "@q red.global.add.s32 [%3], %4; }"
                     :: "r"((int)p), "l"(a.dst + row), "f"(s), "l"(a.counts + row), "r"(n) : "memory");
    } else {
        const bool paired = ((long long)row | 1) < a.n_nodes;
        red_pair(p && paired, a.dst + (row & ~1u), pair<T>(row & 1 ? -0.0f : s, row & 1 ? s : -0.0f), a.counts + row, n);
        if (p && !paired) add_lone(a.dst + row, s, a.counts + row, n);
    }
}
template <typename T, typename I>  // MODE 0: a run across spans, counted now, summed by the fix-up
__device__ __forceinline__ void add_piece(const Args<T, I>& a, unsigned span, int which, unsigned row, float s, int n) {
    if (row >= OUT_OF_RANGE) return;
    atomicAdd(a.counts + row, n);
    *a.piece(span, which, 0) = s;
}

// One span by one warp, in rounds of 32 * K edges: a lane takes K consecutive edges, marks where runs start, sums
// its head run (up to its first start) and tail run, and a segmented scan over the lanes (sum; count << 1 | begun
// in this span) joins runs across lanes and rounds. A lane adds the run ending at its first start; runs that start
// and end inside it (short runs: random order) take a second loop that sorted input rarely enters.
template <int K, bool HINT, bool SCR, typename T, typename I>
__device__ __forceinline__ void span_f1(const Args<T, I>& a, unsigned span, float* ws) {
    const int lane = threadIdx.x % 32;
    const unsigned s0 = span * a.span, s1 = min(s0 + a.span, (unsigned)a.n_edges);
    unsigned long long pol = 0;
    if constexpr (HINT) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
    const unsigned next = s1 < a.n_edges ? row_of(a.idx[s1], a.n_nodes) : NONE;  // the row after the span
    unsigned last = s0 > 0 ? row_of(a.idx[s0 - 1], a.n_nodes) : NONE;  // the row of the edge before the round,
    float carry = 0.f;                                                   // its run's sum so far,
    int carry_m = 0;                                                     // count << 1 | begun in this span
    for (unsigned r0 = s0; r0 < s1; r0 += 32 * K) {
        unsigned row[K];
        float v[K], tail = 0.f, head = 0.f;
        load_f1<K, HINT>(a, r0 + lane * K, s1, row, v, pol);
        const unsigned up = __shfl_up_sync(kAll, row[K - 1], 1), before = lane ? up : last;
        unsigned starts = 0;  // bit j: edge j starts a run
        for (int j = 0; j < K; ++j) {
            const bool b = row[j] != (j ? row[j - 1] : before);
            starts |= (unsigned)b << j, tail = b ? v[j] : tail + v[j];
        }
        const int first = starts ? __ffs(starts) - 1 : K, lastb = starts ? 31 - __clz(starts) : 0;
        for (int j = 0; j < K; ++j)
            if (j < first) head += v[j];
        float s = tail;
        int m = (K - lastb) << 1 | (starts != 0);
        if (lane == 0 && !(m & 1)) s = carry + s, m += carry_m;
        for (int d = 1; d < 32; d *= 2) {
            const float s2 = __shfl_up_sync(kAll, s, d);
            const int m2 = __shfl_up_sync(kAll, m, d);
            if (lane >= d && !(m & 1)) s = s2 + s, m += m2;
        }
        float in = __shfl_up_sync(kAll, s, 1);  // what flows into this lane
        int in_m = __shfl_up_sync(kAll, m, 1);
        if (lane == 0) in = carry, in_m = carry_m;
        carry = __shfl_sync(kAll, s, 31), carry_m = __shfl_sync(kAll, m, 31);
        if (starts) {  // the run of `before` ends at edge `first`
            const float sum = first ? in + head : in;
            const int n = (in_m >> 1) + first;
            const bool add = before < OUT_OF_RANGE && n > 0, piece = !SCR && !(in_m & 1);  // begun before the span
            if (add && piece) add_piece(a, span, HEAD, before, sum, n);
            add_run<SCR>(a, ws, add && !piece, before, sum, n);
        }
        if (starts & (starts - 1)) {  // runs that start and end in this lane
            float q = 0.f;
            int qn = 0;
            for (int j = 0; j < K; ++j) {
                const bool b = (starts >> j) & 1;
                if (j) add_run<SCR>(a, ws, b && j > first && row[j - 1] < OUT_OF_RANGE, row[j - 1], q, qn);
                q = b ? v[j] : q + v[j], qn = b ? 1 : qn + 1;
            }
        }
        last = __shfl_sync(kAll, row[K - 1], 31);
    }
    if (lane == 0) {  // the span's last run, as v14's span_passes; MODE 1 adds it whatever it crosses
        const bool goes_on = next == last, begun = carry_m & 1;
        const int n = carry_m >> 1;
        if (!SCR && (goes_on || !begun)) add_piece(a, span, begun ? TAIL : HEAD, last, carry, n);
        else add_run<SCR>(a, ws, last < OUT_OF_RANGE && n > 0, last, carry, n);
        if (!SCR) a.flags[span] = begun ? 0 : WHOLE;
    }
}
template <int K, bool HINT, typename T, typename I>  // the spans of this warp (w of `warps` striding)
__device__ __forceinline__ void walk_f1(const Args<T, I>& a, float* ws, int how, long long w, long long warps) {
    if (sizeof(T) == 4 && (how & 1) && unsorted(a.idx, a.n_edges)) {
        for (long long s = w; s < a.spans(); s += warps) span_f1<K, HINT, sizeof(T) == 4>(a, (unsigned)s, ws);
    } else {
        for (long long s = w; s < a.spans(); s += warps) span_f1<K, HINT, false>(a, (unsigned)s, ws);
    }
}

// MODE 1's unpack: dst += sum, counts = count. Where E >= 2^24 (how & 2) a count may have reached 2^24: such rows
// are listed in counts[0, CTRL) and recounted; rows below CTRL are stashed in the scratch until then.
template <typename I> __device__ void unpack(float* dst, int* counts, float* ws, long long n_nodes, int how) {
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < n_nodes; r += (long long)gridDim.x * blockDim.x) {
        const float2 c = reinterpret_cast<const float2*>(ws)[r];
        if (c.x != 0.f) dst[r] += c.x;
        int n = (int)c.y;
        if ((how & 2) && c.y >= EXACT) {
            const int k = atomicAdd(counts, 1);
            if (k < CTRL - 2) counts[1 + k] = (int)r;
            n = 0;
        }
        if ((how & 2) && r < CTRL) reinterpret_cast<int*>(ws)[2 * r + 1] = n;
        else counts[r] = n;
    }
}
template <typename I>  // the listed rows' edges, four rows a pass over idx; the last block writes the stashed rows
__device__ void recount(const I* idx, long long n_edges, long long n_nodes, int* counts, float* ws) {
    const int listed = min(counts[0], CTRL - 2);
    for (int k0 = 0; k0 < listed; k0 += 4) {
        unsigned hot[4];
        int c[4] = {};
        for (int i = 0; i < 4; ++i) hot[i] = k0 + i < listed ? counts[1 + k0 + i] : NONE;
        for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < n_edges; e += (long long)gridDim.x * blockDim.x) {
            const unsigned r = row_of(idx[e], n_nodes);
            for (int i = 0; i < 4; ++i) c[i] += r == hot[i];
        }
        for (int i = 0; i < 4; ++i) {
            for (int d = 16; d; d /= 2) c[i] += __shfl_xor_sync(kAll, c[i], d);
            if (threadIdx.x % 32 == 0 && c[i]) atomicAdd(hot[i] < CTRL ? (int*)ws + 2 * hot[i] + 1 : counts + hot[i], c[i]);
        }
    }
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) __threadfence(), last = atomicAdd(counts + CTRL - 1, 1) == gridDim.x - 1;
    __syncthreads();
    if (last && threadIdx.x < min(n_nodes, (long long)CTRL)) __threadfence(), counts[threadIdx.x] = __ldcg((int*)ws + 2 * threadIdx.x + 1);
}

#define F1(NAME, T, I, K, HINT)                                                                                      \
    extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) NAME(PARAMS(T, I), float* ws, int how) {         \
        walk_f1<K, HINT>(ARGS(T, I), ws, how, blockIdx.x * WARPS + threadIdx.x / 32, gridDim.x * WARPS);            \
    }                                                                                                                \
    extern "C" __global__ void NAME##_zero(PARAMS(T, I), float* ws, int how) { /* where MODE 1 is allowed */         \
        const bool scr = sizeof(T) == 4 && (how & 1) && unsorted(idx, n_edges);                                      \
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (scr ? 2 : 1) * n_nodes;            \
             i += (long long)gridDim.x * blockDim.x) {                                                               \
            if (scr) ((int*)ws)[i] = 0;                                                                              \
            if (!scr || i < CTRL) counts[i] = 0;                                                                     \
        }                                                                                                            \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(FIX_BLOCK) NAME##_after(PARAMS(T, I), float* ws, int how) {         \
        if (sizeof(T) == 4 && (how & 1) && unsorted(idx, n_edges)) unpack<I>((float*)dst, counts, ws, n_nodes, how); \
        else fix_up_width(ARGS(T, I), fix_width);                                                                    \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(256) NAME##_recount(PARAMS(T, I), float* ws, int how) {             \
        if (sizeof(T) == 4 && (how & 1) && unsorted(idx, n_edges)) recount(idx, n_edges, n_nodes, counts, ws);                                      \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(FIX_BLOCK) NAME##_small(PARAMS(T, I), float* ws, int how) {         \
        const Args<T, I> a = ARGS(T, I);                                                                             \
        for (int i = threadIdx.x; i < n_nodes; i += FIX_BLOCK) counts[i] = 0;                                        \
        __syncthreads();                                                                                             \
        walk_f1<K, HINT>(a, ws, 0, threadIdx.x / 32, FIX_BLOCK / 32);                                               \
        __syncthreads();                                                                                             \
        if (a.spans() > 1) fix_up_width(a, fix_width);                                                               \
    }
F1_ENTRIES
extern "C" __global__ void f1_empty() {}  // graph-node overhead calibration (bench only)
