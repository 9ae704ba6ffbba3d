// SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
// SPDX-License-Identifier: Apache-2.0
// scatter_add.cu -- in-place scatter-add with in-degrees (v15), compiled by NVRTC when the engine is built, once
// per type pair (-DSCATTER_T: float, __half or __nv_bfloat16; -DSCATTER_I: int or long long).
//
// Contract. One enqueue is a memset of counts, then scatter_add(PARAMS), then scatter_add_fixup(PARAMS) (at
// F = 1 with `scratch`: scatter_add_zero instead of the memset, scatter_add_recount last; plan.launch says which):
//   dst [n_nodes, n_feat] T, read AND written: dst[r] += the sum of the src rows e with idx[e] == r; in the plugin
//   it is output 0, which TensorRT aliases to input 0 (X): one buffer. src [n_edges, n_feat] T; idx [n_edges],
//   0-based rows; counts [n_nodes] int32, zeroed, gets the in-degree. dst, src and idx are 16-byte aligned;
//   n_nodes, n_edges and a row's bytes are below 2^31. flags, pieces: the workspace (any content). The tile,
//   span length, fix-up width, `scratch` (its [N, 2] fp32 in the workspace may be used) and the other SCATTER_*
//   macros are plan.py's.
// An index outside [0, n_nodes) is skipped; nothing outside the buffers is read or written. Each run of equal
// indices is summed in fp32 and added by one atomic: where idx never decreases, a row gets one addition and the
// result is bitwise repeatable. fp32 atomics flush subnormals (fp32's scratch, used only on unsorted input, adds
// its sums once without atomics, and leaves rows without edges as they were). docs/kernel.md says how it works.

#include <cuda_fp16.h>
#include <cuda_bf16.h>
using T = SCATTER_T;
using I = SCATTER_I;
constexpr int BLOCK = SCATTER_BLOCK, WARPS = BLOCK / 32, MIN_BLOCKS = SCATTER_MIN_BLOCKS;
constexpr int FIX_BLOCK = SCATTER_FIX_BLOCK, LOAD_BYTES = SCATTER_LOAD_BYTES;
constexpr unsigned OUT_OF_RANGE = 0x7fffffffu, NONE = 0xffffffffu, kAll = 0xffffffffu;  // rows; NONE: no edge
constexpr unsigned WHOLE = 1;      // a span's flag: no run starts in it (a run begun before covers it)
constexpr int HEAD = 0, TAIL = 1;  // a span's pieces: its first run, begun before it; its last, going on after it
constexpr bool SM80 = __CUDA_ARCH__ >= 800, SM90 = __CUDA_ARCH__ >= 900;  // L2 cache hints; vector REDs

template <typename T> __device__ __forceinline__ float to_f32(T v) { return static_cast<float>(v); }
template <typename T> __device__ __forceinline__ T from_f32(float v) { return T(v); }  // nearest, ties to even
template <int V> struct Vec { float v[V]; };
template <int N, typename T> struct alignas(N * sizeof(T)) Raw { T v[N]; };  // as stored: one load
template <int V> __device__ __forceinline__ Vec<V> operator+(Vec<V> a, const Vec<V>& b) {
    for (int i = 0; i < V; ++i) a.v[i] += b.v[i];
    return a;
}
template <int N, typename T> __device__ __forceinline__ Raw<N, T> load_raw(const T* p) {
    return *reinterpret_cast<const Raw<N, T>*>(p);
}
__device__ __forceinline__ long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// ---- Adding a finished run to dst ------------------------------------------------------------------------
// Atomics change dst while this thread reads it, so the read is an atomic (relaxed) load, not a plain one.
template <typename W> __device__ __forceinline__ W load_relaxed(const W* p) {  // W: unsigned or unsigned short
    W v;
    if constexpr (sizeof(W) == 4) asm volatile("ld.relaxed.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    else asm volatile("ld.relaxed.gpu.b16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
    return v;
}
// The 16-bit elements of the word W at p += s by compare-and-swap, for what has no atomic (bf16 below sm_90,
// the buffer's odd last element). A miss backs off: a hot row's lanes would retry in lockstep.
template <typename W, typename T> __device__ __forceinline__ void cas_add(T* p, const float* s) {
    constexpr int K = sizeof(W) / sizeof(T);
    unsigned pause = 32;  // ns
    for (W seen = load_relaxed(reinterpret_cast<W*>(p)), was;; seen = was, pause = min(2 * pause, 1024u)) {
        Raw<K, T> r = __builtin_bit_cast(Raw<K, T>, seen);
        for (int k = 0; k < K; ++k) r.v[k] = from_f32<T>(to_f32(r.v[k]) + s[k]);
        if ((was = atomicCAS(reinterpret_cast<W*>(p), seen, __builtin_bit_cast(W, r))) == seen) return;
        __nanosleep(pause);
    }
}
// Two 16-bit values rounded from fp32 and added to one aligned word by a RED (CUDA's atomicAdd on __half2
// is an ATOM, which waits for a reply). bf16x2 is native from sm_90.
template <typename T> __device__ __forceinline__ unsigned pair(float a, float b) {  // a in the low half
    return __builtin_bit_cast(unsigned, Raw<2, T>{{from_f32<T>(a), from_f32<T>(b)}});
}
__device__ __forceinline__ void red2(__half* p, float a, float b) {
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(p), "r"(pair<__half>(a, b)) : "memory");
}
__device__ __forceinline__ void red2(__nv_bfloat16* p, float a, float b) {
#if __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(p), "r"(pair<__nv_bfloat16>(a, b)) : "memory");
#else
    const float s[2] = {a, b};  // slow under contention: docs/kernel.md
    cas_add<unsigned>(p, s);
#endif
}
#if __CUDA_ARCH__ >= 900  // K = 4 or 8 16-bit values rounded from fp32, added by one vector RED of 2K aligned bytes
#define RED_VEC(T, PTX_TYPE)                                                                                \
    template <int K> __device__ __forceinline__ void red_vec(T* p, const float* s) {                        \
        unsigned w[4];                                                                                     \
        for (int k = 0; k < K / 2; ++k) w[k] = pair<T>(s[2 * k], s[2 * k + 1]);                            \
        if constexpr (K == 4) asm volatile("red.global.add.noftz.v2." PTX_TYPE " [%0], {%1, %2};"          \
                                           ::"l"(p), "r"(w[0]), "r"(w[1]) : "memory");                     \
        else asm volatile("red.global.add.noftz.v4." PTX_TYPE " [%0], {%1, %2, %3, %4};"                   \
                          ::"l"(p), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");                 \
    }
RED_VEC(__half, "f16x2")
RED_VEC(__nv_bfloat16, "bf16x2")
#undef RED_VEC
#endif
// dst[i .. i + V) += s atomically (`total` elements). 16-bit: rounded, added in aligned pairs (a lone element is
// paired with -0.0); on sm_90 a lane's 8 or 16 bytes go in one vector RED, aligned since V divides F (plan.tile,
// tested) and dst is 16-byte aligned (scatter_add.py checks it).
template <int V, typename T>
__device__ __forceinline__ void red_add(T* dst, long long i, long long total, const float* s) {
#if __CUDA_ARCH__ >= 900  // vector atomics
    if constexpr (sizeof(T) == 4 && V % 4 == 0) {
        for (int k = 0; k < V; k += 4)
            atomicAdd(reinterpret_cast<float4*>(dst + i + k), make_float4(s[k], s[k + 1], s[k + 2], s[k + 3]));
    } else if constexpr (sizeof(T) == 4 && V % 2 == 0) {
        for (int k = 0; k < V; k += 2) atomicAdd(reinterpret_cast<float2*>(dst + i + k), make_float2(s[k], s[k + 1]));
    } else if constexpr (sizeof(T) == 2 && V % 4 == 0) {
        constexpr int K = V % 8 ? 4 : 8;
        for (int k = 0; k < V; k += K) red_vec<K>(dst + i + k, s + k);
    } else
#endif
    if constexpr (sizeof(T) == 4) {
        for (int k = 0; k < V; ++k) atomicAdd(dst + i + k, s[k]);
    } else if constexpr (V % 2 == 0) {
        for (int k = 0; k < V; k += 2) red2(dst + i + k, s[k], s[k + 1]);
    } else if ((i | 1) < total) {  // the aligned pair holding element i lies inside the buffer
        red2(dst + (i & ~1LL), i & 1 ? -0.0f : s[0], i & 1 ? s[0] : -0.0f);
    } else {
        cas_add<unsigned short>(dst + i, s);
    }
}

// ---- The arguments ---------------------------------------------------------------------------------------
#define PARAMS                                                                                            \
    T *dst, const T *src, const I *idx, int *counts, unsigned *flags, float *pieces, long long n_edges,   \
        long long n_nodes, int n_feat, int columns, int rows, int lanes, int passes, int span, int fix_width, \
        int scratch
struct Args {
    T* dst; const T* src; const I* idx; int* counts; unsigned* flags; float* pieces;
    long long n_edges, n_nodes; int n_feat, lanes, passes; unsigned span; bool scratch;
    __device__ __forceinline__ unsigned row(I key) const {  // one unsigned compare: a negative key is past n_nodes
        if constexpr (sizeof(I) == 4) return (unsigned)key < (unsigned)n_nodes ? (unsigned)key : OUT_OF_RANGE;
        else return (unsigned long long)key < (unsigned long long)n_nodes ? (unsigned)key : OUT_OF_RANGE;
    }
    __device__ __forceinline__ long long total() const { return n_nodes * n_feat; }
    __device__ __forceinline__ long long spans() const { return ceil_div(n_edges, span); }
    // A span's HEAD in slot 2 * span - 1, its TAIL in 2 * span: span 0 has no HEAD and the last span no TAIL (no
    // run begins before edge 0 or goes on past the last), so there are 2 * spans - 2 slots (plan.workspace_bytes).
    __device__ __forceinline__ float* piece(long long span_, int which, int col) const {
        return pieces + (2 * span_ - 1 + which) * n_feat + col;
    }
};
#define ARGS \
    Args{dst, src, idx, counts, flags, pieces, n_edges, n_nodes, n_feat, lanes, passes, (unsigned)span, scratch != 0}

// ---- One span --------------------------------------------------------------------------------------------
// A stretch of edges as the scan sees it: the sums and edge count since its last run began (all of it if
// none began: !starts).
template <int V> struct Part { Vec<V> sum; int n; bool starts; };
template <int V> __device__ __forceinline__ Part<V> operator+(const Part<V>& a, const Part<V>& b) {
    return b.starts ? b : Part<V>{a.sum + b.sum, a.n + b.n, a.starts};
}
template <typename W> __device__ __forceinline__ W move(W v, int lane, bool up) {
    return up ? __shfl_up_sync(kAll, v, lane) : __shfl_sync(kAll, v, lane);
}
template <int V> __device__ __forceinline__ Part<V> shuffle(const Part<V>& x, int lane, bool up) {
    Part<V> r;
    for (int i = 0; i < V; ++i) r.sum.v[i] = move(x.sum.v[i], lane, up);
    const int packed = move(x.n << 1 | x.starts, lane, up);  // n < 2^30: edges of one span
    r.n = packed >> 1, r.starts = packed & 1;
    return r;
}
// A finished run of `row`: the lead lane counts its edges, the active lanes add its V columns at col.
template <int V>
__device__ __forceinline__ void finish(const Args& a, unsigned row, int col, bool active, bool lead,
                                       const Part<V>& p) {
    if (row >= OUT_OF_RANGE || p.n == 0) return;
    if (lead) atomicAdd(a.counts + row, p.n);
    if (active) red_add<V>(a.dst, (long long)row * a.n_feat + col, a.total(), p.sum.v);
}
// A piece of a run that crosses spans: counted now, added to dst by the fix-up kernel.
template <int V>
__device__ __forceinline__ void hand_on(const Args& a, long long span, int which, unsigned row, int col,
                                        bool active, bool lead, const Part<V>& p) {
    if (row >= OUT_OF_RANGE) return;
    if (lead) atomicAdd(a.counts + row, p.n);
    if (active) *reinterpret_cast<Raw<V, float>*>(a.piece(span, which, col)) = __builtin_bit_cast(Raw<V, float>, p.sum);
}

// idx[e .. e + N), those below end, with 16-byte loads where they fit.
template <int N> __device__ __forceinline__ Raw<N, I> load_keys(const I* idx, long long e, long long end) {
    constexpr int K = 16 / sizeof(I);
    Raw<N, I> r{};
    for (int c = 0; c < N; c += K) {
        if (c + K <= N && e + c + K <= end && (e + c) % K == 0) {
            *reinterpret_cast<Raw<K, I>*>(&r.v[c]) = load_raw<K>(idx + e + c);
        } else {
            for (int k = 0; k < K && c + k < N && e + c + k < end; ++k) r.v[c + k] = idx[e + c + k];
        }
    }
    return r;
}
// EPL edges' V columns at col: one 16-byte load of EPL whole narrow rows, or V columns of one wide row.
template <int V, int EPL>
__device__ __forceinline__ Raw<V * EPL, T> load_src(const Args& a, unsigned e, unsigned end, int col,
                                                    bool active) {
    Raw<V * EPL, T> r{};
    if (!active || e >= end) return r;
    if (e + EPL <= end) return load_raw<V * EPL>(a.src + (long long)e * a.n_feat + col);
    for (int k = 0; k < EPL && e + k < end; ++k)
        *reinterpret_cast<Raw<V, T>*>(&r.v[k * V]) = load_raw<V>(a.src + (long long)(e + k) * a.n_feat + col);
    return r;
}
// Loads of EPL edges a lane keeps in flight: LOAD_BYTES of src and idx for 4-byte types, half for 16-bit ones
// (their fp32 sums take twice the registers), half again for narrow rows (benchmarks/bench_constants.py).
template <int V, int EPL> __device__ constexpr int loads_in_flight() {
    constexpr int n = LOAD_BYTES * (int)sizeof(T) / 4 / (EPL > 1 || V * sizeof(T) == 16 ? 2 : 1)
                      / (V * EPL * (int)sizeof(T) + EPL * (int)sizeof(I));
    return n >= 8 ? 8 : n >= 4 ? 4 : n >= 2 ? 2 : 1;
}

// A lane's walk over its group's edges [b0, b1) in one round (edge numbers are below 2^31: unsigned sums do
// not wrap). It keeps the open run (cur, of `row`) and, once it ends here, the run that was open at b0: its
// sum in shared memory (first_sum, this thread's own column), its count in first_n.
template <int V> struct Walk { Part<V> cur{}; unsigned row = NONE; int first_n = -1; };
template <int V, int EPL>
__device__ __forceinline__ void walk(const Args& a, Walk<V>& w, float (*first_sum)[BLOCK], unsigned b0,
                                     unsigned b1, int col, bool active, bool lead) {
    constexpr int U = loads_in_flight<V, EPL>();
    w.row = b0 > 0 ? a.row(a.idx[b0 - 1]) : NONE;
    for (unsigned base = b0; base < b1; base += U * EPL) {
        const Raw<U * EPL, I> keys = load_keys<U * EPL>(a.idx, base, b1);
        Raw<V * EPL, T> vals[U];
        for (int u = 0; u < U; ++u) vals[u] = load_src<V, EPL>(a, base + u * EPL, b1, col, active);
#pragma unroll
        for (int j = 0; j < U * EPL; ++j) {  // unrolled: keys and vals stay in registers
            if (base + j >= b1) break;
            const unsigned row = a.row(keys.v[j]);
            if (row != w.row) {  // a run starts here; the one before it ends
                if (w.first_n >= 0) finish<V>(a, w.row, col, active, lead, w.cur);
                else for (int i = 0; i < V; ++i) first_sum[i][threadIdx.x] = w.cur.sum.v[i];
                if (w.first_n < 0) w.first_n = w.cur.n;
                w.cur = Part<V>{{}, 0, true};
                w.row = row;
            }
            for (int i = 0; i < V; ++i) w.cur.sum.v[i] += to_f32(vals[j / EPL].v[(j % EPL) * V + i]);
            ++w.cur.n;
        }
    }
}

// One span, all column passes, in rounds: walks, then a segmented scan over the warp's groups in a fixed order
// (deterministic), then each run that ended is added or handed on. Narrow rows walk one load batch per lane
// per round, so that a warp's loads are contiguous; wider rows walk the span in one round. What is open at a
// round's end is the carry into the next. PIECES: the plugin's kernel (runs across spans leave pieces for the
// fix-up); else the QDP kernel (no workspace: every run added atomically).
template <int V, int EPL, bool PIECES>
__device__ __forceinline__ void span_passes(const Args& a, unsigned span, float (*first_sum)[BLOCK]) {
    const int G = 32 / a.lanes, g = (int)(threadIdx.x % 32) / a.lanes, c = (int)(threadIdx.x % 32) % a.lanes;
    const unsigned s0 = span * a.span, s1 = min(s0 + a.span, (unsigned)a.n_edges);
    const unsigned sub = a.lanes == 1 ? loads_in_flight<V, EPL>() * EPL : a.span / G;  // a group's round
    for (int pass = 0; pass < a.passes; ++pass) {
        const int col = (pass * a.lanes + c) * V;
        const bool active = col < a.n_feat, lead = pass == 0 && c == 0;
        Part<V> carry{};
        for (unsigned r0 = s0; r0 < s1; r0 += G * sub) {
            const unsigned b0 = min(r0 + g * sub, s1), b1 = min(b0 + sub, s1);
            Walk<V> w;
            if (b0 < b1) walk<V, EPL>(a, w, first_sum, b0, b1, col, active, lead);
            Part<V> part = w.cur, in{};  // -> what goes on past this group, and what flows into it
            for (int d = 1; d < G; d *= 2) {
                const Part<V> up = shuffle(part, d * a.lanes, true);
                if (g >= d) part = up + part;
            }
            const Part<V> before = shuffle(part, a.lanes, true);  // (with one group: its own, unused)
            if (g > 0) in = before;
            in = carry + in, part = carry + part;
            if (w.first_n >= 0 && in.n + w.first_n > 0) {  // the run open at b0 (> 0 then) ended in this group
                Part<V> run = in;
                for (int i = 0; i < V; ++i) run.sum.v[i] += first_sum[i][threadIdx.x];
                run.n += w.first_n;
                const unsigned row = a.row(a.idx[b0 - 1]);
                if (PIECES && !run.starts) hand_on<V>(a, span, HEAD, row, col, active, lead, run);
                else finish<V>(a, row, col, active, lead, run);
            }
            carry = shuffle(part, 32 - a.lanes + c, false);  // the last group's, same columns
        }
        if (g == G - 1) {  // the span's last run: it ends here, or goes on into the next span
            const unsigned last = a.row(a.idx[s1 - 1]);
            const bool goes_on = s1 < a.n_edges && a.row(a.idx[s1]) == last;
            if (PIECES && (goes_on || !carry.starts)) {
                hand_on<V>(a, span, carry.starts ? TAIL : HEAD, last, col, active, lead, carry);
            } else {
                finish<V>(a, last, col, active, lead, carry);
            }
            // F = 0 (counts only) has no workspace and no fix-up to read the flags.
            if (PIECES && pass == 0 && c == a.lanes - 1 && a.n_feat) a.flags[span] = carry.starts ? 0 : WHOLE;
        }
    }
}
// ---- F = 1: one value a row, the sample's own shape ------------------------------------------------------
// docs/kernel.md, "F = 1". A lane takes K1 consecutive edges a round in 16-byte loads (spans are multiples of
// 32 * K1 but the last: plan.tile's rows), finds where runs start in its edges, and adds at most the run that
// ends at its first start; a segmented scan over the lanes carries what is open. Runs that start and end inside
// one lane, common only in random order, take a second loop. The plugin's fp32 kernel may also keep a scratch of
// (sum, count) pairs: one 8-byte RED a run instead of two 4-byte ones, used only where idx is surely not sorted.
constexpr int K1 = 8;
constexpr float EXACT = 16777216.f;  // 2^24: float counts are exact below it

// Whether this enqueue uses the scratch (the whole warp asks; every kernel of the enqueue gets the same answer from
// the same 32 entries of idx): a decrease among them proves idx unsorted, so no sum owes anyone repeatable bits.
__device__ __forceinline__ bool uses_scratch(const Args& a) {
    if (!SM90 || sizeof(T) != 4 || !a.scratch || a.n_edges == 0) return false;  // red.global.add.v2.f32: sm_90
    const int lane = threadIdx.x % 32;
    const I key = a.idx[lane * (a.n_edges - 1) / 31], next = __shfl_down_sync(kAll, key, 1);
    return __any_sync(kAll, lane < 31 && next < key);
}
// The scratch lies where the flags and pieces would: every kernel makes the same choice, and with the scratch the
// fix-up kernel unpacks instead of reading pieces.
__device__ __forceinline__ float* pairs(const Args& a) { return reinterpret_cast<float*>(a.flags); }
// 16 bytes read once, so L2 evicts them first and keeps the lines of X that the REDs come back to.
template <typename W> __device__ __forceinline__ void load_once(W* out, const W* p, unsigned long long policy) {
    constexpr int N = 16 / sizeof(W);
    uint4 r;
    if constexpr (!SM80) r = *reinterpret_cast<const uint4*>(p);
    else asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                            : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(policy));
    *reinterpret_cast<Raw<N, W>*>(out) = __builtin_bit_cast(Raw<N, W>, r);
}
// A lane's edges e .. e + K1: rows (OUT_OF_RANGE past end) and values.
__device__ __forceinline__ void load_f1(const Args& a, unsigned e, unsigned end, unsigned long long policy,
                                        unsigned (&row)[K1], float (&v)[K1]) {
    if (e + K1 <= end) {
        Raw<K1, I> keys;
        Raw<K1, T> vals;
        for (int c = 0; c < K1; c += 16 / sizeof(I)) load_once(&keys.v[c], a.idx + e + c, policy);
        for (int c = 0; c < K1; c += 16 / sizeof(T)) load_once(&vals.v[c], a.src + e + c, policy);
        for (int j = 0; j < K1; ++j) row[j] = a.row(keys.v[j]), v[j] = to_f32(vals.v[j]);
    } else {
        for (int j = 0; j < K1; ++j) {
            row[j] = e + j < end ? a.row(a.idx[e + j]) : OUT_OF_RANGE;
            v[j] = e + j < end ? to_f32(a.src[e + j]) : 0.f;
        }
    }
}
// Declared for every type so that add_run's 16-bit branch, discarded for fp32, still names a function; 16-bit: below.
template <typename W> __device__ void red_pair(bool p, W* d, unsigned w, int* c, int n);
#if __CUDA_ARCH__ >= 900  // a 16-bit value in its aligned pair (the other half -0.0), and its count, where p
#define RED_PAIR(T, PTX_TYPE)                                                                                 \
    __device__ __forceinline__ void red_pair(bool p, T* d, unsigned w, int* c, int n) {                       \
        asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0;\n\t@q red.global.add.noftz." PTX_TYPE " [%1], %2;" \
                     "\n\t@q red.global.add.s32 [%3], %4; }" ::"r"((int)p), "l"(d), "r"(w), "l"(c), "r"(n) : "memory"); \
    }
RED_PAIR(__half, "f16x2")
RED_PAIR(__nv_bfloat16, "bf16x2")
#undef RED_PAIR
#endif
// A finished run of n edges summing to s, where p: into the scratch as one (s, n) pair (SCR), else into dst and
// counts. The predicate is PTX's: a C++ `if` around each RED would cost a branch and a reconvergence.
template <bool SCR> __device__ __forceinline__ void add_run(const Args& a, bool p, unsigned row, float s, int n) {
    if constexpr (SCR) {
#if __CUDA_ARCH__ >= 900  // (uses_scratch is false below it; the guard keeps debug builds, which keep dead code, legal)
        asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0;\n\t@q red.global.add.v2.f32 [%1], {%2, %3}; }"
                     ::"r"((int)p), "l"(pairs(a) + 2 * (size_t)row), "f"(s), "f"((float)n) : "memory");
#endif
    } else if constexpr (sizeof(T) == 4) {
        asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0;\n\t@q red.global.add.f32 [%1], %2;\n\t"
                     "@q red.global.add.s32 [%3], %4; }"
                     ::"r"((int)p), "l"(a.dst + row), "f"(s), "l"(a.counts + row), "r"(n) : "memory");
    } else {
        const bool paired = SM90 && ((long long)row | 1) < a.n_nodes;  // the pair holding row is inside dst
#if __CUDA_ARCH__ >= 900
        red_pair(p && paired, a.dst + (row & ~1u), pair<T>(row & 1 ? -0.0f : s, row & 1 ? s : -0.0f), a.counts + row, n);
#endif
        if (p && !paired) red_add<1>(a.dst, row, a.total(), &s), atomicAdd(a.counts + row, n);
    }
}
// A run at a span's edge: a piece for the fix-up where the plugin's kernel keeps them (PIECES, not SCR).
template <bool PIECES, bool SCR>
__device__ __forceinline__ void end_run(const Args& a, bool piece, unsigned span, int which, unsigned row, float s,
                                        int n) {
    const bool add = row < OUT_OF_RANGE && n > 0, keep = PIECES && !SCR && piece;
    if (add && keep) atomicAdd(a.counts + row, n), *a.piece(span, which, 0) = s;
    add_run<SCR>(a, add && !keep, row, s, n);
}
template <bool PIECES, bool SCR> __device__ __forceinline__ void span_f1(const Args& a, unsigned span) {
    const int lane = threadIdx.x % 32;
    const unsigned s0 = span * a.span, s1 = min(s0 + a.span, (unsigned)a.n_edges);
    unsigned long long policy = 0;
    if constexpr (SM80) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    const unsigned next = s1 < a.n_edges ? a.row(a.idx[s1]) : NONE;  // the row after the span
    unsigned last = s0 > 0 ? a.row(a.idx[s0 - 1]) : NONE;  // the row of the edge before the round
    float carry = 0.f;  // the open run's sum in this span, and its edges << 1 | whether it began in this span
    int carry_m = 0;
    for (unsigned r0 = s0; r0 < s1; r0 += 32 * K1) {
        unsigned row[K1];
        float v[K1], head = 0.f, tail = 0.f;
        load_f1(a, r0 + lane * K1, s1, policy, row, v);
        const unsigned up = __shfl_up_sync(kAll, row[K1 - 1], 1), before = lane ? up : last;
        unsigned starts = 0;  // bit j: edge j starts a run
        for (int j = 0; j < K1; ++j) {
            const bool b = row[j] != (j ? row[j - 1] : before);
            starts |= (unsigned)b << j, tail = b ? v[j] : tail + v[j];
        }
        const int first = starts ? __ffs(starts) - 1 : K1, lastb = starts ? 31 - __clz(starts) : 0;
        for (int j = 0; j < K1; ++j) head += j < first ? v[j] : 0.f;
        float s = tail;  // scanned: the run open after this lane, its sum and edges << 1 | begun in the span
        int m = (K1 - lastb) << 1 | (starts != 0);
        if (lane == 0 && !(m & 1)) s = carry + s, m += carry_m;
        for (int d = 1; d < 32; d *= 2) {
            const float s2 = __shfl_up_sync(kAll, s, d);
            const int m2 = __shfl_up_sync(kAll, m, d);
            if (lane >= d && !(m & 1)) s = s2 + s, m += m2;
        }
        float in = __shfl_up_sync(kAll, s, 1);  // the run open before this lane's first edge
        int in_m = __shfl_up_sync(kAll, m, 1);
        if (lane == 0) in = carry, in_m = carry_m;
        carry = __shfl_sync(kAll, s, 31), carry_m = __shfl_sync(kAll, m, 31);
        if (starts) end_run<PIECES, SCR>(a, !(in_m & 1), span, HEAD, before, first ? in + head : in, (in_m >> 1) + first);
        if (starts & (starts - 1)) {  // runs that start and end in this lane
            float q = 0.f;
            int qn = 0;
            for (int j = 0; j < K1; ++j) {
                const bool b = (starts >> j) & 1;
                if (j) add_run<SCR>(a, b && j > first && row[j - 1] < OUT_OF_RANGE, row[j - 1], q, qn);
                q = b ? v[j] : q + v[j], qn = b ? 1 : qn + 1;
            }
        }
        last = __shfl_sync(kAll, row[K1 - 1], 31);
    }
    if (lane == 0) {  // the span's last run, as span_passes's (the scratch takes it whole)
        const bool begun = carry_m & 1;
        end_run<PIECES, SCR>(a, next == last || !begun, span, begun ? TAIL : HEAD, last, carry, carry_m >> 1);
        if (PIECES && !SCR) a.flags[span] = begun ? 0 : WHOLE;
    }
}
template <bool PIECES> __device__ void all_spans_f1(const Args& a) {
    const long long first = blockIdx.x * WARPS + threadIdx.x / 32, spans = a.spans();
    if (PIECES && uses_scratch(a)) {
        for (long long span = first; span < spans; span += gridDim.x * WARPS) span_f1<PIECES, true>(a, span);
    } else {
        for (long long span = first; span < spans; span += gridDim.x * WARPS) span_f1<PIECES, false>(a, span);
    }
}
// The scratch's last step, row by row: dst += sum, counts = count. A row whose float count reached 2^24 (it is
// then at least 2^24: partial sums below it are exact) gets 0 and sets the sign bit of row 0's count, a flag
// that scatter_add_recount reads (a count is never negative: fabsf clears it); row 0 reads its count atomically.
__device__ void unpack(const Args& a) {
    unsigned* flag = reinterpret_cast<unsigned*>(pairs(a)) + 1;
    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < a.n_nodes; r += gridDim.x * blockDim.x) {
        const float2 c = r ? reinterpret_cast<const float2*>(pairs(a))[r]
                           : make_float2(pairs(a)[0], __uint_as_float(atomicOr(flag, 0u)));
        if (c.x != 0.f) a.dst[r] = from_f32<T>(to_f32(a.dst[r]) + c.x);
        const bool many = fabsf(c.y) >= EXACT;
        if (many) atomicOr(flag, 0x80000000u);
        a.counts[r] = many ? 0 : (int)fabsf(c.y);
    }
}
// Those rows' exact counts, if the flag is set: a pass over idx. A thread counts the edges of the last such row it
// met (adding the count so far when another one comes), then a warp adds its lanes' counts of one row together.
__device__ void recount(const Args& a) {
#if __CUDA_ARCH__ >= 900
    if (!(reinterpret_cast<const unsigned*>(pairs(a))[1] >> 31)) return;
    unsigned held = NONE;
    int n = 0;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < a.n_edges; e += gridDim.x * blockDim.x) {
        const unsigned r = a.row(a.idx[e]);
        if (r >= OUT_OF_RANGE || fabsf(pairs(a)[2 * (size_t)r + 1]) < EXACT) continue;
        if (r != held && n) atomicAdd(a.counts + held, n), n = 0;
        held = r, ++n;
    }
    const unsigned peers = __match_any_sync(kAll, held);
    const int total = __reduce_add_sync(peers, n);
    if (held != NONE && __ffs(peers) - 1 == (int)threadIdx.x % 32) atomicAdd(a.counts + held, total);
#endif
}

// Every span, by warps striding over them. (columns, rows): the tiles plan.tile gives for 4- and 2-byte types
// (tests/test_kernel_plan.py checks these lists against it).
template <bool PIECES> __device__ void all_spans(const Args& a, int columns, int rows) {
    __shared__ float first_sum[16 / sizeof(T)][BLOCK];  // columns <= 16 bytes of T
    const long long spans = a.spans();
    if (a.n_feat == 1) return all_spans_f1<PIECES>(a);
    for (unsigned span = blockIdx.x * WARPS + threadIdx.x / 32; span < spans; span += gridDim.x * WARPS) {
#define TILE(C, R) case C * 16 + R: span_passes<C, R, PIECES>(a, span, first_sum); break;
        if constexpr (sizeof(T) == 4) {
            switch (columns * 16 + rows) { TILE(1, 1) TILE(2, 1) TILE(2, 2) TILE(4, 1) }
        } else {
            switch (columns * 16 + rows) { TILE(1, 1) TILE(2, 1) TILE(2, 4) TILE(4, 1) TILE(4, 2) TILE(8, 1) }
        }
#undef TILE
    }
}

// ---- The fix-up: runs across spans, once every span is done ---------------------------------------------
// A run crosses boundary b (the start of span b) where edges b*span - 1 and b*span share an in-range row. It
// began in span b - 1 unless that span is WHOLE. Its pieces: TAIL of span b - 1, then HEAD of b and of every
// next span up to the first that is not WHOLE or whose run does not go on. Each such run is added once, summed
// in a fixed order: in span order by a thread per W columns if it covers up to SHORT + 1 spans, else by the
// whole block in stripes of spans (hot rows).
template <int W>
__device__ __forceinline__ Vec<W> piece(const Args& a, long long span, int which, int u) {
    return __builtin_bit_cast(Vec<W>, load_raw<W>(a.piece(span, which, u * W)));
}
// Does the run of `row` go on across boundary j?
__device__ __forceinline__ bool crosses(const Args& a, long long j, unsigned row) {
    return j < a.spans() && a.row(a.idx[j * a.span]) == row;
}
struct FixSmem { long long chains[FIX_BLOCK], end; int n_chains; float stripe[4][FIX_BLOCK]; };
template <int W>  // stripes of spans summed apart, then in stripe order
__device__ void add_long_run(const Args& a, FixSmem& sm, unsigned row, long long b, long long end) {
    for (int u0 = 0; u0 < a.n_feat / W; u0 += FIX_BLOCK) {
        const int n_cols = min(a.n_feat / W - u0, FIX_BLOCK), stripes = FIX_BLOCK / n_cols;
        const int u = u0 + (int)threadIdx.x % n_cols, stripe = (int)threadIdx.x / n_cols;
        Vec<W> s = stripe == 0 ? piece<W>(a, b - 1, TAIL, u) : Vec<W>{};
#pragma unroll 8
        for (long long j = b + stripe; stripe < stripes && j <= end; j += stripes) s = s + piece<W>(a, j, HEAD, u);
        for (int i = 0; i < W; ++i) sm.stripe[i][threadIdx.x] = s.v[i];
        __syncthreads();
        if ((int)threadIdx.x < n_cols) {
            for (int k = 1; k < stripes; ++k)
                for (int i = 0; i < W; ++i) s.v[i] += sm.stripe[i][k * n_cols + threadIdx.x];
            red_add<W>(a.dst, (long long)row * a.n_feat + u * W, a.total(), s.v);
        }
        __syncthreads();
    }
}
// Thread t takes boundary t / (n_feat / W) and its W columns t % (n_feat / W) (plan.launch's fix-up grid).
template <int W> __device__ void fix_up(const Args& a, FixSmem& sm) {
    constexpr int SHORT = 8;
    const long long spans = a.spans(), t = blockIdx.x * (long long)FIX_BLOCK + threadIdx.x;
    const long long b = t / (a.n_feat / W);
    const int u = (int)(t % (a.n_feat / W));
    if (threadIdx.x == 0) sm.n_chains = 0;
    __syncthreads();
    const unsigned row = b >= 1 && b < spans ? a.row(a.idx[b * a.span]) : OUT_OF_RANGE;
    unsigned flag[SHORT + 1];  // of spans b - 1 .. b + SHORT - 1, read with the rows (a warp's are adjacent)
    for (int k = 0; k <= SHORT; ++k) flag[k] = b >= 1 ? a.flags[min(b - 1 + k, spans - 1)] : 0;
    if (row != OUT_OF_RANGE && row == a.row(a.idx[b * a.span - 1]) && !(flag[0] & WHOLE)) {  // begun in b - 1
        bool goes_on[SHORT];  // past span b + k
        for (int k = 0; k < SHORT; ++k) goes_on[k] = (flag[k + 1] & WHOLE) && crosses(a, b + k + 1, row);
        int last = 0;  // its pieces: TAIL of b - 1, HEAD of b .. b + last
        for (int k = 0; k < SHORT; ++k) last += last == k && goes_on[k];
        if (last == SHORT && u == 0) sm.chains[atomicAdd(&sm.n_chains, 1)] = b;
        if (last < SHORT) {
            Vec<W> sum = piece<W>(a, b - 1, TAIL, u);
            for (int k = 0; k < SHORT; ++k)
                if (k <= last) sum = sum + piece<W>(a, b + k, HEAD, u);
            red_add<W>(a.dst, (long long)row * a.n_feat + u * W, a.total(), sum.v);
        }
    }
    __syncthreads();
    for (int k = 0; k < sm.n_chains; ++k) {  // longer runs: the whole block, one at a time
        const long long first = sm.chains[k];
        const unsigned hot = a.row(a.idx[first * a.span]);
        if (threadIdx.x == 0) sm.end = spans - 1;
        __syncthreads();
        for (long long j0 = first;; j0 += FIX_BLOCK) {  // the run's last span: the first that it does not cover
            const long long j = j0 + threadIdx.x;
            if (j < spans && !((a.flags[j] & WHOLE) && crosses(a, j + 1, hot))) atomicMin(&sm.end, j);
            __syncthreads();
            const bool found = sm.end < j0 + FIX_BLOCK;
            __syncthreads();
            if (found) break;
        }
        add_long_run<W>(a, sm, hot, first, sm.end);  // ends with a barrier: sm.end is read before it is set again
    }
}

#if !defined(SCATTER_AOT)  // scatter_add_aot.cu includes this file for the QDP route's one entry
extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) scatter_add(PARAMS) {
    all_spans<true>(ARGS, columns, rows);
}
extern "C" __global__ void __launch_bounds__(FIX_BLOCK) scatter_add_fixup(PARAMS) {
    __shared__ FixSmem sm;
    if (uses_scratch(ARGS)) return unpack(ARGS);
    switch (fix_width) {  // W columns per thread: plan.fix_width picks it, and sizes the grid for it
        case 1: return fix_up<1>(ARGS, sm);
        case 2: return fix_up<2>(ARGS, sm);
        case 4: return fix_up<4>(ARGS, sm);
    }
}
extern "C" __global__ void __launch_bounds__(FIX_BLOCK) scatter_add_zero(PARAMS) {  // in place of the counts' memset
    const Args a = ARGS;
    const bool used = uses_scratch(a);  // its pairs; or the counts, which the unpack would write whole
    for (long long i = blockIdx.x * (long long)FIX_BLOCK + threadIdx.x; i < (used + 1) * n_nodes;
         i += gridDim.x * FIX_BLOCK) {
        if (used) pairs(a)[i] = 0.f;
        else counts[i] = 0;
    }
}
extern "C" __global__ void __launch_bounds__(FIX_BLOCK) scatter_add_recount(PARAMS) {
    if (uses_scratch(ARGS)) recount(ARGS);
}
#endif
