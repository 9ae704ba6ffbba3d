// scatter_add.cu -- in-place scatter-add with per-row counts: one tile reduce-by-key core, two entries.
//
// Contract of the plugin's entry, scatter_add_<f32|f16|bf16>_<i32|i64>(dst, src, idx, counts, workspace,
// n_edges, n_nodes, n_feat):
//   dst       [n_nodes, n_feat] T, row-major, read AND written: dst[t, :] += the sum of the src rows
//             whose index is t. In the plugin dst is output 0, which TensorRT aliases to input 0 (X):
//             the kernel only ever sees that one buffer.
//   src       [n_edges, n_feat] T, read only.     idx [n_edges] int32 or int64, 0-based target rows.
//   counts    [n_nodes] int32, written: how many in-range indices equal each row.
//   workspace workspace_size(n_edges, n_feat) bytes (kernels/launcher.py); its first
//             memset_bytes(...) must be ZERO at launch (the launcher's one memset), the rest may hold
//             anything. dst, src and idx 16-byte aligned; the workspace 256-byte aligned.
//   An index outside [0, n_nodes) is skipped (not added, not counted) and nothing outside the buffers
//   is read or written, whatever the index values. Any index order gives the right sums. For
//   destination-sorted idx every row is rounded ONCE (fp32 sums, one rounding into T) and the result
//   is bitwise repeatable; otherwise the last bits depend on timing (atomics; fp32 atomics also flush
//   subnormal results to zero). A memset and this kernel are the whole enqueue: no host sync, no
//   allocation, capturable in a CUDA graph. The QDP route's entry is described at scatter_add_aot.
//
// The core: tiles of consecutive edges, reduced by key
//   A tile is TILE = BLOCK / LANES groups x SPAN edges (kernels/launcher.py: geometry). A block loads
//   the tile's indices once into shared memory as (row, head) words, where a head is an edge whose
//   index differs from the one before it: runs of equal indices are what gets summed. Each group of
//   LANES lanes walks its SPAN edges in order; lane l holds columns [l*V, l*V+V) of a row (or, for rows
//   of 2, 4 or 8 bytes, EPL whole rows per 16-byte load) in fp32 registers, with no atomics in the
//   loop. A run that starts and ends inside a group is added to dst as soon as it ends. The pieces of
//   runs that cross groups meet in a segmented scan over the groups (warp shuffles, then the warps in
//   order), and the group holding a run's last edge adds it. All sums have a fixed order.
//   Adding a finished run: counts += n (atomic; exact). dst: if the tile's indices never decrease,
//   dst = round(old + sum) by compare-and-swap against the old value (fetched when the run started),
//   which for sorted input always succeeds (one writer per row), and so rounds once; if the swap
//   fails (another tile wrote the row: unsorted input) the sum is added with an atomic. Tiles whose
//   indices decrease add with atomics directly (paired 16-bit ones; v4 fp32 on sm_90).
//
// Runs that cross tiles (the plugin's entry; tickets make this safe)
//   Blocks take tickets from a counter in the workspace: first ZERO_ITEMS items that zero counts, then
//   the tiles in order. A tile publishes the piece of its last run that continues into the next tile
//   (fp32 sums and count in the workspace, then a release flag saying whether the run started in it).
//   The tile holding a run's last edge waits for the flags of the tiles before it, back to the one
//   where the run started, and sums their pieces in tile order: sorted input is still rounded once
//   and repeatable, however many tiles a hot row spans. Every wait is for a LOWER ticket, handed to a
//   block that is already running and never waits for a later one, so the kernel finishes whatever the
//   grid size (no cooperative launch). Flags are read with ld.acquire, pieces with ld.cg (from L2:
//   L1 is not coherent between SMs); a block's writes are published by a barrier and then thread 0's
//   release, which is cumulative. No __threadfence: a full fence makes ptxas turn every atomic whose
//   result is unused into one that waits for its reply (ATOMG instead of REDG, measured 8-16% slower).

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#if !defined(SCATTER_BLOCK) || !defined(SCATTER_SPAN) || !defined(SCATTER_ZERO_SPAN) || \
    !defined(SCATTER_CONTROL_BYTES) || !defined(SCATTER_MIN_BLOCKS)
#error "compile through kernels/launcher.py: it defines the SCATTER_* constants"
#endif
constexpr int BLOCK = SCATTER_BLOCK, SPAN = SCATTER_SPAN, ZERO_SPAN = SCATTER_ZERO_SPAN;
constexpr int CONTROL_BYTES = SCATTER_CONTROL_BYTES, MIN_BLOCKS = SCATTER_MIN_BLOCKS;
constexpr int kWarp = 32, WARPS = BLOCK / kWarp, MAX_TILE = BLOCK * SPAN;
constexpr unsigned READY = 1, STARTS = 2;  // a tile's flag: published; its last run starts in it
constexpr unsigned HEAD = 0x80000000u, OUT_OF_RANGE = 0x7fffffffu;  // tile words: head bit | row

__device__ __forceinline__ float to_f32(float v) { return v; }
__device__ __forceinline__ float to_f32(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f32(__nv_bfloat16 v) { return __bfloat162float(v); }
template <typename T> __device__ __forceinline__ T from_f32(float v);
template <> __device__ __forceinline__ float from_f32<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_f32<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

template <int V> struct Vec { float v[V]; };
template <int N, typename T> struct alignas(N * sizeof(T)) Raw { T v[N]; };  // as stored: one load

template <int V> __device__ __forceinline__ Vec<V> operator+(const Vec<V>& a, const Vec<V>& b) {
    Vec<V> r;
#pragma unroll
    for (int i = 0; i < V; ++i) r.v[i] = a.v[i] + b.v[i];
    return r;
}
template <int V> __device__ __forceinline__ Vec<V> zeros() { return Vec<V>{}; }

// ---- Adding a finished run into dst ---------------------------------------------------------------
// Atomic dst[0 .. W) += s, W aligned elements; no rounding guarantee (16-bit: s is rounded first).
template <int W> __device__ __forceinline__ void red_add(float* p, const float* s) {
#if __CUDA_ARCH__ >= 900
    if constexpr (W == 4) atomicAdd(reinterpret_cast<float4*>(p), make_float4(s[0], s[1], s[2], s[3]));
    else if constexpr (W == 2) atomicAdd(reinterpret_cast<float2*>(p), make_float2(s[0], s[1]));
    else
#endif
#pragma unroll
        for (int i = 0; i < W; ++i) atomicAdd(p + i, s[i]);
}
__device__ __forceinline__ void red2(__half* p, float a, float b) {
    const __half2 v = __floats2half2_rn(a, b);
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(p), "r"(*reinterpret_cast<const unsigned*>(&v)) : "memory");
}
__device__ __forceinline__ void red1(__half* p, float a) {
    const __half v = __float2half_rn(a);
    asm volatile("red.global.add.noftz.f16 [%0], %1;" ::"l"(p), "h"(*reinterpret_cast<const unsigned short*>(&v)) : "memory");
}
// bf16 atomics are native from sm_90; below, CUDA's header does a compare-and-swap loop.
__device__ __forceinline__ void red2(__nv_bfloat16* p, float a, float b) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
#if __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(p), "r"(*reinterpret_cast<const unsigned*>(&v)) : "memory");
#else
    atomicAdd(reinterpret_cast<__nv_bfloat162*>(p), v);
#endif
}
__device__ __forceinline__ void red1(__nv_bfloat16* p, float a) {
    const __nv_bfloat16 v = __float2bfloat16_rn(a);
#if __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.noftz.bf16 [%0], %1;" ::"l"(p), "h"(*reinterpret_cast<const unsigned short*>(&v)) : "memory");
#else
    atomicAdd(p, v);
#endif
}
template <int W, typename T> __device__ __forceinline__ void red_add(T* p, const float* s) {
    if constexpr (W % 2 == 1) red1(p, s[0]);
    else {
#pragma unroll
        for (int i = 0; i < W; i += 2) red2(p + i, s[i], s[i + 1]);
    }
}

template <int B> struct Word;  // an unsigned word of B bytes (compare-and-swap takes up to 8)
template <> struct Word<2> { using type = unsigned short; };
template <> struct Word<4> { using type = unsigned; };
template <> struct Word<8> { using type = unsigned long long; };
template <> struct Word<16> { using type = uint4; };

// dst's current value, read from L2: L1 may hold a copy that another SM's atomics have made stale.
template <int V, typename T> __device__ __forceinline__ Raw<V, T> load_cg(const T* p) {
    using W = typename Word<V * sizeof(T)>::type;
    const W bits = __ldcg(reinterpret_cast<const W*>(p));
    return *reinterpret_cast<const Raw<V, T>*>(&bits);
}

// dst[0 .. V) = round(old + s) if dst still holds old, else atomically dst += s: one rounding and no
// atomic add whenever this is the row's only writer (sorted input). Words of at most 8 bytes.
template <int V, typename T> __device__ __forceinline__ void cas_add(T* p, const Raw<V, T>& old, const Vec<V>& s) {
    Raw<V, T> next;
#pragma unroll
    for (int i = 0; i < V; ++i) next.v[i] = from_f32<T>(to_f32(old.v[i]) + s.v[i]);
    constexpr int BYTES = V * sizeof(T) < 8 ? V * sizeof(T) : 8, PER = BYTES / sizeof(T);
    using W = typename Word<BYTES>::type;
#pragma unroll
    for (int w = 0; w < V / PER; ++w) {
        const W expected = reinterpret_cast<const W*>(&old)[w];
        if (atomicCAS(reinterpret_cast<W*>(p) + w, expected, reinterpret_cast<const W*>(&next)[w]) != expected)
            red_add<PER>(p + w * PER, s.v + w * PER);
    }
}

// ---- One tile -------------------------------------------------------------------------------------
template <typename T, typename I>
struct Args {
    T* dst; const T* src; const I* idx; int* counts;
    long long n_edges, n_nodes; int n_feat;
};

// The workspace after its zeroed control block; every region is written before it is read.
struct Pieces {
    unsigned* flag;   // [tiles] zeroed by the memset; READY | STARTS, set last
    int* tail_n;      // [tiles] edges of the tile's last-run piece that continues into the next tile
    int* head_n;      // [tiles] ... of its first-run piece when that run began in an earlier tile
    float* tail;      // [tiles, n_feat] fp32 sums of those pieces
    float* head;
};

struct Part { bool starts; int n; };  // a group's piece: does it hold a head; its edge count

struct Smem {
    unsigned word[MAX_TILE];                           // head bit | row (OUT_OF_RANGE if not a row)
    float warp_sum[WARPS][kWarp][8];                   // scan across warps: last group's inclusive
    int warp_n[WARPS]; bool warp_starts[WARPS];
    float stripe[BLOCK]; int stripe_n[BLOCK];
    long long ticket;
    unsigned long long start;  // look_back: 1 + the tile where the run began (0: not found yet)
    bool sorted, ends, starts, deferred;
};

__device__ __forceinline__ unsigned word_of(long long key, long long n_nodes, bool head) {
    return (key >= 0 && key < n_nodes ? (unsigned)key : OUT_OF_RANGE) | (head ? HEAD : 0u);
}

// The tile's words; whether its indices never decrease (from the edge before it on), whether its last
// run ends in it, and whether its first run began in an earlier tile and ends in it (deferred).
template <typename T, typename I>
__device__ void load_words(const Args<T, I>& a, Smem& sm, long long t0, long long t1) {
    bool down = false, heads = false;
    for (long long e = t0 + threadIdx.x; e < t1; e += BLOCK) {
        const long long key = a.idx[e], prev = e > 0 ? (long long)a.idx[e - 1] : key;
        const bool head = e == 0 || key != prev;
        down |= key < prev;
        heads |= head && e > t0;
        sm.word[e - t0] = word_of(key, a.n_nodes, head);
    }
    const bool any_down = __syncthreads_or(down), inner_head = __syncthreads_or(heads);
    if (threadIdx.x == 0) {
        sm.sorted = !any_down;
        sm.ends = t1 == a.n_edges || a.idx[t1] != a.idx[t1 - 1];
        sm.starts = (sm.word[0] & HEAD) || inner_head;
        sm.deferred = !(sm.word[0] & HEAD) && (inner_head || sm.ends);
    }
    __syncthreads();
}

// Lane state while a group walks its span: the open run, and the span's first run if it began before
// the span (its sum waits for the scan).
template <int V, typename T>
struct Walk {
    Vec<V> sum, first;
    Raw<V, T> old;
    unsigned row;
    int n, first_n;
    bool open, first_done, starts;
};

// Adds a finished run: counts[row] += n (count: the lead lane only), and V columns at p (null: this
// lane has no columns).
template <int V, typename T>
__device__ __forceinline__ void add_run(T* p, int* count, bool sorted, Vec<V> sum, int n, Raw<V, T> old, bool fetched) {
    if (count) atomicAdd(count, n);
    if (!p) return;
    if (!sorted) red_add<V>(p, sum.v);
    else cas_add<V>(p, fetched ? old : load_cg<V>(p), sum);  // no old value fetched yet: read it now
}

template <int V, typename T, typename I>
__device__ __forceinline__ void finish(const Args<T, I>& a, bool sorted, bool lead, int col, bool active,
                                       unsigned row, const Vec<V>& sum, int n, const Raw<V, T>& old, bool fetched) {
    if (row == OUT_OF_RANGE) return;
    add_run<V>(active ? a.dst + (long long)row * a.n_feat + col : nullptr, lead ? a.counts + row : nullptr, sorted,
               sum, n, old, fetched);
}

// EPL consecutive edges' columns for this lane: one 16-byte load of EPL whole rows (narrow rows), or V
// columns of one row. Past the tile's end: zeros, nothing read.
template <int V, int EPL, typename T, typename I>
__device__ __forceinline__ Raw<V * EPL, T> load_src(const Args<T, I>& a, long long e, long long end, int col,
                                                   bool active) {
    Raw<V * EPL, T> r{};
    if (!active) return r;
    if (e + EPL <= end) return *reinterpret_cast<const Raw<V * EPL, T>*>(a.src + e * a.n_feat + col);
#pragma unroll
    for (int k = 0; k < EPL; ++k)
        if (e + k < end) *reinterpret_cast<Raw<V, T>*>(&r.v[k * V]) = *reinterpret_cast<const Raw<V, T>*>(a.src + (e + k) * a.n_feat + col);
    return r;
}

template <int V, int EPL, typename T, typename I>
__device__ __forceinline__ void walk(const Args<T, I>& a, const Smem& sm, Walk<V, T>& w, long long t0, long long b0,
                                     long long b1, int col, bool active, bool lead) {
    constexpr int U = SPAN / EPL < 4 ? SPAN / EPL : 4;  // loads in flight per lane
    w.sum = zeros<V>(); w.n = 0; w.first_done = false; w.starts = false;
    w.open = !(sm.word[b0 - t0] & HEAD);
    for (long long base = b0; base < b1; base += U * EPL) {
        Raw<V * EPL, T> r[U];
#pragma unroll
        for (int u = 0; u < U; ++u) r[u] = load_src<V, EPL>(a, base + u * EPL, b1, col, active);
#pragma unroll
        for (int u = 0; u < U; ++u) {
#pragma unroll
            for (int k = 0; k < EPL; ++k) {
                const long long e = base + u * EPL + k;
                if (e >= b1) break;
                const unsigned word = sm.word[e - t0];
                if (word & HEAD) {
                    if (e > b0) {  // the run before ends here
                        if (w.open) { w.first = w.sum; w.first_n = w.n; w.first_done = true; w.open = false; }
                        else finish<V>(a, sm.sorted, lead, col, active, w.row, w.sum, w.n, w.old, true);
                    }
                    w.row = word & ~HEAD; w.sum = zeros<V>(); w.n = 0; w.starts = true;
                    if (sm.sorted && active && w.row != OUT_OF_RANGE)  // fetched now, needed when it ends
                        w.old = load_cg<V>(a.dst + (long long)w.row * a.n_feat + col);
                }
#pragma unroll
                for (int i = 0; i < V; ++i) w.sum.v[i] += to_f32(r[u].v[k * V + i]);
                ++w.n;
            }
        }
    }
}

template <int V> __device__ __forceinline__ Vec<V> shfl_up(const Vec<V>& x, int by) {
    Vec<V> r;
#pragma unroll
    for (int i = 0; i < V; ++i) r.v[i] = __shfl_up_sync(0xffffffffu, x.v[i], by);
    return r;
}

// Segmented scan over the block's groups in group order: on return, (sum, part) is the inclusive
// value of this lane's group (what continues out of it) and (carry, in) the exclusive one (what flows
// into it). A part that `starts` cuts the sum there. Fixed order: deterministic.
template <int V>
__device__ void scan_groups(Smem& sm, int lanes, Vec<V>& sum, Part& part, Vec<V>& carry, Part& in) {
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, g = lane / lanes;
    for (int d = 1; d * lanes < kWarp; d *= 2) {
        const Vec<V> s = shfl_up(sum, d * lanes);
        const int n = __shfl_up_sync(0xffffffffu, part.n, d * lanes);
        const bool st = __shfl_up_sync(0xffffffffu, (int)part.starts, d * lanes);
        if (g >= d && !part.starts) { sum = s + sum; part.n += n; part.starts = st; }
    }
    Vec<V> before = shfl_up(sum, lanes);  // the previous group in this warp, inclusive
    Part prev{(bool)__shfl_up_sync(0xffffffffu, (int)part.starts, lanes), __shfl_up_sync(0xffffffffu, part.n, lanes)};
    if ((g + 1) * lanes == kWarp) {
#pragma unroll
        for (int i = 0; i < V; ++i) sm.warp_sum[warp][lane % lanes][i] = sum.v[i];
        if (lane % lanes == 0) { sm.warp_n[warp] = part.n; sm.warp_starts[warp] = part.starts; }
    }
    __syncthreads();
    Vec<V> wc = zeros<V>();  // what the earlier warps pass on, added nearest first
    Part wp{false, 0};
    for (int k = warp - 1; k >= 0 && !wp.starts; --k) {
        Vec<V> s;
#pragma unroll
        for (int i = 0; i < V; ++i) s.v[i] = sm.warp_sum[k][lane % lanes][i];
        wc = s + wc; wp.n += sm.warp_n[k]; wp.starts = sm.warp_starts[k];
    }
    __syncthreads();  // warp_sum is reused by the next pass
    if (g == 0) { carry = wc; in = wp; }
    else if (prev.starts) { carry = before; in = prev; }
    else { carry = wc + before; in = Part{wp.starts, wp.n + prev.n}; }
    if (!part.starts) { sum = wc + sum; part.n += wp.n; part.starts = wp.starts; }
}

// One pass of a tile over the columns [pass, pass + lanes * V): walk, scan, and add or hand on
// every run. CLASS: pieces go to the workspace (p); QDP: they are added atomically.
template <int V, int EPL, bool CLASS, typename T, typename I>
__device__ void tile_pass(const Args<T, I>& a, Smem& sm, const Pieces& p, long long tile, long long tile_edges,
                          int lanes, int pass) {
    const long long t0 = tile * tile_edges, t1 = min(t0 + tile_edges, a.n_edges);
    const int groups = BLOCK / lanes, g = threadIdx.x / lanes, lane = threadIdx.x % lanes;
    const int col = pass + lane * V;
    const bool active = col < a.n_feat, lead = pass == 0 && lane == 0;
    const long long span = tile_edges / groups, b0 = t0 + g * span, b1 = min(b0 + span, t1);
    Walk<V, T> w;
    if (b0 < b1) {
        walk<V, EPL>(a, sm, w, t0, b0, b1, col, active, lead);
        const bool ends = b1 == t1 ? sm.ends : (sm.word[b1 - t0] & HEAD) != 0;
        if (ends) {
            if (w.open) { w.first = w.sum; w.first_n = w.n; w.first_done = true; }
            else finish<V>(a, sm.sorted, lead, col, active, w.row, w.sum, w.n, w.old, true);
            w.sum = zeros<V>(); w.n = 0;  // nothing continues into the next group
        }
    } else {  // past the last edge: an empty group
        w.sum = zeros<V>(); w.n = 0; w.open = false; w.first_done = false; w.starts = false;
    }
    Vec<V> carry;
    Part part{w.starts, w.n}, in;
    scan_groups<V>(sm, lanes, w.sum, part, carry, in);
    if (w.first_done) {  // this group holds the last edge of a run that began before its span
        const Vec<V> total = carry + w.first;
        const int n = in.n + w.first_n;
        const unsigned row = sm.word[b0 - t0] & ~HEAD;
        if (in.starts) finish<V>(a, sm.sorted, lead, col, active, row, total, n, w.old, false);
        else if (!CLASS) finish<V>(a, false, lead, col, active, row, total, n, w.old, false);
        else {  // the tile's first run, begun in an earlier tile: summed after the look-back
            if (active) for (int i = 0; i < V; ++i) p.head[tile * a.n_feat + col + i] = total.v[i];
            if (lead) p.head_n[tile] = n;
        }
    }
    if (g == groups - 1 && !sm.ends) {  // the tile's last run continues into the next tile
        if (!CLASS) finish<V>(a, false, lead, col, active, sm.word[t1 - 1 - t0] & ~HEAD, w.sum, part.n, w.old, false);
        else {
            if (active) for (int i = 0; i < V; ++i) p.tail[tile * a.n_feat + col + i] = w.sum.v[i];
            if (lead) p.tail_n[tile] = part.n;
        }
    }
}

// ---- Tile geometry (kernels/launcher.py: geometry computes the same) ------------------------------
struct Shape { int v, epl, lanes, passes; long long tile; };  // V, EPL, lanes per group, column passes

// Rows of 2, 4, 8 or 16 bytes: one lane per row, 16 bytes (EPL rows) per load. Otherwise lanes take
// the widest vector (16 bytes down to one element) that divides the row, up to a warp of lanes per
// group, several passes over the tile's columns for rows wider than a warp's vectors.
template <typename T> __device__ __forceinline__ Shape shape_of(int n_feat) {
    const int bytes = n_feat * (int)sizeof(T);
    if (n_feat == 0) return Shape{1, 1, 1, 1, MAX_TILE};  // counts only: no lane has a column
    if (bytes <= 16 && 16 % bytes == 0) return Shape{n_feat, 16 / bytes, 1, 1, MAX_TILE};
    int vb = 16;
    while (bytes % vb) vb /= 2;
    const int vectors = bytes / vb;
    int lanes = 1;
    while (lanes < vectors && lanes < kWarp) lanes *= 2;
    return Shape{vb / (int)sizeof(T), 1, lanes, (vectors + lanes - 1) / lanes, (long long)(BLOCK / lanes) * SPAN};
}

// The QDP entry picks the variant at run time (one PTX entry, any n_feat); the plugin's kernel is
// compiled once per variant (separate entries keep each one's registers to itself).
template <typename T, typename I>
__device__ void aot_passes(const Args<T, I>& a, Smem& sm, long long tile, const Shape& s) {
    for (int pass = 0; pass < s.passes; ++pass) {
        const int col = pass * s.lanes * s.v;
        switch (s.v * 16 + s.epl) {  // block-uniform
            case 16 + 1: tile_pass<1, 1, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
            case 32 + 1: tile_pass<2, 1, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
            case 64 + 1: tile_pass<4, 1, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
            case 16 + 4: tile_pass<1, 4, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
            case 32 + 2: tile_pass<2, 2, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
            default:
                if constexpr (sizeof(T) == 2) switch (s.v * 16 + s.epl) {
                    case 128 + 1: tile_pass<8, 1, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
                    case 16 + 8: tile_pass<1, 8, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
                    case 32 + 4: tile_pass<2, 4, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
                    case 64 + 2: tile_pass<4, 2, false>(a, sm, Pieces{}, tile, s.tile, s.lanes, col); break;
                }
        }
    }
}

__device__ __forceinline__ long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }
__device__ __forceinline__ long long align_up(long long n) { return ceil_div(n, 256) * 256; }

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
// Block-wide: the block's writes, then `p` (a release, cumulative after the barrier).
__device__ __forceinline__ void publish_add(unsigned* p) {
    __syncthreads();
    if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(p) : "memory");
}

struct Control { unsigned long long ticket; unsigned zeroed; };  // the memset's zeros
static_assert(sizeof(Control) <= CONTROL_BYTES, "the launcher zeroes CONTROL_BYTES");

// Regions after the control block (kernels/launcher.py: workspace_size, memset_bytes).
__device__ Pieces pieces_of(unsigned char* ws, long long tiles, int n_feat) {
    unsigned char* at = ws + CONTROL_BYTES;
    auto take = [&](long long bytes) { unsigned char* r = at; at += align_up(bytes); return r; };
    Pieces p;
    p.flag = reinterpret_cast<unsigned*>(take(4 * tiles));
    p.tail_n = reinterpret_cast<int*>(take(4 * tiles));
    p.head_n = reinterpret_cast<int*>(take(4 * tiles));
    p.tail = reinterpret_cast<float*>(take(4 * tiles * n_feat));
    p.head = reinterpret_cast<float*>(take(4 * tiles * n_feat));
    return p;
}

// The tile's first run began in an earlier tile and ends here: find the tile where it began (the
// nearest earlier flag with STARTS), then add every piece in tile order, then this tile's own.
// Column n_feat is the edge count. Threads split the tiles into fixed stripes: deterministic.
template <typename T, typename I>
__device__ void look_back(const Args<T, I>& a, Smem& sm, const Pieces& p, long long tile) {
    if (threadIdx.x == 0) sm.start = 0;
    __syncthreads();
    for (long long top = tile - 1;; top -= BLOCK) {
        const long long j = top - threadIdx.x;
        unsigned f = 0;
        if (j >= 0)
            while (!((f = load_acquire(p.flag + j)) & READY)) __nanosleep(64);
        if (f & STARTS) atomicMax(&sm.start, (unsigned long long)j + 1);
        if (__syncthreads_or(f & STARTS)) break;  // tile 0 starts a run at edge 0: this ends
    }
    const long long first = (long long)sm.start - 1;
    const unsigned row = sm.word[0] & ~HEAD;
    const int F = a.n_feat;
    for (int c0 = 0; c0 <= F; c0 += BLOCK) {
        const int cols = min(F + 1 - c0, BLOCK), stripes = BLOCK / cols;
        const int c = c0 + (int)threadIdx.x % cols, stripe = (int)threadIdx.x / cols;
        float s = 0.0f;
        int n = 0;
        for (long long j = first + stripe; stripe < stripes && j < tile; j += stripes) {
            if (c < F) s += __ldcg(p.tail + j * F + c);
            else n += __ldcg(p.tail_n + j);
        }
        sm.stripe[threadIdx.x] = s;
        sm.stripe_n[threadIdx.x] = n;
        __syncthreads();
        if ((int)threadIdx.x < cols) {
            for (int k = 1; k < stripes; ++k) { s += sm.stripe[k * cols + threadIdx.x]; n += sm.stripe_n[k * cols + threadIdx.x]; }
            if (row != OUT_OF_RANGE && c == F) atomicAdd(a.counts + row, n + __ldcg(p.head_n + tile));
            if (row != OUT_OF_RANGE && c < F) {
                const Vec<1> total{s + __ldcg(p.head + tile * F + c)};
                T* q = a.dst + (long long)row * F + c;
                if (sm.sorted) cas_add<1>(q, load_cg<1>(q), total);
                else red_add<1>(q, total.v);
            }
        }
        __syncthreads();
    }
}

// The plugin's kernel: zero the counts, then the tiles in ticket order (see the header).
template <int V, int EPL, typename T, typename I>
__device__ void scatter_add(const Args<T, I>& a, unsigned char* ws) {
    __shared__ Smem sm;
    Control* control = reinterpret_cast<Control*>(ws);
    const Shape shape = shape_of<T>(a.n_feat);
    const long long tiles = ceil_div(a.n_edges, shape.tile), zero_items = ceil_div(a.n_nodes, ZERO_SPAN);
    const Pieces p = pieces_of(ws, tiles, a.n_feat);
    bool zeroed = false;
    for (;;) {
        __syncthreads();  // every thread is done with the last ticket and the tile's shared memory
        if (threadIdx.x == 0) sm.ticket = (long long)atomicAdd(&control->ticket, 1ULL);
        __syncthreads();
        const long long t = sm.ticket, tile = t - zero_items;
        if (t < zero_items) {
            for (long long i = t * ZERO_SPAN + threadIdx.x; i < min((t + 1) * ZERO_SPAN, a.n_nodes); i += BLOCK)
                a.counts[i] = 0;
            publish_add(&control->zeroed);
            continue;
        }
        if (tile >= tiles) return;  // block-uniform
        if (!zeroed) {  // counts are added to from here on
            if (threadIdx.x == 0) while (load_acquire(&control->zeroed) < zero_items) __nanosleep(64);
            zeroed = true;
        }
        const long long t0 = tile * shape.tile;
        load_words(a, sm, t0, min(t0 + shape.tile, a.n_edges));
        for (int pass = 0; pass < shape.passes; ++pass)
            tile_pass<V, EPL, true>(a, sm, p, tile, shape.tile, shape.lanes, pass * shape.lanes * V);
        __syncthreads();  // the pieces are written; publish them (release: cumulative after the barrier)
        if (threadIdx.x == 0) {
            const unsigned flag = READY | (sm.starts ? STARTS : 0u);
            asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p.flag + tile), "r"(flag) : "memory");
        }
        if (sm.deferred) look_back(a, sm, p, tile);
    }
}

// The ahead-of-time entry of the QDP route (qdp/aot_kernel.py): ONE kernel, no workspace and no
// memset, as TensorRT's aot_impl allows. Arguments in TensorRT's order: inputs (x, src, idx,
// counts_in), the int32 scalars (n_edges, n_nodes, n_feat), outputs (dst, counts); output 0 is aliased
// to input 0 and output 1 to input 3, which the network's Fill layer zeroes. The same tiles, in any
// order (blocks stride over them): a run that crosses a tile edge is added atomically piece by piece
// (no workspace to meet in), so only rows inside one tile are rounded once. If the outputs are not
// the inputs (the aliasing contract broken), dst is filled with NaN and counts with -1: a loud wrong
// answer that validation catches, not a trap that would leave the CUDA context unusable.
template <typename T, typename I>
__device__ void scatter_add_aot(const T* x, const Args<T, I>& a, const int* counts_in) {
    __shared__ Smem sm;
    if (a.dst != x || a.counts != counts_in) {
        const long long total = a.n_nodes * a.n_feat;
        for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < total || i < a.n_nodes;
             i += (long long)gridDim.x * BLOCK) {
            if (i < total) a.dst[i] = from_f32<T>(__int_as_float(0x7fc00000));
            if (i < a.n_nodes) a.counts[i] = -1;
        }
        return;
    }
    const Shape shape = shape_of<T>(a.n_feat);
    const long long tiles = ceil_div(a.n_edges, shape.tile);
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        __syncthreads();  // the previous tile's shared memory is no longer read
        const long long t0 = tile * shape.tile;
        load_words(a, sm, t0, min(t0 + shape.tile, a.n_edges));
        aot_passes(a, sm, tile, shape);
    }
}

#if defined(SCATTER_AOT_NAME)
// Compiled alone (qdp/aot_kernel.py passes the name and types), so the PTX holds one entry.
extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
SCATTER_AOT_NAME(const SCATTER_AOT_T* x, const SCATTER_AOT_T* src, const SCATTER_AOT_I* idx, const int* counts_in,
                 int n_edges, int n_nodes, int n_feat, SCATTER_AOT_T* dst, int* counts) {
    scatter_add_aot(x, Args<SCATTER_AOT_T, SCATTER_AOT_I>{dst, src, idx, counts, n_edges, n_nodes, n_feat}, counts_in);
}
#else
// scatter_add_<type>_<index>_v<V>e<EPL>: the launcher picks the variant shape_of names.
#define ENTRY(T_NAME, I_NAME, T, I, V, EPL)                                                                \
    extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)                                        \
    scatter_add_##T_NAME##_##I_NAME##_v##V##e##EPL(T* dst, const T* src, const I* idx, int* counts,        \
                                    unsigned char* workspace, long long n_edges, long long n_nodes, int n_feat) { \
        scatter_add<V, EPL>(Args<T, I>{dst, src, idx, counts, n_edges, n_nodes, n_feat}, workspace);        \
    }
#define ENTRIES(T_NAME, I_NAME, T, I) ENTRY(T_NAME, I_NAME, T, I, 1, 1) ENTRY(T_NAME, I_NAME, T, I, 2, 1) \
    ENTRY(T_NAME, I_NAME, T, I, 4, 1) ENTRY(T_NAME, I_NAME, T, I, 1, 4) ENTRY(T_NAME, I_NAME, T, I, 2, 2)
#define ENTRIES_16(T_NAME, I_NAME, T, I) ENTRIES(T_NAME, I_NAME, T, I) ENTRY(T_NAME, I_NAME, T, I, 8, 1) \
    ENTRY(T_NAME, I_NAME, T, I, 1, 8) ENTRY(T_NAME, I_NAME, T, I, 2, 4) ENTRY(T_NAME, I_NAME, T, I, 4, 2)
ENTRIES(f32, i32, float, int)
ENTRIES(f32, i64, float, long long)
ENTRIES_16(f16, i32, __half, int)
ENTRIES_16(f16, i64, __half, long long)
ENTRIES_16(bf16, i32, __nv_bfloat16, int)
ENTRIES_16(bf16, i64, __nv_bfloat16, long long)
#endif
