// scatter_add.cu -- in-place scatter-add with per-row counts: one tile reduce-by-key core, two entries.
// Plugin entry scatter_add_<f32|f16|bf16>_<i32|i64>_v<V>e<EPL>(dst, src, idx, counts, workspace, n_edges,
// n_nodes, n_feat); kernels/launcher.py picks V and EPL (shape) and defines every SCATTER_* constant.
//   dst [n_nodes, n_feat] T, read AND written: dst[t] += the sum of the src rows whose index is t. In the
//       plugin it is output 0, which TensorRT aliases to input 0 (X): the kernel sees one buffer.
//   src [n_edges, n_feat] T; idx [n_edges] int32/int64, 0-based rows; counts [n_nodes] int32, written:
//       the number of in-range indices equal to each row. dst, src, idx 16-byte aligned.
//   workspace: workspace_size(n_edges, n_feat) bytes; its first memset_bytes(tiles) ZERO at launch (the
//       launcher's one memset), the rest anything. Memset + this kernel = the enqueue (graph-capturable).
//   An index outside [0, n_nodes) is skipped; nothing outside the buffers is read or written. Any order
//   gives the right sums. If idx never decreases, each row is rounded ONCE (fp32 sums) and the result
//   is bitwise repeatable; otherwise rows are added with atomics (last bits depend on timing; fp32
//   atomics flush subnormal results). The QDP route's entry: scatter_add_aot.
// Work items in ticket order (docs/kernel.md): slices of ZERO_SPAN elements zero counts and check that
// idx never decreases; then tiles of consecutive edges. A run is a stretch of equal rows: groups of lanes
// walk spans summing in fp32, runs across groups meet in a segmented scan, runs across tiles in the
// workspace (look_back). For sorted input a run's last group is the row's only writer (a store). A wait
// is only ever for a LOWER ticket, held by a running block: any grid size finishes. No __threadfence:
// ptxas would make every atomic wait for its reply (8-16% slower on the H200); release/acquire instead.

#include <cuda_fp16.h>
#include <cuda_bf16.h>
constexpr int BLOCK = SCATTER_BLOCK, SPAN = SCATTER_SPAN, ZERO_SPAN = SCATTER_ZERO_SPAN, WIDE_BYTES = SCATTER_WIDE_BYTES;
constexpr int CONTROL_BYTES = SCATTER_CONTROL_BYTES, MIN_BLOCKS = SCATTER_MIN_BLOCKS;
constexpr long long LONG_EDGES = SCATTER_LONG_EDGES, TARGET_TILES = SCATTER_TARGET_TILES;
constexpr int kWarp = 32, WARPS = BLOCK / kWarp, MAX_TILE = BLOCK * SPAN;  // edges
constexpr unsigned READY = 1, STARTS = 2;  // a tile's flag: published; a run starts in it
constexpr unsigned OUT_OF_RANGE = 0x7fffffffu, NONE = 0xffffffffu, kAll = 0xffffffffu;  // NONE: no edge
constexpr int HEAD = 0, TAIL = 1;  // a tile's two pieces (Pieces)
template <typename T> __device__ __forceinline__ float to_f32(T v) { return static_cast<float>(v); }
template <typename T> __device__ __forceinline__ T from_f32(float v) { return T(v); }  // round to nearest even
template <int V> struct Vec { float v[V]; };
template <int N, typename T> struct alignas(N * sizeof(T)) Raw { T v[N]; };  // as stored: one load
template <int V> __device__ __forceinline__ Vec<V> operator+(Vec<V> a, const Vec<V>& b) {
    for (int i = 0; i < V; ++i) a.v[i] += b.v[i];
    return a;
}
template <int N, typename T> __device__ __forceinline__ Raw<N, T> load_raw(const T* p) { return *reinterpret_cast<const Raw<N, T>*>(p); }
template <typename To, typename From> __device__ __forceinline__ To bits(const From& f) { return *reinterpret_cast<const To*>(&f); }
__device__ __forceinline__ long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
// ---- Adding a finished run into dst ---------------------------------------------------------------
// The 16-bit elements of the word W at p += s by compare-and-swap, for what has no atomic (bf16 below
// sm_90, the odd last element). A miss backs off: a hot row's lanes would retry in lockstep.
template <typename W, typename T> __device__ __forceinline__ void cas_add(T* p, const float* s) {
    W* w = reinterpret_cast<W*>(p);
    unsigned pause = 32;  // ns
    for (W seen = *w, was;; seen = was, pause = min(2 * pause, 1024u)) {
        Raw<sizeof(W) / sizeof(T), T> r = bits<Raw<sizeof(W) / sizeof(T), T>>(seen);
        for (int k = 0; k < (int)(sizeof(W) / sizeof(T)); ++k) r.v[k] = from_f32<T>(to_f32(r.v[k]) + s[k]);
        if ((was = atomicCAS(w, seen, bits<W>(r))) == seen) return;
        __nanosleep(pause);
    }
}
// Two 16-bit values rounded from fp32 and added to one aligned word by a RED (CUDA's atomicAdd on
// __half2 is an ATOM, which waits for a reply). bf16x2 is native from sm_90.
__device__ __forceinline__ void red2(__half* p, float a, float b) {
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(p), "r"(bits<unsigned>(__floats2half2_rn(a, b))) : "memory");
}
__device__ __forceinline__ void red2(__nv_bfloat16* p, float a, float b) {
#if __CUDA_ARCH__ >= 900
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(p), "r"(bits<unsigned>(__floats2bfloat162_rn(a, b))) : "memory");
#else
    const float s[2] = {a, b};  // the collapse measured below sm_90: benchmarks/NOTES.md
    cas_add<unsigned>(p, s);
#endif
}
// Otherwise atomically dst[i .. i + W) += s (`total` elements). 16-bit: rounded, then added in aligned
// pairs, a lone element paired with -0.0 (scalar 16-bit atomics measured 46% slower on the H200).
template <int W, typename T> __device__ __forceinline__ void red_add(T* dst, long long i, long long total, const float* s) {
    if constexpr (sizeof(T) == 4) {
#if __CUDA_ARCH__ >= 900  // vector atomics
        if constexpr (W % 2 == 0) {
            for (int k = 0; k < W; k += 2) atomicAdd(reinterpret_cast<float2*>(dst + i + k), make_float2(s[k], s[k + 1]));
            return;
        }
#endif
        for (int k = 0; k < W; ++k) atomicAdd(dst + i + k, s[k]);
    } else if constexpr (W % 2 == 0) {
        for (int k = 0; k < W; k += 2) red2(dst + i + k, s[k], s[k + 1]);
    } else if ((i | 1) < total) {  // the aligned pair holding element i lies inside the buffer
        red2(dst + (i & ~1LL), i & 1 ? -0.0f : s[0], i & 1 ? s[0] : -0.0f);
    } else {  // the buffer's odd last element, whose pair would reach past the end
        cas_add<unsigned short>(dst + i, s);
    }
}

// A finished run of `row`: n edges (lead lane: counts), V columns at col (active lanes). owned:
// sorted input, store once; old is dst as read when the run started (null: read it now).
template <typename T, typename I> struct Args {
    T* dst; const T* src; const I* idx; int* counts;
    long long n_edges, n_nodes; int n_feat;
    __device__ __forceinline__ unsigned row(long long key) const { return key >= 0 && key < n_nodes ? (unsigned)key : OUT_OF_RANGE; }
    template <int V>
    __device__ __forceinline__ void finish(unsigned row, int col, bool active, bool lead, bool owned,
                                           const Vec<V>& sum, int n, const Raw<V, T>* old) const {
        if (row == OUT_OF_RANGE) return;
        if (lead && owned) counts[row] = n;
        else if (lead) atomicAdd(counts + row, n);
        const long long i = (long long)row * n_feat + col;
        if (!active) return;
        if (!owned) return red_add<V>(dst, i, n_nodes * n_feat, sum.v);
        Raw<V, T> r = old ? *old : load_raw<V>(dst + i);  // the row's only writer: one rounding per element
        for (int k = 0; k < V; ++k) r.v[k] = from_f32<T>(to_f32(r.v[k]) + sum.v[k]);
        *reinterpret_cast<Raw<V, T>*>(dst + i) = r;
    }
};
// ---- One tile -------------------------------------------------------------------------------------
// The workspace after its control block, per tile: a flag (READY | STARTS, zeroed by the memset, set
// last), then two pieces, each an edge count and fp32 sums [n_feat]: [2 tile + HEAD] the first run's,
// when that run began in an earlier tile; [2 tile + TAIL] the last run's, when it continues.
struct Pieces { unsigned* flag; int* n; float* sum; };
struct Smem {
    unsigned word[MAX_TILE + 2];      // [i + 1]: the row of edge t0 + i, i = -1 .. tile; NONE: no edge
    float warp_sum[WARPS][kWarp][8];  // scan across warps: last group's inclusive
    float first[8][BLOCK];            // per thread: its walk's first run, until the scan
    float stripe[4][BLOCK];           // look-back: each stripe's sums
    int warp_n[WARPS], n;
    bool warp_starts[WARPS], sorted;
    long long ticket;
    unsigned long long start;  // look_back: 1 + the tile where the run began (0: not found yet)
    __device__ unsigned row(long long i) const { return word[i + 1]; }
    __device__ bool head(long long i) const { return word[i + 1] != word[i]; }  // edge t0 + i starts a run
};

// idx[e .. e + K), those below end, in one 16-byte load where all are (e is a multiple of K).
template <int K, typename I> __device__ __forceinline__ Raw<K, I> load_keys(const I* idx, long long e, long long end) {
    if (e + K <= end) return load_raw<K>(idx + e);
    Raw<K, I> r{};
    for (int k = 0; k < K && e + k < end; ++k) r.v[k] = idx[e + k];
    return r;
}
// The rows of edges t0 - 1 .. t1 (t0 is a multiple of 8: tiles are).
template <typename T, typename I> __device__ void load_words(const Args<T, I>& a, Smem& sm, long long t0, long long t1) {
    constexpr int K = 16 / sizeof(I);
#pragma unroll 4
    for (long long e = t0 + threadIdx.x * K; e < t1; e += BLOCK * K) {
        const Raw<K, I> keys = load_keys<K>(a.idx, e, t1);
        for (int k = 0; k < K && e + k < t1; ++k) sm.word[1 + e - t0 + k] = a.row(keys.v[k]);
    }
    if (threadIdx.x == 0) sm.word[0] = t0 > 0 ? a.row(a.idx[t0 - 1]) : NONE;
    if (threadIdx.x == 1) sm.word[1 + t1 - t0] = t1 < a.n_edges ? a.row(a.idx[t1]) : NONE;
    __syncthreads();
}
// A lane's walk: the open run (with dst as read when it began), and the span's first run (for the scan).
template <int V, typename T> struct Walk {
    Vec<V> sum{};
    Raw<V, T> old;
    unsigned row;
    int n = 0, first_n = 0;
    bool open = false, first_done = false, starts = false;  // as an empty group has them
    template <typename I>  // the open run ends: kept for the scan if it began before the span, else added
    __device__ __forceinline__ void end_run(const Args<T, I>& a, Smem& sm, int col, bool active, bool lead) {
        if (!open) return a.template finish<V>(row, col, active, lead, sm.sorted, sum, n, &old);
        for (int i = 0; i < V; ++i) sm.first[i][threadIdx.x] = sum.v[i];
        first_n = n, first_done = true, open = false;
    }
};
// EPL edges' columns for this lane: one 16-byte load of EPL whole narrow rows, or V columns of one row.
template <int V, int EPL, typename T, typename I>
__device__ __forceinline__ Raw<V * EPL, T> load_src(const Args<T, I>& a, long long e, long long end, int col, bool active) {
    Raw<V * EPL, T> r{};
    if (!active) return r;
    if (e + EPL <= end) return load_raw<V * EPL>(a.src + e * a.n_feat + col);
    for (int k = 0; k < EPL; ++k)
        if (e + k < end) *reinterpret_cast<Raw<V, T>*>(&r.v[k * V]) = load_raw<V>(a.src + (e + k) * a.n_feat + col);
    return r;
}
template <int V, int EPL, typename T, typename I>
__device__ __forceinline__ void walk(const Args<T, I>& a, Smem& sm, Walk<V, T>& w, long long t0, long long b0,
                                     long long b1, int col, bool active, bool lead) {
    constexpr int U = SPAN / EPL < 4 ? SPAN / EPL : 4;  // loads in flight per lane (8 measured slower)
    w.row = sm.row(b0 - t0 - 1);
    w.open = !sm.head(b0 - t0);
    for (long long base = b0; base < b1; base += U * EPL) {
        Raw<V * EPL, T> r[U];
        for (int u = 0; u < U; ++u) r[u] = load_src<V, EPL>(a, base + u * EPL, b1, col, active);
        for (int u = 0; u < U; ++u) {
            for (int k = 0; k < EPL && base + u * EPL + k < b1; ++k) {
                const long long e = base + u * EPL + k;
                const unsigned row = sm.row(e - t0);
                if (row != w.row) {  // a run starts here, the one before ends
                    if (e > b0) w.end_run(a, sm, col, active, lead);
                    w.row = row, w.sum = Vec<V>{}, w.n = 0, w.starts = true;
                    if (sm.sorted && active && row != OUT_OF_RANGE)  // fetched now, needed when it ends
                        w.old = load_raw<V>(a.dst + (long long)row * a.n_feat + col);
                }
                for (int i = 0; i < V; ++i) w.sum.v[i] += to_f32(r[u].v[k * V + i]);
                ++w.n;
            }
        }
    }
}

// What a stretch of edges passes on: the sums and edge count since its last run began (all of it if
// none began in it: !starts). a + b: a, then b, whose start cuts a off.
template <int V> struct Part { Vec<V> sum; int n; bool starts; };
template <int V> __device__ __forceinline__ Part<V> operator+(const Part<V>& a, const Part<V>& b) {
    return b.starts ? b : Part<V>{a.sum + b.sum, a.n + b.n, a.starts};
}
template <int V> __device__ __forceinline__ Part<V> shfl_up(const Part<V>& x, int by) {
    Part<V> r{{}, __shfl_up_sync(kAll, x.n, by), (bool)__shfl_up_sync(kAll, (int)x.starts, by)};
    for (int i = 0; i < V; ++i) r.sum.v[i] = __shfl_up_sync(kAll, x.sum.v[i], by);
    return r;
}
// Segmented scan over the block's groups, in a fixed order (deterministic): `part`, this group's, becomes
// the inclusive value (what continues out of the group), `in` the exclusive one (what flows into it).
template <int V> __device__ void scan_groups(Smem& sm, int lanes, Part<V>& part, Part<V>& in) {
    const int lane = threadIdx.x % kWarp, warp = threadIdx.x / kWarp, g = lane / lanes;
    for (int d = 1; d * lanes < kWarp; d *= 2) {
        const Part<V> up = shfl_up(part, d * lanes);
        if (g >= d) part = up + part;
    }
    in = shfl_up(part, lanes);  // the previous group in this warp, inclusive
    if ((g + 1) * lanes == kWarp) {  // the warp's last group
        for (int i = 0; i < V; ++i) sm.warp_sum[warp][lane % lanes][i] = part.sum.v[i];
        if (lane % lanes == 0) sm.warp_n[warp] = part.n, sm.warp_starts[warp] = part.starts;
    }
    __syncthreads();
    Part<V> before{{}, 0, false};  // what the earlier warps pass on, added nearest first
    for (int k = warp - 1; k >= 0 && !before.starts; --k) {
        Part<V> x{{}, sm.warp_n[k], sm.warp_starts[k]};
        for (int i = 0; i < V; ++i) x.sum.v[i] = sm.warp_sum[k][lane % lanes][i];
        before = x + before;
    }
    __syncthreads();  // warp_sum is reused by the next pass
    in = g == 0 ? before : before + in;
    part = before + part;
}

// One pass of a tile over columns [col0, col0 + lanes * V): walk, scan, add or hand on every run. meet
// (sorted, plugin entry): runs crossing tiles go to the pieces p. Returns: a run starts in the group.
template <int V, int EPL, typename T, typename I>
__device__ bool tile_pass(const Args<T, I>& a, Smem& sm, const Pieces& p, bool meet, long long tile, long long t0,
                          long long t1, int span, int lanes, int col0) {
    const int g = threadIdx.x / lanes, col = col0 + (int)(threadIdx.x % lanes) * V;
    const bool active = col < a.n_feat, lead = col == 0;
    const long long b0 = t0 + (long long)g * span, b1 = min(b0 + span, t1);
    Walk<V, T> w;
    if (b0 < b1) {
        walk<V, EPL>(a, sm, w, t0, b0, b1, col, active, lead);
        if (sm.head(b1 - t0)) w.end_run(a, sm, col, active, lead), w.sum = Vec<V>{}, w.n = 0;  // none continues
    }
    auto hand_on = [&](int piece, const Part<V>& x) {  // a piece of a run that crosses tiles
        if (active) *reinterpret_cast<Vec<V>*>(p.sum + (2 * tile + piece) * a.n_feat + col) = x.sum;
        if (lead) p.n[2 * tile + piece] = x.n;
    };
    Part<V> part{w.sum, w.n, w.starts}, in;
    scan_groups<V>(sm, lanes, part, in);
    if (w.first_done) {  // this group holds the last edge of a run that began before its span
        Part<V> first{{}, w.first_n, false};
        for (int i = 0; i < V; ++i) first.sum.v[i] = sm.first[i][threadIdx.x];
        const Part<V> run = in + first;
        if (run.starts || !meet) a.template finish<V>(sm.row(b0 - t0), col, active, lead, sm.sorted && run.starts, run.sum, run.n, nullptr);
        else hand_on(HEAD, run);  // the tile's first run, begun in an earlier tile: see look_back
    }
    if (g == BLOCK / lanes - 1 && !sm.head(t1 - t0)) {  // the tile's last run continues into the next tile
        if (!meet) a.template finish<V>(sm.row(t1 - 1 - t0), col, active, lead, false, part.sum, part.n, nullptr);
        else hand_on(TAIL, part);
    }
    return w.starts;
}
// ---- Tile geometry (kernels/launcher.py: shape computes the same) ---------------------------------
struct Shape {
    int v, epl, lanes, passes, span;  // V, EPL, lanes per group, column passes, edges per group
    __device__ long long edges() const { return (long long)(BLOCK / lanes) * span; }  // per tile
};
// Rows of 2-16 bytes: a lane per row, 16 bytes (EPL rows) per load. Wider rows: the widest vector up to
// WIDE_BYTES dividing the row per lane, up to a warp per group, passes beyond. Long inputs: longer spans
// spread each tile's fixed costs; short ones: shorter spans until there are TARGET_TILES tiles.
template <typename T> __device__ __forceinline__ Shape shape_of(int n_feat, long long n_edges) {
    const int bytes = n_feat * (int)sizeof(T);
    Shape s{1, 1, 1, 1, SPAN};  // n_feat == 0: counts only
    if (n_feat > 0 && bytes <= 16 && 16 % bytes == 0) s = Shape{n_feat, 16 / bytes, 1, 1, SPAN};
    else if (n_feat > 0) {
        int vb = WIDE_BYTES, lanes = 1;
        while (bytes % vb) vb /= 2;
        while (lanes < bytes / vb && lanes < kWarp) lanes *= 2;
        const int walks = n_edges < LONG_EDGES ? 1 : lanes == kWarp ? 8 : min(lanes, 4);
        s = Shape{vb / (int)sizeof(T), 1, lanes, (bytes / vb + lanes - 1) / lanes, SPAN * walks};
    }
    while (s.span > s.epl && s.edges() * TARGET_TILES > n_edges) s.span /= 2;
    return s;
}

// All passes of a tile (an entry holds one (V, EPL); the QDP entry picks at run time). Returns: a run
// starts in this thread's group.
template <int V, int EPL, typename T, typename I>
__device__ bool tile_passes(const Args<T, I>& a, Smem& sm, const Pieces& p, bool meet, long long tile, const Shape& s) {
    const long long t0 = tile * s.edges(), t1 = min(t0 + s.edges(), a.n_edges);
    load_words(a, sm, t0, t1);
    bool starts = false;
    for (int pass = 0; pass < s.passes; ++pass)
        starts |= tile_pass<V, EPL>(a, sm, p, meet, tile, t0, t1, s.span, s.lanes, pass * s.lanes * V);
    return starts;
}
// ---- Runs across tiles, and the plugin's kernel ---------------------------------------------------
struct Control { unsigned long long ticket; unsigned zeroed, unsorted; };  // the memset's zeros
static_assert(sizeof(Control) <= CONTROL_BYTES, "the launcher zeroes CONTROL_BYTES");
// Regions after the control block, each 256-byte aligned (kernels/launcher.py: workspace_size, memset_bytes).
__device__ Pieces pieces_of(unsigned char* ws, long long tiles) {
    unsigned char* n = ws + CONTROL_BYTES + ceil_div(4 * tiles, 256) * 256;
    return Pieces{reinterpret_cast<unsigned*>(ws + CONTROL_BYTES), reinterpret_cast<int*>(n),
                  reinterpret_cast<float*>(n + ceil_div(8 * tiles, 256) * 256)};
}
template <int W> __device__ __forceinline__ Vec<W> load_cg(const float* p) {  // past L1: written by other SMs
    if constexpr (W == 4) { const float4 v = __ldcg(reinterpret_cast<const float4*>(p)); return Vec<W>{{v.x, v.y, v.z, v.w}}; }
    else if constexpr (W == 2) { const float2 v = __ldcg(reinterpret_cast<const float2*>(p)); return Vec<W>{{v.x, v.y}}; }
    else return Vec<W>{{__ldcg(p)}};
}

// This tile's first run began in an earlier tile: find it, the nearest earlier tile whose flag has
// STARTS (every earlier tile holds a lower ticket, so its flag gets set). The row gets the TAIL pieces of
// tiles first .. tile - 1, then this tile's HEAD piece, W columns per thread, summed in fixed stripes
// of tiles and the stripes in order: deterministic, with the whole block's loads in flight (hot rows).
template <int W, typename T, typename I>
__device__ void look_back(const Args<T, I>& a, Smem& sm, const Pieces& p, long long tile) {
    if (threadIdx.x == 0) sm.start = 0, sm.n = __ldcg(p.n + 2 * tile + HEAD);
    __syncthreads();
    for (long long top = tile - 1;; top -= BLOCK) {
        const long long j = top - threadIdx.x;
        unsigned f = 0;
        while (j >= 0 && !((f = load_acquire(p.flag + j)) & READY)) __nanosleep(64);
        if (f & STARTS) atomicMax(&sm.start, (unsigned long long)j + 1);
        if (__syncthreads_or(f & STARTS)) break;  // tile 0 starts a run at edge 0: this ends
    }
    const long long first = (long long)sm.start - 1, F = a.n_feat;
    int n = 0;
    for (long long j = first + threadIdx.x; j < tile; j += BLOCK) n += __ldcg(p.n + 2 * j + TAIL);
    atomicAdd(&sm.n, n);  // integers: any order gives the same count
    for (int u0 = 0; u0 < F / W; u0 += BLOCK) {  // every pass ends with a barrier
        const int cols = min((int)F / W - u0, BLOCK), stripes = BLOCK / cols;
        const int u = u0 + (int)threadIdx.x % cols, stripe = (int)threadIdx.x / cols;
        Vec<W> s{};
#pragma unroll 8
        for (long long j = first + stripe; stripe < stripes && j < tile; j += stripes)
            s = s + load_cg<W>(p.sum + (2 * j + TAIL) * F + u * W);
        for (int i = 0; i < W; ++i) sm.stripe[i][threadIdx.x] = s.v[i];
        __syncthreads();
        if ((int)threadIdx.x < cols) {
            for (int k = 1; k < stripes; ++k)
                for (int i = 0; i < W; ++i) s.v[i] += sm.stripe[i][k * cols + threadIdx.x];
            s = s + load_cg<W>(p.sum + (2 * tile + HEAD) * F + u * W);
            a.template finish<W>(sm.row(0), u * W, true, false, true, s, 0, nullptr);
        }
        __syncthreads();
    }
    __syncthreads();  // every thread's count is in (n_feat may be 0: no pass above)
    if (threadIdx.x == 0 && sm.row(0) != OUT_OF_RANGE) a.counts[sm.row(0)] = sm.n;
}

// The plugin's kernel: the zeroing slices, then the tiles in ticket order (see the header).
template <int V, int EPL, typename T, typename I> __device__ void scatter_add(const Args<T, I>& a, unsigned char* ws) {
    __shared__ Smem sm;
    Control* control = reinterpret_cast<Control*>(ws);
    const Shape shape = shape_of<T>(a.n_feat, a.n_edges);
    const long long tiles = ceil_div(a.n_edges, shape.edges()), slices = ceil_div(max(a.n_nodes, a.n_edges), ZERO_SPAN);
    const Pieces p = pieces_of(ws, tiles);
    bool waited = false;
    for (;;) {
        __syncthreads();  // every thread is done with the last ticket and the tile's shared memory
        if (threadIdx.x == 0) sm.ticket = (long long)atomicAdd(&control->ticket, 1ULL);
        __syncthreads();
        const long long t = sm.ticket, tile = t - slices;
        if (t < slices) {  // 16-byte loads: scalar ones would wait in turn behind the stores to counts
            constexpr int K = 16 / sizeof(I);
            bool down = false;
#pragma unroll 4
            for (long long e = t * ZERO_SPAN + threadIdx.x * K; e < min((t + 1) * ZERO_SPAN, a.n_edges); e += BLOCK * K) {
                const Raw<K, I> keys = load_keys<K>(a.idx, e, a.n_edges);
                for (int k = 0; k < K && e + k + 1 < a.n_edges; ++k) down |= keys.v[k] > (k + 1 < K ? keys.v[k + 1] : a.idx[e + K]);
            }
            for (long long i = t * ZERO_SPAN + threadIdx.x; i < min((t + 1) * ZERO_SPAN, a.n_nodes); i += BLOCK) a.counts[i] = 0;
            down = __syncthreads_or(down);  // a barrier: thread 0's release below covers the block's writes
            if (threadIdx.x == 0 && down) atomicOr(&control->unsorted, 1u);
            if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(&control->zeroed) : "memory");
            continue;
        }
        if (tile >= tiles) return;  // block-uniform
        if (!waited) {  // counts are written, and the order known, from here on
            if (threadIdx.x == 0) {
                while (load_acquire(&control->zeroed) < slices) __nanosleep(64);
                sm.sorted = !__ldcg(&control->unsorted);
            }
            __syncthreads();  // sm.sorted, before any thread reads it (block-uniform: waited is)
            waited = true;
        }
        // A barrier (the pieces are written), then thread 0's release publishes them.
        const bool starts = __syncthreads_or(tile_passes<V, EPL>(a, sm, p, sm.sorted, tile, shape));
        if (!sm.sorted) continue;
        if (threadIdx.x == 0)
            asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p.flag + tile), "r"(READY | (starts ? STARTS : 0u)) : "memory");
        const long long last = min(shape.edges(), a.n_edges - tile * shape.edges());  // the next tile's first edge
        if (sm.head(0) || !(starts || sm.head(last)) || sm.row(0) == OUT_OF_RANGE) continue;  // else a row's run ends
        if (a.n_feat % 4 == 0) look_back<4>(a, sm, p, tile);
        else if (a.n_feat % 2 == 0) look_back<2>(a, sm, p, tile);
        else look_back<1>(a, sm, p, tile);
    }
}

// The QDP route's entry (qdp/aot_kernel.py): ONE kernel, no workspace, no memset (TensorRT's aot_impl).
// Arguments in TensorRT's order: inputs (x, src, idx, counts_in), int32 scalars, outputs (dst, counts):
// output 0 aliases input 0, output 1 input 3 (zeroed by the network's Fill layer). The same tiles in
// any order, every run added atomically (one addition per piece, in varying order). Outputs that are
// not the inputs (aliasing broken) get NaN and -1: a loud wrong answer, not a trap that would leave
// the CUDA context unusable.
template <typename T, typename I> __device__ void scatter_add_aot(const T* x, const Args<T, I>& a, const int* counts_in) {
    __shared__ Smem sm;
    if (a.dst != x || a.counts != counts_in) {
        for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < a.n_nodes * max(a.n_feat, 1); i += (long long)gridDim.x * BLOCK) {
            if (i < a.n_nodes * a.n_feat) a.dst[i] = from_f32<T>(__int_as_float(0x7fc00000));
            if (i < a.n_nodes) a.counts[i] = -1;
        }
        return;
    }
    const Shape s = shape_of<T>(a.n_feat, a.n_edges);
    if (threadIdx.x == 0) sm.sorted = false;
    for (long long tile = blockIdx.x; tile < ceil_div(a.n_edges, s.edges()); tile += gridDim.x) {
        __syncthreads();  // the previous tile's shared memory is no longer read
#define TILE_CASE(V, EPL) case V * 16 + EPL: tile_passes<V, EPL>(a, sm, Pieces{}, false, tile, s); break;
        switch (s.v * 16 + s.epl) { TILE_CASE(1, 1) TILE_CASE(2, 1) TILE_CASE(4, 1) TILE_CASE(1, 4) TILE_CASE(2, 2) }
        if constexpr (sizeof(T) == 2)  // block-uniform; rows of 8 or 16 bytes in 16-bit types only
            switch (s.v * 16 + s.epl) { TILE_CASE(8, 1) TILE_CASE(1, 8) TILE_CASE(2, 4) TILE_CASE(4, 2) }
#undef TILE_CASE
    }
}

#if defined(SCATTER_AOT_NAME)  // compiled alone (qdp/aot_kernel.py passes the name and types): one entry
extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
SCATTER_AOT_NAME(const SCATTER_AOT_T* x, const SCATTER_AOT_T* src, const SCATTER_AOT_I* idx, const int* counts_in,
                 int n_edges, int n_nodes, int n_feat, SCATTER_AOT_T* dst, int* counts) {
    scatter_add_aot(x, Args<SCATTER_AOT_T, SCATTER_AOT_I>{dst, src, idx, counts, n_edges, n_nodes, n_feat}, counts_in);
}
#else  // scatter_add_<type>_<index>_v<V>e<EPL>: the launcher picks the variant shape_of names
#define ENTRY(TN, IN, T, I, V, EPL) extern "C" __global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)                  \
    scatter_add_##TN##_##IN##_v##V##e##EPL(T* dst, const T* src, const I* idx, int* counts, unsigned char* ws,      \
        long long n_edges, long long n_nodes, int n_feat) { scatter_add<V, EPL>(Args<T, I>{dst, src, idx, counts, n_edges, n_nodes, n_feat}, ws); }
#define ENTRIES(TN, IN, T, I) ENTRY(TN, IN, T, I, 1, 1) ENTRY(TN, IN, T, I, 2, 1) ENTRY(TN, IN, T, I, 4, 1) \
    ENTRY(TN, IN, T, I, 1, 4) ENTRY(TN, IN, T, I, 2, 2)
#define ENTRIES_16(TN, IN, T, I) ENTRIES(TN, IN, T, I) ENTRY(TN, IN, T, I, 8, 1) ENTRY(TN, IN, T, I, 1, 8) \
    ENTRY(TN, IN, T, I, 2, 4) ENTRY(TN, IN, T, I, 4, 2)
ENTRIES(f32, i32, float, int) ENTRIES(f32, i64, float, long long)
ENTRIES_16(f16, i32, __half, int) ENTRIES_16(f16, i64, __half, long long)
ENTRIES_16(bf16, i32, __nv_bfloat16, int) ENTRIES_16(bf16, i64, __nv_bfloat16, long long)
#endif
