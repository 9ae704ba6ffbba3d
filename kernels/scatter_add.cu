// scatter_add.cu -- in-place scatter-add with in-degrees (v11), compiled at run time by NVRTC; every SCATTER_*
// constant comes from kernels/launcher.py. One enqueue is three GPU operations on one stream: a memset of counts,
// scatter_add_<f32|f16|bf16>_<i32|i64>(dst, src, idx, counts, workspace, n_edges, n_nodes, n_feat), then
// scatter_add_fixup_<...>(the same arguments) for the runs that cross spans.
//   dst [n_nodes, n_feat] T, read AND written: dst[r] += the sum of the src rows e with idx[e] == r. In the plugin
//   it is output 0, which TensorRT aliases to input 0 (X): one buffer. src [n_edges, n_feat] T; idx [n_edges]
//   int32/int64, 0-based rows; counts [n_nodes] int32, zeroed, gets the in-degree. dst, src, idx 16-byte aligned.
//   workspace: workspace_size() bytes, any content (nothing is read before this enqueue wrote it).
// An index outside [0, n_nodes) is skipped; nothing outside the buffers is read or written. Any order gives the
// right sums. Where idx never decreases, each row gets one addition of its fp32 sum, rounded once, and the result
// is bitwise repeatable; elsewhere rows are added by atomics in varying order. fp32 atomics flush subnormals.
//
// How. Edges are cut into spans, one warp each; no warp waits for another, so any grid size finishes. Groups of
// `lanes` lanes (a row's columns) walk a span in rounds, summing each run (a stretch of equal rows) in fp32;
// runs across groups and rounds meet in a warp scan. A lane that has seen idx in order "owns" the runs it ends:
// in sorted input they are their rows' only writers. fp32 adds a run by one atomic (one rounding); a 16-bit row
// gets round(dst + sum) by compare-and-swap from dst as read when the run began (atomics if the swap misses:
// then the input is not sorted). Runs that cross spans leave pieces in the workspace, which the fix-up kernel
// adds in span order, once per run. qdp/scatter_add_aot.cu compiles the same core as one kernel.

#include <cuda_fp16.h>
#include <cuda_bf16.h>
constexpr int BLOCK = SCATTER_BLOCK, WARPS = BLOCK / 32, MIN_BLOCKS = SCATTER_MIN_BLOCKS, FIX_BLOCK = SCATTER_FIX_BLOCK;
constexpr int WIDE_BYTES = SCATTER_WIDE_BYTES, LOAD_BYTES = SCATTER_LOAD_BYTES;
constexpr long long SPAN_EDGES = SCATTER_SPAN_EDGES, TARGET_SPANS = SCATTER_TARGET_SPANS;
constexpr unsigned OUT_OF_RANGE = 0x7fffffffu, NONE = 0xffffffffu, kAll = 0xffffffffu;  // rows; NONE: no edge
constexpr unsigned WHOLE = 1;      // a span's flag: no run starts in it (a run begun before covers it)
constexpr int HEAD = 0, TAIL = 1;  // a span's pieces: its first run, begun before it; its last, going on after it

template <typename T> __device__ __forceinline__ float to_f32(T v) { return static_cast<float>(v); }
template <typename T> __device__ __forceinline__ T from_f32(float v) { return T(v); }  // nearest, ties to even
template <int V> struct Vec { float v[V]; };
template <int N, typename T> struct alignas(N * sizeof(T)) Raw { T v[N]; };  // as stored: one load
template <int V> __device__ __forceinline__ Vec<V> operator+(Vec<V> a, const Vec<V>& b) {
    for (int i = 0; i < V; ++i) a.v[i] += b.v[i];
    return a;
}
template <int N, typename T> __device__ __forceinline__ Raw<N, T> load_raw(const T* p) { return *reinterpret_cast<const Raw<N, T>*>(p); }
template <typename To, typename From> __device__ __forceinline__ To bits(const From& f) { return *reinterpret_cast<const To*>(&f); }
__device__ __forceinline__ long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// ---- Adding a finished run to dst --------------------------------------------------------------------
// The 16-bit elements of the word W at p += s by compare-and-swap, for what has no atomic (bf16 below sm_90,
// the buffer's odd last element). A miss backs off: a hot row's lanes would retry in lockstep.
template <typename W, typename T> __device__ __forceinline__ void cas_add(T* p, const float* s) {
    constexpr int K = sizeof(W) / sizeof(T);
    unsigned pause = 32;  // ns
    for (W seen = *reinterpret_cast<W*>(p), was;; seen = was, pause = min(2 * pause, 1024u)) {
        Raw<K, T> r = bits<Raw<K, T>>(seen);
        for (int k = 0; k < K; ++k) r.v[k] = from_f32<T>(to_f32(r.v[k]) + s[k]);
        if ((was = atomicCAS(reinterpret_cast<W*>(p), seen, bits<W>(r))) == seen) return;
        __nanosleep(pause);
    }
}
// Two 16-bit values rounded from fp32 and added to one aligned word by a RED (CUDA's atomicAdd on __half2 is
// an ATOM, which waits for a reply). bf16x2 is native from sm_90.
__device__ __forceinline__ void red2(__half* p, float a, float b) {
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(p), "r"(bits<unsigned>(__floats2half2_rn(a, b))) : "memory");
}
__device__ __forceinline__ void red2(__nv_bfloat16* p, float a, float b) {
#if __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(p), "r"(bits<unsigned>(__floats2bfloat162_rn(a, b))) : "memory");
#else
    const float s[2] = {a, b};  // slow under contention: docs/kernel.md
    cas_add<unsigned>(p, s);
#endif
}
// dst[i .. i + V) += s atomically (`total` elements). 16-bit: rounded, then added in aligned pairs; a lone
// element is paired with -0.0, which leaves its neighbour's bits as they are.
template <int V, typename T> __device__ __forceinline__ void red_add(T* dst, long long i, long long total, const float* s) {
#if __CUDA_ARCH__ >= 900  // vector atomics
    if constexpr (sizeof(T) == 4 && V % 2 == 0) {
        for (int k = 0; k < V; k += 2) atomicAdd(reinterpret_cast<float2*>(dst + i + k), make_float2(s[k], s[k + 1]));
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
// The aligned 4-byte words holding 16-bit elements [i, i + V) (a V == 1 element shares one with a neighbour),
// as wide as red_add's atomics on them: no two atomics on one element overlap only in part. Read past L1, where
// atomics do not reach.
template <int V> struct Window { alignas(V < 2 ? 4 : 2 * V) unsigned w[V < 2 ? 1 : V / 2]; };
template <int V, typename T> __device__ __forceinline__ Window<V> load_window(const T* dst, long long i, long long total) {
    Window<V> w;
    if constexpr (V == 1) w.w[0] = (i | 1) < total ? __ldcg(reinterpret_cast<const unsigned*>(dst + (i & ~1LL))) : bits<unsigned short>(dst[i]);
    else if constexpr (V == 2) w.w[0] = __ldcg(reinterpret_cast<const unsigned*>(dst + i));
    else if constexpr (V == 4) w = bits<Window<V>>(__ldcg(reinterpret_cast<const uint2*>(dst + i)));
    else w = bits<Window<V>>(__ldcg(reinterpret_cast<const uint4*>(dst + i)));
    return w;
}
// An owned 16-bit run: dst[i .. i + V) = round(seen + s), one compare-and-swap per word, all in flight at once.
// A miss means other edges add to the row too: then this run is added atomically, without retrying (a lone
// element retries while only its neighbour's half changed).
template <int V, typename T> __device__ __forceinline__ void add_once(T* dst, long long i, long long total, const float* s,
                                                                     Window<V> seen) {
    if constexpr (V == 1) {
        if ((i | 1) >= total) return cas_add<unsigned short>(dst + i, s);  // the odd last element has no pair
        const int half = (int)(i & 1);
        for (unsigned guess = seen.w[0], was;; guess = was) {
            Raw<2, T> r = bits<Raw<2, T>>(guess);
            r.v[half] = from_f32<T>(to_f32(r.v[half]) + s[0]);
            if ((was = atomicCAS(reinterpret_cast<unsigned*>(dst + (i & ~1LL)), guess, bits<unsigned>(r))) == guess) return;
            if ((was ^ guess) >> (16 * half) & 0xffffu) return red_add<1>(dst, i, total, s);
        }
    } else {
        unsigned was[V / 2];
        for (int k = 0; k < V / 2; ++k) {
            Raw<2, T> r = bits<Raw<2, T>>(seen.w[k]);
            for (int j = 0; j < 2; ++j) r.v[j] = from_f32<T>(to_f32(r.v[j]) + s[2 * k + j]);
            was[k] = atomicCAS(reinterpret_cast<unsigned*>(dst + i) + k, seen.w[k], bits<unsigned>(r));
        }
        for (int k = 0; k < V / 2; ++k)
            if (was[k] != seen.w[k]) red_add<2>(dst, i + 2 * k, total, s + 2 * k);
    }
}

// ---- One span -----------------------------------------------------------------------------------------
// A stretch of edges as the scan sees it: the sums and edge count since its last run began (all of it if none
// began: !starts), and dst as read at that run's second edge (has_old: 16-bit, by a lane that may own the row).
template <int V> struct Part { Vec<V> sum; int n; bool starts, has_old; Window<V> old; };
template <int V> __device__ __forceinline__ Part<V> operator+(const Part<V>& a, const Part<V>& b) {
    return b.starts ? b : Part<V>{a.sum + b.sum, a.n + b.n, a.starts, a.has_old, a.old};
}
template <typename W> __device__ __forceinline__ W move(W v, int lane, bool up) {
    return up ? __shfl_up_sync(kAll, v, lane) : __shfl_sync(kAll, v, lane);
}
template <int V, typename T> __device__ __forceinline__ Part<V> shuffle(const Part<V>& x, int lane, bool up) {
    Part<V> r;
    for (int i = 0; i < V; ++i) r.sum.v[i] = move(x.sum.v[i], lane, up);
    const int packed = move(x.n << 2 | x.has_old << 1 | x.starts, lane, up);  // n <= SPAN_EDGES
    r.n = packed >> 2, r.has_old = packed & 2, r.starts = packed & 1;
    if constexpr (sizeof(T) == 2)  // fp32 runs never read dst
        for (int k = 0; k < (V < 2 ? 1 : V / 2); ++k) r.old.w[k] = move(x.old.w[k], lane, up);
    return r;
}
struct Pieces { unsigned* flag; float* sum; };  // the workspace: a flag per span, then two pieces per span
__device__ __forceinline__ Pieces pieces_of(unsigned char* ws, long long spans) {  // launcher.workspace_size
    return Pieces{reinterpret_cast<unsigned*>(ws), reinterpret_cast<float*>(ws + ceil_div(4 * spans, 256) * 256)};
}
template <typename T, typename I> struct Args {
    T* dst; const T* src; const I* idx; int* counts;
    long long n_edges, n_nodes; int n_feat;
    __device__ __forceinline__ unsigned row(I key) const { return key >= 0 && key < n_nodes ? (unsigned)key : OUT_OF_RANGE; }
    __device__ __forceinline__ long long total() const { return n_nodes * n_feat; }
    // A finished run of `row`: the lead lane counts its edges, the active lanes add its V columns at col.
    template <int V> __device__ __forceinline__ void finish(unsigned row, int col, bool active, bool lead, bool owned,
                                                            const Part<V>& p) const {
        if (row >= OUT_OF_RANGE || p.n == 0) return;
        if (lead) atomicAdd(counts + row, p.n);
        const long long i = (long long)row * n_feat + col;
        if constexpr (sizeof(T) == 2) {  // a sum that is a T value already (one edge) is rounded once by a RED too
            bool exact = true;
            for (int k = 0; k < V; ++k) exact &= to_f32(from_f32<T>(p.sum.v[k])) == p.sum.v[k];
            if (active && owned && !exact) return add_once<V, T>(dst, i, total(), p.sum.v, p.has_old ? p.old : load_window<V>(dst, i, total()));
        }
        if (active) red_add<V>(dst, i, total(), p.sum.v);
    }
    // A piece of a run that crosses spans: counted now, added to dst by the fix-up kernel.
    template <int V> __device__ __forceinline__ void hand_on(const Pieces& w, long long span, int piece, unsigned row, int col,
                                                             bool active, bool lead, const Part<V>& p) const {
        if (row >= OUT_OF_RANGE) return;
        if (lead) atomicAdd(counts + row, p.n);
        if (active) *reinterpret_cast<Raw<V, float>*>(w.sum + (2 * span + piece) * n_feat + col) = bits<Raw<V, float>>(p.sum);
    }
};

// idx[e .. e + N), those below end, with 16-byte loads where they fit.
template <int N, typename I> __device__ __forceinline__ Raw<N, I> load_keys(const I* idx, long long e, long long end) {
    constexpr int K = 16 / sizeof(I);
    Raw<N, I> r{};
    for (int c = 0; c < N; c += K) {
        if (c + K <= N && e + c + K <= end && (e + c) % K == 0) *reinterpret_cast<Raw<K, I>*>(&r.v[c]) = load_raw<K>(idx + e + c);
        else for (int k = 0; k < K && c + k < N && e + c + k < end; ++k) r.v[c + k] = idx[e + c + k];
    }
    return r;
}
// EPL edges' V columns at col: one 16-byte load of EPL whole narrow rows, or V columns of one wide row.
template <int V, int EPL, typename T, typename I>
__device__ __forceinline__ Raw<V * EPL, T> load_src(const Args<T, I>& a, unsigned e, unsigned end, int col, bool active) {
    Raw<V * EPL, T> r{};
    if (!active || e >= end) return r;
    if (e + EPL <= end) return load_raw<V * EPL>(a.src + (long long)e * a.n_feat + col);
    for (int k = 0; k < EPL && e + k < end; ++k)
        *reinterpret_cast<Raw<V, T>*>(&r.v[k * V]) = load_raw<V>(a.src + (long long)(e + k) * a.n_feat + col);
    return r;
}
// Loads of EPL edges a lane keeps in flight: LOAD_BYTES of src and idx for 4-byte types, half for 16-bit ones,
// whose fp32 sums take twice the registers per byte loaded (more: registers spill), half again for narrow rows,
// whose rounds keep a warp's loads contiguous (3-10% faster at F = 1, benchmarks/bench_constants.py).
template <int V, int EPL, typename T, typename I> __device__ constexpr int loads_in_flight() {
    constexpr int n = LOAD_BYTES * (int)sizeof(T) / 4 / (EPL > 1 || V * sizeof(T) == 16 ? 2 : 1)
                      / (V * EPL * (int)sizeof(T) + EPL * (int)sizeof(I));
    return n >= 8 ? 8 : n >= 4 ? 4 : n >= 2 ? 2 : 1;
}

// A lane's walk over its group's edges [b0, b1) in one round (edge numbers are below 2^31: unsigned sums do not
// wrap). It keeps the open run (cur, of `row`) and, once it ends here, the run that was open at b0: its sum in
// shared memory (first_sum, this thread's own column), its count in first_n. sorted: idx never went down so
// far in this lane's edges; only then are runs begun owned (OWNED: a whole batch in order, known at its load).
template <int V> struct Walk { Part<V> cur{}; unsigned row = NONE; int first_n = -1; };
template <bool OWNED, int V, int EPL, int N, typename T, typename I>
__device__ __forceinline__ void steps(const Args<T, I>& a, Walk<V>& w, float (*first_sum)[BLOCK], const Raw<N, I>& keys,
                                      const Raw<V * EPL, T>* vals, unsigned base, unsigned b1, int col, bool active, bool lead) {
#pragma unroll
    for (int j = 0; j < N; ++j) {  // unrolled: keys and vals stay in registers
        if (base + j >= b1) break;
        const unsigned row = a.row(keys.v[j]);
        if (row != w.row) {  // a run starts here; the one before it ends
            if (w.first_n >= 0) a.template finish<V>(w.row, col, active, lead, OWNED, w.cur);
            else for (int i = 0; i < V; ++i) first_sum[i][threadIdx.x] = w.cur.sum.v[i];
            if (w.first_n < 0) w.first_n = w.cur.n;
            w.cur = Part<V>{{}, 0, true, false};
            w.row = row;
        }
        for (int i = 0; i < V; ++i) w.cur.sum.v[i] += to_f32(vals[j / EPL].v[(j % EPL) * V + i]);
        if (++w.cur.n == 2 && OWNED && sizeof(T) == 2 && active && row != OUT_OF_RANGE) {  // a second edge: the
            w.cur.has_old = true;  // sum needs rounding once, from dst as it is now (a one-edge sum needs none)
            w.cur.old = load_window<V>(a.dst, (long long)row * a.n_feat + col, a.total());
        }
    }
}
template <int V, int EPL, bool OWN, typename T, typename I>
__device__ __forceinline__ void walk(const Args<T, I>& a, Walk<V>& w, bool& sorted, float (*first_sum)[BLOCK], unsigned b0,
                                     unsigned b1, int col, bool active, bool lead) {
    constexpr int U = loads_in_flight<V, EPL, T, I>();
    I before = a.idx[b0 > 0 ? b0 - 1 : 0];
    w.row = b0 > 0 ? a.row(before) : NONE;
    for (unsigned base = b0; base < b1; base += U * EPL) {
        const Raw<U * EPL, I> keys = load_keys<U * EPL>(a.idx, base, b1);
        Raw<V * EPL, T> vals[U];
        for (int u = 0; u < U; ++u) vals[u] = load_src<V, EPL>(a, base + u * EPL, b1, col, active);
#pragma unroll
        for (int j = 0; j < U * EPL; ++j)  // raw keys: out-of-range ones at either end are in order too
            if (base + j < b1) sorted &= !(keys.v[j] < before), before = keys.v[j];
        if (OWN && sorted) steps<true, V, EPL>(a, w, first_sum, keys, vals, base, b1, col, active, lead);
        else steps<false, V, EPL>(a, w, first_sum, keys, vals, base, b1, col, active, lead);  // atomics only
    }
}

// Tile geometry, decided here only (the launcher sizes the workspace and grids from the bound below).
// Rows of 2-16 bytes: a lane per row, 16 bytes (EPL rows) per load. Wider rows: the widest vector up to
// WIDE_BYTES dividing the row per lane, up to a warp per group, passes beyond. Spans grow from one load per
// group to SPAN_EDGES while there are 2 * TARGET_SPANS of them: spans <= max(E / SPAN_EDGES, 2 * TARGET_SPANS) + 1.
struct Shape { int v, epl, lanes, passes; unsigned span; };  // columns and edges per load, lanes per group
template <typename T> __device__ __forceinline__ Shape shape_of(int n_feat, long long n_edges) {
    const int bytes = n_feat * (int)sizeof(T);
    Shape s{1, 1, 1, 1, 0};  // n_feat == 0: counts only
    if (n_feat > 0 && bytes <= 16 && 16 % bytes == 0) {
        s = Shape{n_feat, 16 / bytes, 1, 1, 0};
    } else if (n_feat > 0) {
        int vb = WIDE_BYTES, lanes = 1;
        while (bytes % vb) vb /= 2;
        while (lanes < bytes / vb && lanes < 32) lanes *= 2;
        s = Shape{vb / (int)sizeof(T), 1, lanes, (bytes / vb + lanes - 1) / lanes, 0};
    }
    s.span = 32u / s.lanes * (s.epl > 4 ? s.epl : 4);  // groups start on 16-byte idx boundaries
    while (s.span < SPAN_EDGES && s.span * 2 * TARGET_SPANS <= n_edges) s.span *= 2;
    return s;
}

// One span, all column passes, in rounds: walks, then a segmented scan over the warp's groups in a fixed order
// (deterministic), then each run that ended is added or handed on. Narrow rows walk one load batch per lane per
// round, so that a warp's loads are contiguous; wider rows walk the span in one round. What is open at a
// round's end is the carry into the next. CLASS: the plugin's kernel (owned rows, pieces for the fix-up); else
// the QDP kernel (no workspace: every run added atomically).
template <int V, int EPL, bool CLASS, typename T, typename I>
__device__ __forceinline__ void span_passes(const Args<T, I>& a, const Pieces& p, const Shape& s, unsigned span,
                                            float (*first_sum)[BLOCK]) {
    const int G = 32 / s.lanes, g = (int)(threadIdx.x % 32) / s.lanes, c = (int)(threadIdx.x % 32) % s.lanes;
    const unsigned s0 = span * s.span, s1 = min(s0 + s.span, (unsigned)a.n_edges);
    const unsigned sub = s.lanes == 1 ? loads_in_flight<V, EPL, T, I>() * EPL : s.span / G;  // per group and round
    for (int pass = 0; pass < s.passes; ++pass) {
        const int col = (pass * s.lanes + c) * V;
        const bool active = col < a.n_feat, lead = pass == 0 && c == 0;
        Part<V> carry{};
        bool sorted = true;
        for (unsigned r0 = s0; r0 < s1; r0 += G * sub) {
            const unsigned b0 = min(r0 + g * sub, s1), b1 = min(b0 + sub, s1);
            Walk<V> w;
            if (b0 < b1) walk<V, EPL, CLASS>(a, w, sorted, first_sum, b0, b1, col, active, lead);
            Part<V> part = w.cur, in{};  // -> what goes on past this group, and what flows into it
            for (int d = 1; d < G; d *= 2) {
                const Part<V> up = shuffle<V, T>(part, d * s.lanes, true);
                if (g >= d) part = up + part;
            }
            const Part<V> before = shuffle<V, T>(part, s.lanes, true);  // (with one group: its own, unused)
            if (g > 0) in = before;
            in = carry + in, part = carry + part;
            if (w.first_n >= 0 && in.n + w.first_n > 0) {  // the run open at b0 (> 0 then) ended in this group
                Part<V> run = in;
                for (int i = 0; i < V; ++i) run.sum.v[i] += first_sum[i][threadIdx.x];
                run.n += w.first_n;
                if (CLASS && !run.starts) a.template hand_on<V>(p, span, HEAD, a.row(a.idx[b0 - 1]), col, active, lead, run);
                else a.template finish<V>(a.row(a.idx[b0 - 1]), col, active, lead, CLASS && sorted, run);
            }
            carry = shuffle<V, T>(part, 32 - s.lanes + c, false);  // the last group's, same columns
        }
        if (g == G - 1) {  // the span's last run: it ends here, or goes on into the next span
            const unsigned last = a.row(a.idx[s1 - 1]);
            const bool goes_on = s1 < a.n_edges && a.row(a.idx[s1]) == last;
            if (CLASS && (goes_on || !carry.starts)) a.template hand_on<V>(p, span, carry.starts ? TAIL : HEAD, last, col, active, lead, carry);
            else a.template finish<V>(last, col, active, lead, CLASS && sorted, carry);
            if (CLASS && pass == 0 && c == s.lanes - 1) p.flag[span] = carry.starts ? 0 : WHOLE;
        }
    }
}
template <typename T, typename I, bool CLASS> __device__ void scatter_add(const Args<T, I>& a, unsigned char* ws) {
    const Shape s = shape_of<T>(a.n_feat, a.n_edges);
    const long long spans = ceil_div(a.n_edges, s.span);
    const Pieces p = CLASS ? pieces_of(ws, spans) : Pieces{};
    __shared__ float first_sum[16 / sizeof(T)][BLOCK];  // V <= 16 bytes of T
    for (unsigned span = blockIdx.x * WARPS + threadIdx.x / 32; span < spans; span += gridDim.x * WARPS) {
#define SHAPE_CASE(V, EPL) case V * 16 + EPL: span_passes<V, EPL, CLASS>(a, p, s, span, first_sum); break;
        switch (s.v * 16 + s.epl) { SHAPE_CASE(1, 1) SHAPE_CASE(2, 1) SHAPE_CASE(4, 1) SHAPE_CASE(1, 4) SHAPE_CASE(2, 2) }
        if constexpr (sizeof(T) == 2)  // rows of 8 or 16 bytes in 16-bit types only
            switch (s.v * 16 + s.epl) { SHAPE_CASE(8, 1) SHAPE_CASE(1, 8) SHAPE_CASE(2, 4) SHAPE_CASE(4, 2) }
#undef SHAPE_CASE
    }
}

// ---- The fix-up: runs across spans, once every span is done ---------------------------------------------
// A run crosses boundary b (the start of span b) where edges b*span - 1 and b*span share an in-range row. It
// began in span b - 1 unless that span is WHOLE. Its pieces: TAIL of span b - 1, then HEAD of b and of every
// next span up to the first that is not WHOLE or whose run does not go on. Each such run is added once, summed
// in span order: a thread per W columns if it covers up to SHORT + 1 spans, else by the whole block (hot rows).
template <int W, typename T, typename I>
__device__ __forceinline__ Vec<W> piece(const Args<T, I>& a, const Pieces& p, long long span, int which, int u) {
    return bits<Vec<W>>(load_raw<W>(p.sum + (2 * span + which) * a.n_feat + u * W));
}
template <int W, typename T, typename I> __device__ __forceinline__ void add_run(const Args<T, I>& a, unsigned row, int u, Vec<W> s) {
    const long long i = (long long)row * a.n_feat + u * W;
    if constexpr (sizeof(T) == 4) red_add<W>(a.dst, i, a.total(), s.v);  // one rounding: the row's only addition
    else add_once<W, T>(a.dst, i, a.total(), s.v, load_window<W>(a.dst, i, a.total()));
}
template <typename T, typename I>  // does the run of `row` go on across boundary j?
__device__ __forceinline__ bool crosses(const Args<T, I>& a, const Shape& s, long long spans, long long j, unsigned row) {
    return j < spans && a.row(a.idx[j * s.span]) == row;
}
struct FixSmem { long long chains[FIX_BLOCK], end; int n_chains; float stripe[4][FIX_BLOCK]; };
template <int W, typename T, typename I>  // stripes of spans summed apart, then in stripe order
__device__ void add_long_run(const Args<T, I>& a, const Pieces& p, FixSmem& sm, unsigned row, long long b, long long end) {
    for (int u0 = 0; u0 < a.n_feat / W; u0 += FIX_BLOCK) {
        const int n_cols = min(a.n_feat / W - u0, FIX_BLOCK), stripes = FIX_BLOCK / n_cols;
        const int u = u0 + (int)threadIdx.x % n_cols, stripe = (int)threadIdx.x / n_cols;
        Vec<W> s = stripe == 0 ? piece<W>(a, p, b - 1, TAIL, u) : Vec<W>{};
#pragma unroll 8
        for (long long j = b + stripe; stripe < stripes && j <= end; j += stripes) s = s + piece<W>(a, p, j, HEAD, u);
        for (int i = 0; i < W; ++i) sm.stripe[i][threadIdx.x] = s.v[i];
        __syncthreads();
        if ((int)threadIdx.x < n_cols) {
            for (int k = 1; k < stripes; ++k)
                for (int i = 0; i < W; ++i) s.v[i] += sm.stripe[i][k * n_cols + threadIdx.x];
            add_run<W>(a, row, u, s);
        }
        __syncthreads();
    }
}
// Thread t takes boundary t / cols and its W columns t % cols (the launcher: a thread per span and column).
template <int W, typename T, typename I> __device__ void fix_up_columns(const Args<T, I>& a, unsigned char* ws, FixSmem& sm) {
    constexpr int SHORT = 8;
    const Shape s = shape_of<T>(a.n_feat, a.n_edges);
    const long long spans = ceil_div(a.n_edges, s.span), t = blockIdx.x * (long long)FIX_BLOCK + threadIdx.x;
    const long long b = t / (a.n_feat / W);
    const int u = (int)(t % (a.n_feat / W));
    const Pieces p = pieces_of(ws, spans);
    if (threadIdx.x == 0) sm.n_chains = 0;
    __syncthreads();
    const unsigned row = b >= 1 && b < spans ? a.row(a.idx[b * s.span]) : OUT_OF_RANGE;
    if (row != OUT_OF_RANGE && row == a.row(a.idx[b * s.span - 1]) && !(p.flag[b - 1] & WHOLE)) {  // it begins in b - 1
        bool goes_on[SHORT];  // past span b + k: all read at once
        for (int k = 0; k < SHORT; ++k) goes_on[k] = (p.flag[min(b + k, spans - 1)] & WHOLE) && crosses(a, s, spans, b + k + 1, row);
        int last = 0;  // its pieces: TAIL of b - 1, HEAD of b .. b + last
        for (int k = 0; k < SHORT; ++k) last += last == k && goes_on[k];
        if (last == SHORT && u == 0) sm.chains[atomicAdd(&sm.n_chains, 1)] = b;
        if (last < SHORT) {
            Vec<W> sum = piece<W>(a, p, b - 1, TAIL, u);
            for (int k = 0; k < SHORT; ++k)
                if (k <= last) sum = sum + piece<W>(a, p, b + k, HEAD, u);
            add_run<W>(a, row, u, sum);
        }
    }
    __syncthreads();
    for (int k = 0; k < sm.n_chains; ++k) {  // longer runs: the whole block, one at a time
        const long long first = sm.chains[k];
        const unsigned hot = a.row(a.idx[first * s.span]);
        if (threadIdx.x == 0) sm.end = spans - 1;
        __syncthreads();
        for (long long j0 = first;; j0 += FIX_BLOCK) {  // the run's last span: the first that it does not cover
            const long long j = j0 + threadIdx.x;
            if (j < spans && !((p.flag[j] & WHOLE) && crosses(a, s, spans, j + 1, hot))) atomicMin(&sm.end, j);
            __syncthreads();
            const bool found = sm.end < j0 + FIX_BLOCK;
            __syncthreads();
            if (found) break;
        }
        add_long_run<W>(a, p, sm, hot, first, sm.end);  // ends with a barrier: sm.end is read before it is set again
    }
}
template <typename T, typename I> __device__ void fix_up(const Args<T, I>& a, unsigned char* ws) {
    __shared__ FixSmem sm;  // block-uniform: 16-byte pieces where they fit; n_feat == 0: only counts, all done
    if (a.n_feat % 4 == 0 && a.n_feat > 0) fix_up_columns<4>(a, ws, sm);
    else if (a.n_feat % 2 == 0 && a.n_feat > 0) fix_up_columns<2>(a, ws, sm);
    else if (a.n_feat > 0) fix_up_columns<1>(a, ws, sm);
}

#if !defined(SCATTER_AOT_NAME)  // qdp/scatter_add_aot.cu includes this file for the QDP route's one entry
#define ENTRIES(TN, IN, T, I)                                                                                           \
    extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS) scatter_add_##TN##_##IN(T* dst, const T* src,      \
            const I* idx, int* counts, unsigned char* ws, long long n_edges, long long n_nodes, int n_feat) {          \
        scatter_add<T, I, true>(Args<T, I>{dst, src, idx, counts, n_edges, n_nodes, n_feat}, ws);                    \
    }                                                                                                                \
    extern "C" __global__ void __launch_bounds__(FIX_BLOCK) scatter_add_fixup_##TN##_##IN(T* dst, const T* src,      \
            const I* idx, int* counts, unsigned char* ws, long long n_edges, long long n_nodes, int n_feat) {          \
        fix_up(Args<T, I>{dst, src, idx, counts, n_edges, n_nodes, n_feat}, ws);                                    \
    }
#if defined(SCATTER_ENTRIES)  // the launcher compiles the one type pair it loads
SCATTER_ENTRIES
#else
ENTRIES(f32, i32, float, int) ENTRIES(f32, i64, float, long long)
ENTRIES(f16, i32, __half, int) ENTRIES(f16, i64, __half, long long)
ENTRIES(bf16, i32, __nv_bfloat16, int) ENTRIES(bf16, i64, __nv_bfloat16, long long)
#endif
#endif
