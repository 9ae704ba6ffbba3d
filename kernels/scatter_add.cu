// SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
// SPDX-License-Identifier: Apache-2.0
// scatter_add.cu -- in-place scatter-add with in-degrees (kernel v28), compiled by NVRTC when the
// engine is built, once per type pair: -DSCATTER_T is float, __half or __nv_bfloat16, -DSCATTER_I
// int or long long. Every other SCATTER_* macro is a number of kernels/plan.py.
//
// Contract. Each entry point takes PARAMS:
//   dst [n_nodes, n_feat] T, read and written: dst[r] += the sum of src's rows e with idx[e] == r.
//     In the plugin it is output 0, which TensorRT aliases to input 0 (X): one buffer.
//   src [n_edges, n_feat] T; idx [n_edges] I, 0-based rows; counts [n_nodes] int32 gets the
//     in-degree. dst, src and idx are 16-byte aligned; n_nodes, n_edges and a row's bytes < 2^31.
//   flags, pieces: the workspace (any content), plan.workspace_size bytes. The scalars after n_feat
//     are plan.Launch.scalars(): the tile, the span length, the fix-up width, `scratch`.
//   One enqueue is scatter_add_zero or a memset of counts, scatter_add, scatter_add_fixup, then
//   scatter_add_recount, each where plan.Launch.grids() gives it blocks; the recount is launched
//   to overlap the fix-up (programmatic dependent launch) and always waits for it first.
// An index outside [0, n_nodes) is skipped: neither added nor counted. Nothing outside the buffers
// is read or written, whatever the indices. Each run is summed in fp32 and added by one atomic
// (a span's hubs, in random order, add their runs together: one atomic a hub a span), so a row
// whose edges form one run gets one addition, the same bits on every run; docs/kernel.md says
// which orders give that. fp32 atomics flush subnormal results to zero; the scratch adds its sums
// once, without atomics, and leaves rows without edges as they were.
//
// Glossary (docs/kernel.md, "Reading the kernel", maps the blocks):
//   edge     entry e of idx, with row e of src.
//   skipped  an edge whose index is out of range; its row is OUT_OF_RANGE here.
//   run      consecutive edges of one row: summed in fp32, then added once.
//   span     a stretch of consecutive edges (plan.span_length) that one warp walks alone: no warp
//            waits for another.
//   tile     how lanes cover a row (plan.Tile): V columns a lane, `lanes` lanes a group, in passes.
//   group    the lanes that share a row's columns; a warp has 32 / lanes of them.
//   round    one step of a span's walk: each group walks its own consecutive edges, then the
//            segmented scan joins the groups in edge order.
//   part     what the scan hands on: the sum and count since the last run started (Part).
//   carry    the part open at the end of a round, which flows into the next round.
//   piece    the fp32 sum of the share of a run that lies in one span, where the run crosses a span
//            boundary. A span keeps at most two, in the workspace:
//   HEAD     the piece of its first run, begun in an earlier span;
//   TAIL     the piece of its last run, going on into the next span.
//   WHOLE    a span's flag: no run starts in it (one run, begun before, covers it).
//   fix-up   scatter_add_fixup: adds each run that crosses spans once, from its pieces, in order.
//   stripe   in the fix-up of a long run, the spans one thread sums: every stripes-th span.
//   scratch  F = 1 only (any type), where idx is surely unsorted: [n_nodes, 2] fp32 (sum, count)
//            pairs in the workspace, one 8-byte RED a run, unpacked into dst and counts at the end.
//   K1       edges a lane takes a round at F = 1 (plan.F1_EDGES).
//   hub      a row that a warp's sample of its span's idx repeats (up to HUBS a span at
//            F = 1, fewer on wider rows, the most seen first): its runs are held in shared memory
//            and added once a pass, not one atomic each (random order).
//
// Map. The entry points come last (they call what is above them); what each one runs:
//   scatter_add_zero     zeroes the counts, or the scratch where this enqueue keeps it
//   scatter_add          all_spans: a warp per span, F = 1 in span_f1, wider rows in span_passes
//                        (walk, then scan); both end runs by end_run / add_run / add_hub -> red_add
//   scatter_add_short_spans  the same where spans are too short to look for hubs, compiled
//                        without the hubs' code (plan.Launch.grids launches one of the two)
//   scatter_add_fixup    fix_up: the runs that cross spans, from their pieces; or, with the
//                        scratch, unpack: its sums into dst and its counts into counts
//   scatter_add_recount  with the scratch past 2^24 edges: recount, the exact counts of the rows
//                        whose float count reached 2^24

#include <cuda_fp16.h>
#include <cuda_bf16.h>

using T = SCATTER_T;
using I = SCATTER_I;
constexpr int BLOCK = SCATTER_BLOCK;
constexpr int WARPS = BLOCK / 32;  // a span each at a time
constexpr int MIN_BLOCKS = SCATTER_MIN_BLOCKS;
constexpr int FIX_BLOCK = SCATTER_FIX_BLOCK;
constexpr int LOAD_BYTES = SCATTER_LOAD_BYTES;
constexpr int K1 = SCATTER_F1_EDGES;
constexpr unsigned HUB_EDGES = SCATTER_HUB_EDGES;  // spans this long or longer look for a hub
static_assert(K1 <= 32 && K1 * sizeof(T) % 16 == 0 && K1 * sizeof(I) % 16 == 0,
              "F = 1: a bit per edge in a 32-bit mask, and whole 16-byte loads of idx and src");
constexpr unsigned OUT_OF_RANGE = 0x7fffffffu;  // a skipped edge's row
constexpr unsigned NONE = 0xffffffffu;  // the row before edge 0: no edge has it
static_assert(NONE != OUT_OF_RANGE, "span 0 must start a run at its first edge (Args::piece)");
constexpr unsigned ALL = 0xffffffffu;  // every lane of a warp
constexpr unsigned WHOLE = 1;
constexpr int HEAD = 0;
constexpr int TAIL = 1;
constexpr bool SM80 = __CUDA_ARCH__ >= 800;  // L2 cache hints
constexpr bool SM90 = __CUDA_ARCH__ >= 900;  // float2 atomics, for the scratch
constexpr float EXACT = 16777216.f;  // 2^24: float counts are exact below it

// ---- Values ----------------------------------------------------------------------------------
template <typename S> __device__ __forceinline__ float to_f32(S v) { return static_cast<float>(v); }
template <typename S> __device__ __forceinline__ S from_f32(float v) { return S(v); }  // to nearest
template <int V> struct Vec { float v[V]; };  // a lane's columns, in fp32
template <int N, typename S> struct alignas(N * sizeof(S)) Raw { S v[N]; };  // as stored: one load
template <int V> __device__ __forceinline__ Vec<V> operator+(Vec<V> a, const Vec<V>& b) {
    for (int i = 0; i < V; ++i) a.v[i] += b.v[i];
    return a;
}
template <int N, typename S> __device__ __forceinline__ Raw<N, S> load_raw(const S* p) {
    return *reinterpret_cast<const Raw<N, S>*>(p);
}
__device__ __forceinline__ long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }
// plan.py and this file disagree (a tile or a fix-up width that it never compiled, a path that its
// GPU lacks): the launch fails loudly rather than add nothing. The fingerprint keeps an engine
// from meeting it; the tests check the lists against plan.py.
__device__ __forceinline__ void drifted() { __trap(); }

// ---- Atomic additions to dst -----------------------------------------------------------------
// Atomics change dst while this thread reads it, so the read is an atomic (relaxed) load.
template <typename W> __device__ __forceinline__ W load_relaxed(const W* p) {  // 4 or 2 bytes
    W v;
    if constexpr (sizeof(W) == 4) {
        asm volatile("ld.relaxed.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    } else {
        asm volatile("ld.relaxed.gpu.b16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
    }
    return v;
}
// The 16-bit elements of the word W at p += s, by compare-and-swap: for what has no atomic (bf16
// below sm_90, a buffer's odd last element). A miss backs off, or a hot row's lanes would retry in
// lockstep (docs/kernel.md, "Older GPUs").
template <typename W, typename S> __device__ __forceinline__ void cas_add(S* p, const float* s) {
    constexpr int K = sizeof(W) / sizeof(S);
    W* word = reinterpret_cast<W*>(p);
    W seen = load_relaxed(word);
    for (unsigned pause_ns = 32;; pause_ns = min(2 * pause_ns, 1024u)) {
        Raw<K, S> r = __builtin_bit_cast(Raw<K, S>, seen);
        for (int k = 0; k < K; ++k) r.v[k] = from_f32<S>(to_f32(r.v[k]) + s[k]);
        const W was = atomicCAS(word, seen, __builtin_bit_cast(W, r));
        if (was == seen) return;
        seen = was;
        __nanosleep(pause_ns);
    }
}
// Two 16-bit values rounded from fp32 into one word, a in the low half.
template <typename S> __device__ __forceinline__ unsigned pair(float a, float b) {
    return __builtin_bit_cast(unsigned, Raw<2, S>{{from_f32<S>(a), from_f32<S>(b)}});
}
// Added to one aligned word by a RED: CUDA's atomicAdd on __half2 is an ATOM, which waits for a
// reply. bf16x2 is native from sm_90.
__device__ __forceinline__ void red2(__half* p, float a, float b) {
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(p), "r"(pair<__half>(a, b))
                 : "memory");
}
__device__ __forceinline__ void red2(__nv_bfloat16* p, float a, float b) {
#if __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(p), "r"(pair<__nv_bfloat16>(a, b))
                 : "memory");
#else
    const float s[2] = {a, b};  // slow under contention: docs/kernel.md, "Older GPUs"
    cas_add<unsigned>(p, s);
#endif
}
#if __CUDA_ARCH__ >= 900
// K = 4 or 8 16-bit values rounded from fp32, added by one vector RED of 2K aligned bytes.
#define RED_VEC(S, PTX_TYPE)                                                                    \
    template <int K> __device__ __forceinline__ void red_vec(S* p, const float* s) {            \
        unsigned w[4];                                                                          \
        for (int k = 0; k < K / 2; ++k) w[k] = pair<S>(s[2 * k], s[2 * k + 1]);                 \
        if constexpr (K == 4) {                                                                 \
            asm volatile("red.global.add.noftz.v2." PTX_TYPE " [%0], {%1, %2};"                 \
                         ::"l"(p), "r"(w[0]), "r"(w[1]) : "memory");                            \
        } else {                                                                                \
            asm volatile("red.global.add.noftz.v4." PTX_TYPE " [%0], {%1, %2, %3, %4};"         \
                         ::"l"(p), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]) : "memory");      \
        }                                                                                       \
    }
RED_VEC(__half, "f16x2")
RED_VEC(__nv_bfloat16, "bf16x2")
#undef RED_VEC
#endif
// dst[i .. i + V) += s by sm_90's vector atomics: four fp32 columns (else two) a RED, or a lane's 8
// or 16 bytes of 16-bit values in one RED (red_add takes this path only where it fits). Aligned: V
// divides F (plan.tile, tested) and dst is 16-byte aligned. Below sm_90 it has no body: red_add
// never calls it there, and a call that did would fail the launch.
template <int V, typename S>
__device__ __forceinline__ void red_vector(S* dst, long long i, const float* s) {
#if __CUDA_ARCH__ >= 900
    if constexpr (sizeof(S) == 4 && V % 4 == 0) {
        for (int k = 0; k < V; k += 4) {
            const float4 v = make_float4(s[k], s[k + 1], s[k + 2], s[k + 3]);
            atomicAdd(reinterpret_cast<float4*>(dst + i + k), v);
        }
    } else if constexpr (sizeof(S) == 4) {
        for (int k = 0; k < V; k += 2) {
            atomicAdd(reinterpret_cast<float2*>(dst + i + k), make_float2(s[k], s[k + 1]));
        }
    } else {
        constexpr int K = V % 8 ? 4 : 8;
        for (int k = 0; k < V; k += K) red_vec<K>(dst + i + k, s + k);
    }
#else
    drifted();
#endif
}
// The same, one value or one aligned pair of 16-bit values a RED: every GPU. A lone 16-bit element
// is paired with -0.0 where its pair lies inside dst's `total` elements, else added by CAS.
template <int V, typename S>
__device__ __forceinline__ void red_scalar(S* dst, long long i, long long total, const float* s) {
    if constexpr (sizeof(S) == 4) {
        for (int k = 0; k < V; ++k) atomicAdd(dst + i + k, s[k]);
    } else if constexpr (V % 2 == 0) {
        for (int k = 0; k < V; k += 2) red2(dst + i + k, s[k], s[k + 1]);
    } else if ((i | 1) < total) {  // the aligned pair holding element i lies inside the buffer
        const float low = i & 1 ? -0.0f : s[0];
        const float high = i & 1 ? s[0] : -0.0f;
        red2(dst + (i & ~1LL), low, high);
    } else {
        cas_add<unsigned short>(dst + i, s);
    }
}
// dst[i .. i + V) += s, atomically; dst has `total` elements. 16-bit values are rounded from fp32
// and added in aligned pairs. On sm_90, where V fills vector REDs (two or four fp32, or two or four
// pairs of 16-bit values), they take them.
template <int V, typename S>
__device__ __forceinline__ void red_add(S* dst, long long i, long long total, const float* s) {
    constexpr bool vector = sizeof(S) == 4 ? V % 2 == 0 : V % 4 == 0;
    if constexpr (SM90 && vector) {
        red_vector<V>(dst, i, s);
    } else {
        red_scalar<V>(dst, i, total, s);
    }
}

// ---- The arguments ---------------------------------------------------------------------------
#define PARAMS                                                                                  \
    T *dst, const T *src, const I *idx, int *counts, unsigned *flags, float *pieces,            \
        long long n_edges, long long n_nodes, int n_feat, int columns, int lanes, int passes,   \
        int span, int fix_width, int scratch
struct Args {
    T* dst;
    const T* src;
    const I* idx;
    int* counts;
    unsigned* flags;  // a span's flag, WHOLE or 0
    float* pieces;
    long long n_edges;
    long long n_nodes;
    int n_feat;
    int lanes;  // of a group
    int passes;  // over a row's columns
    unsigned span;  // edges of a span (the last may have fewer)
    bool scratch;  // plan.uses_scratch: whether this enqueue may keep the scratch
    // One unsigned compare: a negative key is past n_nodes.
    __device__ __forceinline__ unsigned row(I key) const {
        using U = unsigned long long;
        if constexpr (sizeof(I) == 4) {
            return (unsigned)key < (unsigned)n_nodes ? (unsigned)key : OUT_OF_RANGE;
        } else {
            return (U)key < (U)n_nodes ? (unsigned)key : OUT_OF_RANGE;
        }
    }
    __device__ __forceinline__ long long total() const { return n_nodes * n_feat; }
    // The offset of element (r, col) of a [*, n_feat] buffer, col not negative: a 32 x 32-bit
    // product, zero-extended (r < 2^32, n_feat < 2^31: no wrap), the value that (long long)r *
    // n_feat + col gives. With that form's sign extensions ptxas spilled in the walks (v18: the
    // 64-bit col of add_hub's atomics joined the walk's).
    __device__ __forceinline__ long long at(unsigned r, int col) const {
        return (long long)((unsigned long long)r * (unsigned)n_feat + (unsigned)col);
    }
    __device__ __forceinline__ long long spans() const { return ceil_div(n_edges, span); }
    // A span's HEAD in slot 2 * span - 1, its TAIL in 2 * span: span 0 has no HEAD and the last
    // span no TAIL, so there are 2 * spans - 2 slots of n_feat floats (plan.workspace_bytes). The
    // walks hold to it by construction. A TAIL is kept only where the run goes on past the span's
    // end, so never in the last span. A HEAD is kept only where no run starts before it in the
    // span, and the first edge of span 0 always starts one: the row before it is NONE, which no
    // edge has (a skipped one is OUT_OF_RANGE). A check here, on the hot path, cost spills (ptxas).
    __device__ __forceinline__ float* piece(long long span_, int which, int col) const {
        return pieces + (2 * span_ - 1 + which) * n_feat + col;
    }
    // The scratch lies where the flags and pieces would: with it, no span keeps pieces.
    __device__ __forceinline__ float* pairs() const { return reinterpret_cast<float*>(flags); }
};
#define ARGS                                                                                    \
    Args{dst,     src,    idx,   counts, flags, pieces, n_edges, n_nodes, n_feat, lanes,        \
         passes, (unsigned)span, scratch != 0}

// ---- Loading edges ---------------------------------------------------------------------------
// The L2 policy for data read once (F = 1): evicted first, so that L2 keeps the lines of dst that
// the REDs come back to.
__device__ __forceinline__ unsigned long long evict_first() {
    unsigned long long policy = 0;
    if constexpr (SM80) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
    return policy;
}
// 16 aligned bytes at p; ONCE: under that policy, and past L1.
template <bool ONCE, typename S>
__device__ __forceinline__ Raw<16 / sizeof(S), S> load16(const S* p, unsigned long long policy) {
    constexpr int N = 16 / sizeof(S);
    if constexpr (!ONCE || !SM80) {
        return load_raw<N>(p);
    } else {
        uint4 r;
        asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
            : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(policy));
        return __builtin_bit_cast(Raw<N, S>, r);
    }
}
// p[e .. e + K), `fill` from end on: 16-byte loads where the K are whole and aligned, else one by
// one (the end of a span, or K below a load).
template <int K, bool ONCE, typename S>
__device__ __forceinline__ Raw<K, S> load_edges(const S* p, unsigned e, unsigned end, S fill,
                                                unsigned long long policy) {
    constexpr int N = 16 / sizeof(S);
    Raw<K, S> r;
    if (K % N == 0 && e + K <= end && e % N == 0) {
        for (int c = 0; c < K; c += N) {
            *reinterpret_cast<Raw<N, S>*>(&r.v[c]) = load16<ONCE>(p + e + c, policy);
        }
    } else {
        for (int k = 0; k < K; ++k) r.v[k] = e + k < end ? p[e + k] : fill;
    }
    return r;
}

// ---- Hubs: rows with a large share of a span's edges -----------------------------------------
// In random order a hot row's edges come as many short runs, and the atomic that adds each queues
// at that one row: half the edges to one row cost 7 to 33 times the same shape in uniform order,
// two rows of a quarter each 3 to 10 times with one held. So a warp samples its span, finds the
// rows its sample repeats (select_hubs: up to hub_cap of them, the most seen first), and
// each thread sums the runs of those rows that it ends in its own slots of shared memory (hold);
// the warp adds each one once at the end of the pass (add_hub). A run finds its slot through the
// warp's table (find): two cells a row, by hash, so one shared load a run ends.
// A slot starts at -0.0, which leaves any value's bits as they are: a hub with a single run is
// added with the bits it would have had without the hub. Only where the enqueue's sample shows
// idx unsorted and spans have HUB_EDGES or more: a span's sample costs a wait for loads, which
// sorted input (a row's edges in one run) and small graphs (short spans) need not pay.
constexpr int WALK = 16 / sizeof(T);  // span_passes: first_sum in cells [0, WALK)
// Floats of shared memory a thread: the walk's first_sum, the hubs' sums and counts, the votes.
// 32 where a multiprocessor has 164 KB or more (sm_80, sm_87, sm_90, sm_100, sm_103): four blocks
// take 158 KB. Elsewhere 16, or 17 at 16 bits, where a 16-byte row's hub needs first_sum's 8
// cells, 8 sums and a count: four blocks then take 95 KB of the 100 KB of sm_86, sm_89 and 12.x
// (on sm_75's 64 KB two fit; an architecture not named here loses only hubs). SCATTER_SLOTS
// (plan.SLOTS): 0 chooses by architecture; -1 takes the small layout anywhere (the tests, on an
// H100); more than 0 is the count itself. Unset (the QDP route's PTX) it reads as 0.
#if SCATTER_SLOTS > 0
constexpr int SLOTS = SCATTER_SLOTS;
#elif SCATTER_SLOTS == 0 && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870 || \
                             __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030)
constexpr int SLOTS = 32;
#else
constexpr int SLOTS = sizeof(T) == 2 ? 17 : 16;
#endif
constexpr int HUBS = SLOTS / 2;  // at most, a span: span_f1's sums in cells [0, HUBS), counts after
constexpr int CELLS = 128;  // a warp's table: CELLS / 2 pairs of cells, a row hashes to one pair
constexpr int SAMPLE = 4;  // span_passes: a lane's sampled entries of idx, CELLS / 32 at most
// Votes a row of span_passes' sample needs to become a hub. On wide rows a span is often a warp's
// whole work, so a span that takes a row for a hub by chance (uniform rows: two alike among 32 in
// 12% of spans at N = 16K) makes the kernel's last warp slower: each of its run ends looks the
// row up. Three alike among 32 happen by chance in under 1e-4 of spans at N = 16K. At F = 1 the
// sample is the first round's own rows, and a vote is a sighting after the first anywhere in it
// (span_f1_hubs).
constexpr int WIDE_VOTES = 3;
static_assert(WALK <= 8 && WALK + CELLS / 32 <= SLOTS && HUBS <= 16,
              "span_passes: first_sum, then the votes' cells; span_f1: at most 16 hubs");
static_assert(CELLS == 128 && SAMPLE <= K1, "a lane owns CELLS / 32 cells when hubs are chosen");
struct alignas(8) HubTable {  // find's 8-byte loads, in every warp's table
    unsigned key[CELLS];  // a row, or NONE: no row; a row is in cell 2 * pair_of(row) or the next
    unsigned char slot[CELLS];  // the key's hub
    unsigned row[HUBS];  // hub k's row
};
// Shared memory of the main kernel: SLOTS floats a thread, and a table a warp. At file scope, so
// that a hub's slot is an address the compiler knows, not a pointer that the walk keeps in
// registers (ptxas spilled with three of them in Hub).
struct alignas(16) SpanSmem {  // find's 8-byte loads of a pair of keys
    float cell[SLOTS][BLOCK];
    HubTable table[WARPS];
};
__shared__ SpanSmem span_smem;
struct Hub {
    int count;  // hubs this span holds, the same in every lane of the warp (0: none)
    int sums;  // the cell of hub 0's first column; hub k's column i is cell sums + k * V + i
    int counts;  // hub k's count (of edges this thread holds: exact, a span < 2^24): counts + k
};
template <int V> __device__ __forceinline__ float* hub_sum(const Hub& h, int k) {
    return &span_smem.cell[h.sums + k * V][threadIdx.x];  // column i at [i * BLOCK]
}
__device__ __forceinline__ float* hub_n(const Hub& h, int k) {
    return &span_smem.cell[h.counts + k][threadIdx.x];
}
__device__ __forceinline__ const HubTable& warp_table() {
    return span_smem.table[threadIdx.x / 32];
}
__device__ __forceinline__ unsigned pair_of(unsigned row) {
    return (row * 0x9e3779b1u) >> 26;  // Fibonacci hashing: rows k apart land apart; CELLS / 2
}
// Hub k of this span whose row is `row`, or -1. Only rows in range reach it.
__device__ __forceinline__ int find(unsigned row) {
    const HubTable& t = warp_table();
    const unsigned c = 2 * pair_of(row);
    const uint2 two = *reinterpret_cast<const uint2*>(&t.key[c]);
    if (two.x == row) return t.slot[c];
    if (two.y == row) return t.slot[c + 1];
    return -1;
}
// Whether the in-range rows of a warp's sample (`row`, a lane's) decrease somewhere: the proof that
// idx is not sorted. Skipped entries (OUT_OF_RANGE) prove nothing: a lane compares its row with
// the last in-range one before it, and a skipped row is never below one in range.
__device__ __forceinline__ bool decreases(unsigned row) {
    const int lane = threadIdx.x % 32;
    const unsigned earlier = __ballot_sync(ALL, row < OUT_OF_RANGE) & ((1u << lane) - 1);
    const unsigned before = __shfl_sync(ALL, row, earlier ? 31 - __clz(earlier) : lane);
    return __any_sync(ALL, row < before);
}
// Whether the enqueue's sample, the same 32 evenly spaced entries of idx in every kernel and warp,
// shows idx unsorted: the whole warp reads it, and all agree. A sorted idx with skipped entries (a
// -1 tail, values past N) shows no decrease, and keeps its bits.
__device__ __forceinline__ bool unsorted_sample(const Args& a) {
    if (a.n_edges == 0) return false;  // the same in every lane
    const int lane = threadIdx.x % 32;
    return decreases(a.row(a.idx[lane * (a.n_edges - 1) / 31]));
}
// Whether some in-range row appears twice among the warp's 32 `row`s: the evidence that a span
// has a hot row (uniform rows almost never do). The whole warp calls it.
__device__ __forceinline__ bool repeats(unsigned row) {
    const unsigned peers = __match_any_sync(ALL, row);  // every lane: outside any condition
    return __any_sync(ALL, row < OUT_OF_RANGE && __popc(peers) >= 2);
}
// The span's hubs from the warp's sample, K rows a lane: each row seen at least `alike` times among
// the 32 rows of one j is voted for by the lowest lane that holds it (one vote a sighting; at F = 1
// only repeats are given, so one vote a repeat), in the warp's table; then the `cap` rows with the
// most votes, `least` at least, become hubs 0, 1, ... and every other key is cleared, so that find
// sees only hubs. A row whose pair of cells is full is not voted for (it stays out: no wrong sum,
// only atomics). Returns how many, the same in every lane.
template <int K>
__device__ int select_hubs(const unsigned (&rows)[K], int alike, SpanSmem& sm, int cap, int least) {
    const int lane = threadIdx.x % 32;
    HubTable& t = sm.table[threadIdx.x / 32];
    float* votes = &sm.cell[SLOTS - CELLS / 32][threadIdx.x - lane];  // cell c at c % 32 + ...
    __syncwarp();  // the warp's last span is done with the table and the slots
    for (int c = lane; c < CELLS; c += 32) {
        t.key[c] = NONE;
        votes[(c / 32) * BLOCK + c % 32] = 0.f;
    }
    __syncwarp();
    for (int j = 0; j < K; ++j) {
        const unsigned peers = __match_any_sync(ALL, rows[j]);
        const bool first = __ffs(peers) - 1 == lane;
        const bool leads = rows[j] < OUT_OF_RANGE && __popc(peers) >= alike && first;
        if (leads) {  // one lead a row a j: no two lanes add to one cell's votes at once
            const unsigned c0 = 2 * pair_of(rows[j]);
            for (unsigned c = c0; c < c0 + 2; ++c) {
                const unsigned was = atomicCAS(&t.key[c], NONE, rows[j]);
                if (was == NONE || was == rows[j]) {
                    votes[(c / 32) * BLOCK + c % 32] += __popc(peers);
                    break;
                }
            }
        }
        __syncwarp();
    }
    int mine[CELLS / 32];  // the lane's cells lane + 32 i: votes << 7 | cell
    for (int i = 0; i < CELLS / 32; ++i) {
        mine[i] = (int)votes[i * BLOCK + lane] << 7 | (lane + 32 * i);
    }
    unsigned taken = 0;  // bit i: cell lane + 32 i holds a hub
    int count = 0;
    for (; count < cap; ++count) {
        int best = 0;
        for (int i = 0; i < CELLS / 32; ++i) best = (taken >> i) & 1 ? best : max(best, mine[i]);
        for (int d = 16; d > 0; d /= 2) best = max(best, __shfl_xor_sync(ALL, best, d));
        if (best >> 7 < least) break;  // the same in every lane
        const int c = best & (CELLS - 1);
        if (c % 32 == lane) {
            taken |= 1u << (c / 32);
            t.slot[c] = (unsigned char)count;
            t.row[count] = t.key[c];
        }
    }
    for (int i = 0; i < CELLS / 32; ++i) {
        if (!((taken >> i) & 1)) t.key[lane + 32 * i] = NONE;
    }
    __syncwarp();
    return count;
}
template <int V> __device__ __forceinline__ void hold(const Hub& h, int k, const Vec<V>& s, int n) {
    for (int i = 0; i < V; ++i) hub_sum<V>(h, k)[i * BLOCK] += s.v[i];
    *hub_n(h, k) += (float)n;
}
// Hubs a span of span_passes holds: after first_sum, V sums and a count a hub, 8 at most.
template <int V> __device__ constexpr int hub_cap() {
    return (SLOTS - WALK) / (V + 1) < 8 ? (SLOTS - WALK) / (V + 1) : 8;
}
// The slots of `count` hubs, each sum -0.0 and count 0: span_f1's from cell 0 (F1), else after
// first_sum.
template <int V, bool F1> __device__ __forceinline__ Hub start_hub(int count) {
    const Hub h = F1 ? Hub{count, 0, HUBS} : Hub{count, WALK, WALK + hub_cap<V>() * V};
    for (int k = 0; k < count; ++k) {
        for (int i = 0; i < V; ++i) hub_sum<V>(h, k)[i * BLOCK] = -0.0f;
        *hub_n(h, k) = 0.f;
    }
    return h;
}
// span_passes' hubs: SAMPLE entries of idx a lane, spread evenly over the span [s0, s1) (a span
// of fewer edges repeats some), loaded together: one wait. Hubs are chosen only where they repeat.
template <int V>
__device__ int sample_hubs(const Args& a, unsigned s0, unsigned s1, SpanSmem& sm) {
    constexpr int N = 32 * SAMPLE;
    const int lane = threadIdx.x % 32;
    I keys[SAMPLE];
    for (int j = 0; j < SAMPLE; ++j) {
        const unsigned long long k = lane * SAMPLE + j;
        keys[j] = a.idx[s0 + (unsigned)((s1 - 1 - s0) * k / (N - 1))];
    }
    unsigned rows[SAMPLE];
    bool seen = false;
    for (int j = 0; j < SAMPLE; ++j) {
        rows[j] = a.row(keys[j]);
        seen = repeats(rows[j]) || seen;  // every j's match, in every lane
    }
    return seen ? select_hubs(rows, 2, sm, hub_cap<V>(), WIDE_VOTES) : 0;
}

// ---- Runs: the scan that joins them -------------------------------------------
// A stretch of edges as the scan sees it: the sum and count of its edges since the last run
// started in it, or of all of them if none did (!starts()). The count and that flag share one int,
// count << 1 | starts, so that one shuffle moves both.
template <int V> struct Part {
    Vec<V> sum;
    int packed;
    __device__ __forceinline__ int n() const { return packed >> 1; }
    __device__ __forceinline__ bool starts() const { return packed & 1; }
};
// x where p, else y, field by field: selects, not a branch around a copy.
template <int V>
__device__ __forceinline__ Part<V> pick(bool p, const Part<V>& x, const Part<V>& y) {
    Part<V> r;
    for (int i = 0; i < V; ++i) r.sum.v[i] = p ? x.sum.v[i] : y.sum.v[i];
    r.packed = p ? x.packed : y.packed;
    return r;
}
// a, then b: b alone if a run starts in b; else both (b's flag is 0, so the counts just add).
template <int V> __device__ __forceinline__ Part<V> operator+(const Part<V>& a, const Part<V>& b) {
    return pick(b.starts(), b, Part<V>{a.sum + b.sum, a.packed + b.packed});
}
template <typename W> __device__ __forceinline__ W from_lane(W v, int lane, bool up) {
    return up ? __shfl_up_sync(ALL, v, lane) : __shfl_sync(ALL, v, lane);
}
// x of lane `lane`, or, if up, of the lane `lane` places below this one.
template <int V> __device__ __forceinline__ Part<V> shuffle(const Part<V>& x, int lane, bool up) {
    Part<V> r;
    for (int i = 0; i < V; ++i) r.sum.v[i] = from_lane(x.sum.v[i], lane, up);
    r.packed = from_lane(x.packed, lane, up);
    return r;
}
// What the scan tells a group: the part open before it, and after it (the last group's `after`
// is the next round's carry).
template <int V> struct Scanned {
    Part<V> before;
    Part<V> after;
};
// The segmented scan of a round, over a warp's G groups of `lanes` lanes in edge order, each with
// its own part from its walk, and the carry of the round before. The order of its additions is
// fixed: the same bits every run. A worked example, G = 4; "b:3 s" is 3 edges of row b, and s that
// a run starts in the stretch:
//     group      0         1        2        3
//     rows       a a b   | b b b  | b c c  | c d d
//     own        b:1 s   | b:3    | c:2 s  | d:2 s     (from the group's last start on)
//     share      a:2     | -      | b:1    | c:1       (its edges before its first start)
//     before     a:1 s   | b:1 s  | b:4 s  | c:2 s     (group 0's is the carry, a:1 s here)
//     after      b:1 s   | b:4 s  | c:2 s  | d:2 s     (group 3's is the next round's carry)
// A group that starts a run ends the one open before it, with its share: a:3, b:5 and c:3
// (end_open_run). Group 1 starts none and ends none; d's run stays open in the carry.
template <int V>
__device__ __forceinline__ Scanned<V> scan(const Part<V>& own, const Part<V>& carry, int g, int G,
                                           int lanes) {
    Part<V> after = pick(g == 0, carry + own, own);
    for (int d = 1; d < G; d *= 2) {  // each step joins the parts of twice as many groups
        const Part<V> up = shuffle(after, d * lanes, true);
        after = pick(g >= d, up + after, after);
    }
    const Part<V> before = pick(g == 0, carry, shuffle(after, lanes, true));
    return Scanned<V>{before, after};
}

// Who adds what: the lanes of a group hold a row's columns between them; each adds its V columns
// from col (where active), and the lead lane adds the count.
struct Lane {
    int col;
    bool active;
    bool lead;
};
// ---- Ending a run ---------------------------------------------------------------------------
// A finished run of n edges, whose sums at this lane's columns are s, into `row`, where p; with the
// scratch (SCR: F = 1, sm_90), as one (sum, count) pair: a single 8-byte RED. The hub's runs
// are held for add_hub.
template <int V, bool SCR>
__device__ __forceinline__ void add_run(const Args& a, Lane l, const Hub& h, bool p,
                                        unsigned row, const Vec<V>& s, int n) {
    if (h.count && p) {  // h.count: the same in every lane; one shared load where the span has hubs
        const int k = find(row);
        if (k >= 0) return hold<V>(h, k, s, n);
    }
    if constexpr (SCR) {
        const float sum_count[2] = {s.v[0], (float)n};
        if (p) red_add<2>(a.pairs(), 2 * (long long)row, 2 * a.n_nodes, sum_count);
    } else {
        if (p && l.lead) atomicAdd(a.counts + row, n);
        if (p && l.active) red_add<V>(a.dst, a.at(row, l.col), a.total(), s.v);
    }
}
// A run that meets an edge of span `span` from inside it: begun in an earlier span (its HEAD), or
// going on into the next (its TAIL). Where it crosses that edge and the plugin's kernel keeps
// pieces (PIECES, no scratch), it is counted now and its sum kept for the fix-up; else it is added.
template <int V, bool PIECES, bool SCR>
__device__ __forceinline__ void end_run(const Args& a, Lane l, const Hub& h, bool crosses,
                                        unsigned span, int which, unsigned row, const Part<V>& r) {
    const bool any = row < OUT_OF_RANGE && r.n() > 0;  // edges of an in-range row
    const bool keep = PIECES && !SCR && crosses;
    if (keep) {
        if (any && l.lead) atomicAdd(a.counts + row, r.n());
        if (any && l.active) {
            *reinterpret_cast<Raw<V, float>*>(a.piece(span, which, l.col)) =
                __builtin_bit_cast(Raw<V, float>, r.sum);
        }
    } else {
        add_run<V, SCR>(a, l, h, any, row, r.sum, r.n());
    }
}
// Each hub's runs that the warp's groups hold, summed across the groups in a fixed order (the
// same bits every run), then added once by the first group. The whole warp calls it.
template <int V, bool SCR>
__device__ __forceinline__ void add_hub(const Args& a, Lane l, const Hub& h, int lanes) {
    const Hub none{0, 0, 0};
    for (int k = 0; k < h.count; ++k) {
        int n = (int)*hub_n(h, k);
        if (!__any_sync(ALL, n)) continue;  // the same in every lane
        Vec<V> s;
        for (int i = 0; i < V; ++i) s.v[i] = hub_sum<V>(h, k)[i * BLOCK];
        for (int d = lanes; d < 32; d *= 2) {
            for (int i = 0; i < V; ++i) s.v[i] += __shfl_xor_sync(ALL, s.v[i], d);
            n += __shfl_xor_sync(ALL, n, d);
        }
        const bool adds = (int)threadIdx.x % 32 < lanes && n > 0;
        add_run<V, SCR>(a, l, none, adds, warp_table().row[k], s, n);
    }
}
// The span's last run, `carry` after its last round: it goes on into the next span or began in an
// earlier one (!starts()), or it ends here. `flag`: this lane writes the span's flag.
template <int V, bool PIECES, bool SCR>
__device__ __forceinline__ void end_span(const Args& a, Lane l, const Hub& h, unsigned span,
                                         unsigned row, bool goes_on, const Part<V>& carry,
                                         bool flag) {
    const int which = carry.starts() ? TAIL : HEAD;
    end_run<V, PIECES, SCR>(a, l, h, goes_on || !carry.starts(), span, which, row, carry);
    if (PIECES && !SCR && flag) a.flags[span] = carry.starts() ? 0 : WHOLE;
}

// ---- The walk of a span, F > 1 ---------------------------------------------------------------
// Edge e's V columns at l.col, in one load (zeros past `end` or for an inactive lane).
template <int V>
__device__ __forceinline__ Raw<V, T> load_row(const Args& a, Lane l, unsigned e, unsigned end) {
    Raw<V, T> r{};
    if (!l.active || e >= end) return r;
    // One 32 x 32 + 64-bit multiply-add (IMAD.WIDE.U32) a load: a row's bytes, below 2^31
    // (plan.size_problem), times e, added to the column's address, the same for every edge.
    const unsigned row_bytes = (unsigned)a.n_feat * (unsigned)sizeof(T);
    const char* column = reinterpret_cast<const char*>(a.src + l.col);
    return load_raw<V>(reinterpret_cast<const T*>(column + (unsigned long long)e * row_bytes));
}
// Edges whose loads a lane keeps in flight: LOAD_BYTES of src and idx for 4-byte types, half for
// 16-bit ones (their fp32 sums take twice the registers), half again for 16-byte vectors
// (benchmarks/bench_constants.py); a power of two up to 8.
template <int V> __device__ constexpr int loads_in_flight() {
    const int halved = V * sizeof(T) == 16 ? 2 : 1;
    const int bytes = LOAD_BYTES * (int)sizeof(T) / 4 / halved;
    const int n = bytes / (V * (int)sizeof(T) + (int)sizeof(I));
    int u = 1;
    while (2 * u <= n && u < 8) u *= 2;
    return u;
}
// A group's walk over its edges [b0, b1) in one round (edge numbers are below 2^31: unsigned sums
// do not wrap). Runs that start and end inside it are added as they end. Left for the scan: the
// run open at b1 (cur, of `row`) and, once a later run started, the share of the run open at b0
// (its sum in shared memory, first_sum, this thread's own column; its count first_n).
template <int V> struct Walk {
    Part<V> cur{};
    unsigned row = NONE;
    int first_n = -1;  // the group's share of the run open at b0, once a later run started
    __device__ __forceinline__ bool started() const { return first_n >= 0; }
};
template <int V>
__device__ __forceinline__ void walk(const Args& a, Lane l, const Hub& h, Walk<V>& w,
                                     float (*first_sum)[BLOCK], unsigned b0, unsigned b1) {
    constexpr int U = loads_in_flight<V>();
    w.row = b0 > 0 ? a.row(a.idx[b0 - 1]) : NONE;
    for (unsigned base = b0; base < b1; base += U) {
        const Raw<U, I> keys = load_edges<U, false>(a.idx, base, b1, I(0), 0);
        Raw<V, T> vals[U];
        for (int u = 0; u < U; ++u) vals[u] = load_row<V>(a, l, base + u, b1);
#pragma unroll
        for (int j = 0; j < U; ++j) {  // unrolled: keys and vals stay in registers
            if (base + j >= b1) break;
            const unsigned row = a.row(keys.v[j]);
            if (row != w.row) {  // a run starts here; the one before it ends
                if (w.started()) {
                    const bool any = w.row < OUT_OF_RANGE && w.cur.n() > 0;
                    add_run<V, false>(a, l, h, any, w.row, w.cur.sum, w.cur.n());
                } else {
                    for (int i = 0; i < V; ++i) first_sum[i][threadIdx.x] = w.cur.sum.v[i];
                }
                if (!w.started()) w.first_n = w.cur.n();

                w.cur = Part<V>{{}, 1};  // no edges yet, a run started
                w.row = row;
            }
            for (int i = 0; i < V; ++i) w.cur.sum.v[i] += to_f32(vals[j].v[i]);
            w.cur.packed += 2;  // one edge more
        }
    }
}
// The run open at the group's start b0 that ended in the group, where a later run started: what
// was open before the group, plus the group's share, whose sum walk left in first_sum. It began in
// an earlier span if no run started before it in this one. (At b0 = 0 nothing was open.)
template <int V, bool PIECES>
__device__ __forceinline__ void end_open_run(const Args& a, Lane l, const Hub& h, const Walk<V>& w,
                                             const Part<V>& before, float (*first_sum)[BLOCK],
                                             unsigned span, unsigned b0) {
    if (!w.started() || before.n() + w.first_n == 0) return;
    Part<V> share{{}, w.first_n << 1};
    for (int i = 0; i < V; ++i) share.sum.v[i] = first_sum[i][threadIdx.x];
    const unsigned row = a.row(a.idx[b0 - 1]);
    end_run<V, PIECES, false>(a, l, h, !before.starts(), span, HEAD, row, before + share);
}
// One span, every pass over the columns, in rounds: the groups walk, the scan joins them, and the
// run open at each group's start is ended where a later one started in the group. Rows of one lane
// walk one batch of loads per lane a round, so that a warp's loads are contiguous; rows of several
// lanes walk the span in one round. PIECES: the plugin's kernel; else the QDP kernel, which has no
// workspace and adds every run atomically.
template <int V, bool PIECES>
__device__ __forceinline__ void span_passes(const Args& a, unsigned span, bool look,
                                            SpanSmem& sm) {
    const int lane = threadIdx.x % 32;
    const int G = 32 / a.lanes;
    const int g = lane / a.lanes;
    const int c = lane % a.lanes;
    const unsigned s0 = span * a.span;
    const unsigned s1 = min(s0 + a.span, (unsigned)a.n_edges);
    const unsigned sub = a.lanes == 1 ? loads_in_flight<V>() : a.span / G;  // a group's
    const int hubs = look ? sample_hubs<V>(a, s0, s1, sm) : 0;
    float(*first_sum)[BLOCK] = &sm.cell[0];
    for (int pass = 0; pass < a.passes; ++pass) {
        const int col = (pass * a.lanes + c) * V;
        const Lane l{col, col < a.n_feat, pass == 0 && c == 0};
        const Hub h = start_hub<V, false>(hubs);
        Part<V> carry{};
        for (unsigned r0 = s0; r0 < s1; r0 += G * sub) {
            const unsigned b0 = min(r0 + g * sub, s1);
            const unsigned b1 = min(b0 + sub, s1);
            Walk<V> w;
            if (b0 < b1) walk<V>(a, l, h, w, first_sum, b0, b1);
            const Scanned<V> open = scan(w.cur, carry, g, G, a.lanes);
            carry = shuffle(open.after, 32 - a.lanes + c, false);  // the last group's, same columns
            end_open_run<V, PIECES>(a, l, h, w, open.before, first_sum, span, b0);
        }
        if (g == G - 1) {
            const unsigned last = a.row(a.idx[s1 - 1]);
            const bool goes_on = s1 < a.n_edges && a.row(a.idx[s1]) == last;
            // F = 0 (counts only) has no workspace, and no fix-up to read the flags.
            const bool flag = pass == 0 && c == a.lanes - 1 && a.n_feat;
            end_span<V, PIECES, false>(a, l, h, span, last, goes_on, carry, flag);
        }
        add_hub<V, false>(a, l, h, a.lanes);
    }
}
// ---- The walk of a span, F = 1: one value a row, the sample's own shape ----------------------
// docs/kernel.md, "F = 1". Each round, a lane loads K1 consecutive edges in 16-byte loads (spans
// are multiples of 32 * K1 but the last: plan.tile), finds where runs start among them, hands its
// part to the scan, and ends the run open before its first start. Runs that start and end inside a
// lane, common only in random order, take a second loop (add_inner_runs).

// Whether this enqueue may keep the scratch: where plan.uses_scratch allowed it, on sm_90 (its
// v2.f32 RED). 16-bit values too: their runs are fp32 sums already, and one RED of (sum, count)
// costs less than a 16-bit RED and a count's atomic; each row is then rounded to T once.
__device__ __forceinline__ bool scratch_allowed(const Args& a) {
    return SM90 && a.scratch;
}
// Whether this enqueue keeps the scratch: only where idx is surely unsorted, since sorted input
// owes its bits to the pieces. Every kernel of the enqueue decides alike, from the same sample.
__device__ __forceinline__ bool uses_scratch(const Args& a) {
    return scratch_allowed(a) && unsorted_sample(a);
}
// A lane's K1 edges in one round.
struct Edges1 {
    unsigned row[K1];
    float v[K1];
    unsigned starts;  // bit j: edge j starts a run
    int first;  // the first edge that starts one (K1: none)
    int last;  // the last (0: none)
};
__device__ __forceinline__ void load_f1(const Args& a, unsigned e, unsigned end,
                                        unsigned long long policy, Edges1& x) {
    const Raw<K1, I> keys = load_edges<K1, true>(a.idx, e, end, I(-1), policy);
    const Raw<K1, T> vals = load_edges<K1, true>(a.src, e, end, from_f32<T>(0.f), policy);
    for (int j = 0; j < K1; ++j) {
        x.row[j] = a.row(keys.v[j]);
        x.v[j] = to_f32(vals.v[j]);
    }
}
// `before`: the row of the edge before the lane's first.
__device__ __forceinline__ void find_starts(Edges1& x, unsigned before) {
    x.starts = 0;
    for (int j = 0; j < K1; ++j) {
        const unsigned previous = j ? x.row[j - 1] : before;
        x.starts |= (unsigned)(x.row[j] != previous) << j;
    }
    x.first = x.starts ? __ffs(x.starts) - 1 : K1;
    x.last = x.starts ? 31 - __clz(x.starts) : 0;
}
// The lane's part for the scan: its edges from its last start on (all K1 if none).
__device__ __forceinline__ Part<1> lane_part(const Edges1& x) {
    float tail = 0.f;
    for (int j = 0; j < K1; ++j) tail = (x.starts >> j) & 1 ? x.v[j] : tail + x.v[j];
    return Part<1>{{tail}, (K1 - x.last) << 1 | (x.starts != 0)};
}
// The run that ends at the lane's first start: what was open before the lane (in), and the lane's
// edges before that start.
__device__ __forceinline__ Part<1> first_run(const Part<1>& in, const Edges1& x) {
    float head = 0.f;
    for (int j = 0; j < K1; ++j) head += j < x.first ? x.v[j] : 0.f;
    return x.first ? in + Part<1>{{head}, x.first << 1} : in;
}
// Runs from the lane's first start to its last, each ending where the next starts.
template <bool SCR>
__device__ __forceinline__ void add_inner_runs(const Args& a, const Hub& h, const Edges1& x) {
    float sum = 0.f;
    int n = 0;
    for (int j = 0; j < K1; ++j) {
        const bool starts = (x.starts >> j) & 1;
        if (j > 0) {
            const bool ends = starts && j > x.first && x.row[j - 1] < OUT_OF_RANGE;
            add_run<1, SCR>(a, Lane{0, true, true}, h, ends, x.row[j - 1], Vec<1>{{sum}}, n);
        }
        sum = starts ? x.v[j] : sum + x.v[j];
        n = starts ? 1 : n + 1;
    }
}
// The F = 1 sample: the first round's 32 * K1 edges, which the walk loads anyway (a sample of its
// own would wait for loads of its own each span). A row of 1% of the edges is seen about 2.6 times
// in it, but seldom twice among the 32 edges of one j (match_any's reach: 4% of spans for one j),
// so a warp's sighting table finds repeats across all of it: a row's first sighting takes one of
// the two entries at a hash of the row by compare-and-swap, writing a tag of the row (24 bits of a
// second hash) and its place in the round; a later sighting finds the tag there. The place is
// never compared; a tag and place that spell NONE (126 rows below 2^31, at the round's last edge)
// leave the entry looking empty. The second entry is for rows whose first another row took: with
// one, the model put tens of spans of 32,768 without their hub of half the edges
// (benchmarks/model_hub_atomics.py). The table lives in the warp's slots, free until the span's
// hubs start; a repeat may still go unseen (fewer hubs, never a wrong sum). Uniform rows pay the
// clear, and a hash and a shared atomic or two an edge of the first round.
constexpr int SIGHT_BITS = SLOTS >= 32 ? 10 : 9;  // 1024 entries (4 KB a warp) where SLOTS is 32
constexpr int SIGHTS = 1 << SIGHT_BITS;
constexpr unsigned PLACE = 0xffu;  // an entry's low bits: lane * K1 + j
static_assert(SIGHTS <= 32 * SLOTS && 32 * K1 <= PLACE + 1, "the table fits the warp's slots");
__device__ __forceinline__ unsigned* sighting(SpanSmem& sm, unsigned i) {  // cell i % 32 is lane's
    const int lane0 = threadIdx.x - threadIdx.x % 32;
    return reinterpret_cast<unsigned*>(&sm.cell[i / 32][lane0 + i % 32]);
}
// Bit j: the lane's rows[j] was seen earlier in the sample (in CAS order, not edge order).
__device__ unsigned seen_before(const unsigned (&rows)[K1], SpanSmem& sm) {
    const int lane = threadIdx.x % 32;
    __syncwarp();  // spare: a lane clears its own cells, whose last cross-lane use ended at a sync
    for (int i = lane; i < SIGHTS; i += 32) *sighting(sm, i) = NONE;
    __syncwarp();
    unsigned before = 0;
    for (int j = 0; j < K1; ++j) {
        if (rows[j] >= OUT_OF_RANGE) continue;
        const unsigned tag = (rows[j] * 0x2545f491u) & ~PLACE;  // two rows share one in 2^24
        const unsigned at = 2 * ((rows[j] * 0x9e3779b1u) >> (33 - SIGHT_BITS));  // even
        const unsigned mine = tag | (lane * K1 + j);
        unsigned was = atomicCAS(sighting(sm, at), NONE, mine);
        if (was != NONE && (was & ~PLACE) != tag) was = atomicCAS(sighting(sm, at + 1), NONE, mine);
        before |= (unsigned)(was != NONE && (was & ~PLACE) == tag) << j;
    }
    __syncwarp();  // other lanes' entries are in this lane's cells: before start_hub or the clear
    return before;
}
// Repeats a row of the F = 1 sample needs to become a hub: one (two sightings) where two alike
// among the 256 by chance are rare (in C(256, 2) / N of spans: 0.8% at N = 2^22, 3% at 2^20), else
// two (three alike: 1% of spans at N = 16K). A chance hub costs its span a lookup a run.
__device__ __forceinline__ int least_repeats(const Args& a) {
    return a.n_nodes >= (1 << 22) ? 1 : 2;
}
// The span's hubs, from its first round: the rows with least_repeats repeats or more, most first.
__device__ int span_f1_hubs(const Args& a, const unsigned (&rows)[K1], SpanSmem& sm) {
    const unsigned before = seen_before(rows, sm);
    if (!__any_sync(ALL, before)) return 0;  // uniform rows, nearly always
    unsigned again[K1];  // a repeat's row, else OUT_OF_RANGE: only repeats vote
    for (int j = 0; j < K1; ++j) again[j] = (before >> j) & 1 ? rows[j] : OUT_OF_RANGE;
    return select_hubs(again, 1, sm, HUBS, least_repeats(a));
}
template <bool PIECES, bool SCR>
__device__ __forceinline__ void span_f1(const Args& a, unsigned span, bool look, SpanSmem& sm) {
    const Lane whole{0, true, true};  // a lane holds whole rows
    const int lane = threadIdx.x % 32;
    const unsigned s0 = span * a.span;
    const unsigned s1 = min(s0 + a.span, (unsigned)a.n_edges);
    const unsigned long long policy = evict_first();
    const unsigned next = s1 < a.n_edges ? a.row(a.idx[s1]) : NONE;  // the row after the span
    Hub h = start_hub<1, true>(0);
    unsigned last = s0 > 0 ? a.row(a.idx[s0 - 1]) : NONE;  // the row of the edge before the round
    Part<1> carry{};
    for (unsigned r0 = s0; r0 < s1; r0 += 32 * K1) {
        Edges1 x;
        load_f1(a, r0 + lane * K1, s1, policy, x);
        if (look && r0 == s0) h = start_hub<1, true>(span_f1_hubs(a, x.row, sm));
        const unsigned up = __shfl_up_sync(ALL, x.row[K1 - 1], 1);
        const unsigned before = lane ? up : last;
        find_starts(x, before);
        const Scanned<1> open = scan(lane_part(x), carry, lane, 32, 1);
        carry = shuffle(open.after, 31, false);
        if (x.starts) {
            const Part<1> run = first_run(open.before, x);
            end_run<1, PIECES, SCR>(a, whole, h, !open.before.starts(), span, HEAD, before, run);
        }
        if (x.starts & (x.starts - 1)) add_inner_runs<SCR>(a, h, x);
        last = __shfl_sync(ALL, x.row[K1 - 1], 31);
    }
    if (lane == 0) end_span<1, PIECES, SCR>(a, whole, h, span, last, next == last, carry, true);
    add_hub<1, SCR>(a, whole, h, 1);
}

// ---- Every span ------------------------------------------------------------------------------
// One span: F = 1 takes its own walk, fp32 with the scratch where this enqueue keeps it; wider
// rows switch over the `columns` a lane that plan.tile gives for 4- and 2-byte types
// (tests/test_kernel_plan.py checks these lists against it).
template <bool PIECES>
__device__ __forceinline__ void one_span(const Args& a, unsigned span, bool hubs, int columns,
                                         bool scratch, SpanSmem& sm) {
    if (a.n_feat == 1 && scratch) return span_f1<PIECES, true>(a, span, hubs, sm);
    if (a.n_feat == 1) return span_f1<PIECES, false>(a, span, hubs, sm);
#define TILE(C) case C: return span_passes<C, PIECES>(a, span, hubs, sm);
    if constexpr (sizeof(T) == 4) {
        switch (columns) {
            TILE(1)
            TILE(2)
            TILE(4)
            default: return drifted();
        }
    } else {
        switch (columns) {
            TILE(1)
            TILE(2)
            TILE(4)
            TILE(8)
            default: return drifted();
        }
    }
#undef TILE
}
// Warps stride over the spans. Spans look for hubs where they are long enough and the enqueue's
// sample shows idx unsorted (the scratch's proof): sorted input and small graphs pay nothing.
// LOOKS false compiles the hubs' code out, for spans too short to look for them: its presence alone
// cost small sorted graphs 4% (benchmarks/candidates/README.md).
template <bool PIECES, bool LOOKS = true> __device__ void all_spans(const Args& a, int columns) {
    SpanSmem& sm = span_smem;
    const unsigned first = blockIdx.x * WARPS + threadIdx.x / 32;
    const unsigned stride = gridDim.x * WARPS;
    const long long spans = a.spans();
    const bool long_spans = LOOKS && a.span >= HUB_EDGES;  // the same in every warp
    const bool may_scratch = PIECES && a.n_feat == 1 && scratch_allowed(a);
    const bool unsorted = (long_spans || may_scratch) && unsorted_sample(a);
    const bool scratch = may_scratch && unsorted;  // uses_scratch(a), from the same sample
    const bool hubs = long_spans && unsorted;
    for (unsigned span = first; span < spans; span += stride) {
        one_span<PIECES>(a, span, hubs, columns, scratch, sm);
    }
}

// ---- The scratch's end -----------------------------------------------------------------------
// Row by row: dst += sum, counts = count. A row whose float count reached 2^24 (it is then at
// least 2^24: partial sums below it are exact) gets 0 and sets the sign bit of row 0's count, a
// flag that scatter_add_recount reads (a count is never negative: fabsf clears it). Row 0 reads its
// own count atomically, as other threads may set that bit meanwhile.
__device__ void unpack(const Args& a) {
    unsigned* flag = reinterpret_cast<unsigned*>(a.pairs()) + 1;
    const long long stride = gridDim.x * (long long)blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long r = first; r < a.n_nodes; r += stride) {
        float2 c;
        if (r > 0) {
            c = reinterpret_cast<const float2*>(a.pairs())[r];
        } else {
            c = make_float2(a.pairs()[0], __uint_as_float(atomicOr(flag, 0u)));
        }
        if (c.x != 0.f) a.dst[r] = from_f32<T>(to_f32(a.dst[r]) + c.x);
        const bool many = fabsf(c.y) >= EXACT;
        if (many) atomicOr(flag, 0x80000000u);
        a.counts[r] = many ? 0 : (int)fabsf(c.y);
    }
}
// Those rows' exact counts, if the flag is set: one pass over idx. A thread counts the edges of the
// last such row it met (adding the count so far when another comes), then a warp adds its lanes'
// counts of one row together.
__device__ void recount(const Args& a) {
#if __CUDA_ARCH__ >= 900
    const float* pairs = a.pairs();
    if (!(reinterpret_cast<const unsigned*>(pairs)[1] >> 31)) return;
    unsigned held = NONE;
    int n = 0;
    const long long stride = gridDim.x * (long long)blockDim.x;
    const long long first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (long long e = first; e < a.n_edges; e += stride) {
        const unsigned r = a.row(a.idx[e]);
        if (r >= OUT_OF_RANGE || fabsf(pairs[2 * (size_t)r + 1]) < EXACT) continue;
        if (r != held && n > 0) {
            atomicAdd(a.counts + held, n);
            n = 0;
        }
        held = r;
        ++n;
    }
    const unsigned peers = __match_any_sync(ALL, held);
    const int total = __reduce_add_sync(peers, n);
    const bool first_peer = __ffs(peers) - 1 == (int)threadIdx.x % 32;
    if (held != NONE && first_peer) atomicAdd(a.counts + held, total);
#endif
}

// ---- The fix-up: runs across spans, once every span is done ----------------------------------
// A run crosses boundary b (the start of span b) where edges b * span - 1 and b * span share an
// in-range row. It began in span b - 1 unless that span is WHOLE. Its pieces: the TAIL of span
// b - 1, then the HEAD of b and of every next span up to the first that is not WHOLE or whose run
// does not go on. Each such run is added once, summed in a fixed order: in span order by a thread
// per W columns where it covers up to SHORT + 1 spans, else by the whole block in stripes.
template <int W>
__device__ __forceinline__ Vec<W> load_piece(const Args& a, long long span, int which, int u) {
    return __builtin_bit_cast(Vec<W>, load_raw<W>(a.piece(span, which, u * W)));
}
// Does the run of `row` go on across boundary j?
__device__ __forceinline__ bool crosses(const Args& a, long long j, unsigned row) {
    return j < a.spans() && a.row(a.idx[j * a.span]) == row;
}
// The spans past span b - 1 that the run of `row` across boundary b covers, up to SHORT: k where
// it goes on through the WHOLE spans b .. b + k - 1 and ends in span b + k; SHORT is a long run
// (add_long_run). The flags and idx of the next SHORT spans are all loaded first, in flight at
// once, and the leading run of goes_on is counted without indexing it (a register array).
template <int SHORT>
__device__ __forceinline__ int run_length(const Args& a, long long b, unsigned row) {
    const long long spans = a.spans();
    unsigned flag[SHORT];  // of spans b .. b + SHORT - 1, in their own loop: no load waits for one
    for (int k = 0; k < SHORT; ++k) flag[k] = a.flags[min(b + k, spans - 1)];
    bool goes_on[SHORT];  // past span b + k
    for (int k = 0; k < SHORT; ++k) goes_on[k] = (flag[k] & WHOLE) && crosses(a, b + k + 1, row);
    int length = 0;
    for (int k = 0; k < SHORT; ++k) length += length == k && goes_on[k];
    return length;
}
struct FixSmem {
    long long chains[FIX_BLOCK];  // the boundaries where the block's long runs begin
    long long end;  // the last span of the long run at hand
    int n_chains;
    float stripe[4][FIX_BLOCK];  // a thread's stripe sum, W <= 4 columns
};
// A long run of `row`, from boundary b to span `end`: thread t sums the HEADs of every
// stripes-th span from b + t / n_cols (more loads in flight than one thread would keep), then the
// first n_cols threads add the stripes in order.
template <int W>
__device__ void add_long_run(const Args& a, FixSmem& sm, unsigned row, long long b, long long end) {
    for (int u0 = 0; u0 < a.n_feat / W; u0 += FIX_BLOCK) {
        const int n_cols = min(a.n_feat / W - u0, FIX_BLOCK);
        const int stripes = FIX_BLOCK / n_cols;
        const int u = u0 + (int)threadIdx.x % n_cols;
        const int stripe = (int)threadIdx.x / n_cols;
        Vec<W> s = stripe == 0 ? load_piece<W>(a, b - 1, TAIL, u) : Vec<W>{};
#pragma unroll 8
        for (long long j = b + stripe; stripe < stripes && j <= end; j += stripes) {
            s = s + load_piece<W>(a, j, HEAD, u);
        }
        for (int i = 0; i < W; ++i) sm.stripe[i][threadIdx.x] = s.v[i];
        __syncthreads();
        if ((int)threadIdx.x < n_cols) {
            for (int k = 1; k < stripes; ++k) {
                for (int i = 0; i < W; ++i) s.v[i] += sm.stripe[i][k * n_cols + threadIdx.x];
            }
            red_add<W>(a.dst, a.at(row, u * W), a.total(), s.v);
        }
        __syncthreads();
    }
}
// The last span of the long run of `hot` that begins at boundary `first`: the first span from
// `first` on that it does not go on past. The whole block looks at FIX_BLOCK spans a step, a
// thread each; the least such span wins (atomicMin). Every thread reads the answer between two
// barriers, so that no thread of the next step (or thread 0 of the next run) changes it before all
// have read it.
__device__ long long chain_end(const Args& a, FixSmem& sm, long long first, unsigned hot) {
    const long long spans = a.spans();
    if (threadIdx.x == 0) sm.end = spans - 1;
    __syncthreads();
    for (long long j0 = first;; j0 += FIX_BLOCK) {
        const long long j = j0 + threadIdx.x;
        const bool goes_on = j < spans && (a.flags[j] & WHOLE) && crosses(a, j + 1, hot);
        if (j < spans && !goes_on) atomicMin(&sm.end, j);
        __syncthreads();
        const long long end = sm.end;
        __syncthreads();
        if (end < j0 + FIX_BLOCK) return end;
    }
}
// Thread t takes boundary t / (n_feat / W) and its W columns t % (n_feat / W) (plan.launch's grid).
template <int W> __device__ void fix_up(const Args& a, FixSmem& sm) {
    constexpr int SHORT = 8;
    const long long spans = a.spans();
    const long long t = blockIdx.x * (long long)FIX_BLOCK + threadIdx.x;
    const long long b = t / (a.n_feat / W);
    const int u = (int)(t % (a.n_feat / W));
    if (threadIdx.x == 0) sm.n_chains = 0;
    __syncthreads();
    const unsigned row = b >= 1 && b < spans ? a.row(a.idx[b * a.span]) : OUT_OF_RANGE;
    const bool run_crosses = row != OUT_OF_RANGE && row == a.row(a.idx[b * a.span - 1]);
    if (run_crosses && !(a.flags[b - 1] & WHOLE)) {  // a run begun in span b - 1
        const int last = run_length<SHORT>(a, b, row);  // TAIL of b - 1, HEADs of b .. b + last
        if (last == SHORT && u == 0) sm.chains[atomicAdd(&sm.n_chains, 1)] = b;
        if (last < SHORT) {
            Vec<W> sum = load_piece<W>(a, b - 1, TAIL, u);
            for (int k = 0; k < SHORT; ++k) {
                if (k <= last) sum = sum + load_piece<W>(a, b + k, HEAD, u);
            }
            red_add<W>(a.dst, a.at(row, u * W), a.total(), sum.v);
        }
    }
    __syncthreads();
    for (int k = 0; k < sm.n_chains; ++k) {  // the long runs: the whole block, one at a time
        const long long first = sm.chains[k];
        const unsigned hot = a.row(a.idx[first * a.span]);
        add_long_run<W>(a, sm, hot, first, chain_end(a, sm, first, hot));
    }
}

// ---- The entry points ------------------------------------------------------------------------
#if !defined(SCATTER_AOT)  // scatter_add_aot.cu includes this file for the QDP route's one entry
// Programmatic dependent launch, sm_90 on (the only GPUs that recount): the fix-up lets the
// recount's blocks start while it runs, only where a recount follows (a kernel of someone else's
// launched that way might not wait); the recount waits for all of it before it reads or ends.
__device__ __forceinline__ void let_the_recount_start() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
__device__ __forceinline__ void wait_for_the_fixup() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) scatter_add(PARAMS) {
    all_spans<true>(ARGS, columns);
}
extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) scatter_add_short_spans(PARAMS) {
    all_spans<true, false>(ARGS, columns);
}
extern "C" __global__ void __launch_bounds__(FIX_BLOCK) scatter_add_fixup(PARAMS) {
    __shared__ FixSmem sm;
    if (scratch && n_edges >= (long long)EXACT) let_the_recount_start();  // plan.Launch.recount
    if (uses_scratch(ARGS)) return unpack(ARGS);
    switch (fix_width) {  // W columns a thread: plan.fix_width picks it and sizes the grid for it
        case 1: return fix_up<1>(ARGS, sm);
        case 2: return fix_up<2>(ARGS, sm);
        case 4: return fix_up<4>(ARGS, sm);
        default: return drifted();
    }
}
// In place of the counts' memset where the scratch may be used: it zeroes the pairs if this enqueue
// uses them, else the counts (the unpack writes every count).
extern "C" __global__ void __launch_bounds__(FIX_BLOCK) scatter_add_zero(PARAMS) {
    const Args a = ARGS;
    const bool used = uses_scratch(a);
    const long long n = used ? 2 * n_nodes : n_nodes;
    const long long first = blockIdx.x * (long long)FIX_BLOCK + threadIdx.x;
    for (long long i = first; i < n; i += gridDim.x * FIX_BLOCK) {
        if (used) {
            a.pairs()[i] = 0.f;
        } else {
            counts[i] = 0;
        }
    }
}
// Launched to overlap the fix-up (programmatic dependent launch, kernels/scatter_add.py): its
// blocks are in place when the fix-up ends, and wait for all of it, unpack's counts and flag
// included, even where idx is sorted and there is nothing to do, so that it never ends first.
extern "C" __global__ void __launch_bounds__(FIX_BLOCK) scatter_add_recount(PARAMS) {
    wait_for_the_fixup();
    if (uses_scratch(ARGS)) recount(ARGS);
}
#endif
