# SPDX-FileCopyrightText: Copyright (c) 2026 The aliased_io_plugin sample authors
# SPDX-License-Identifier: Apache-2.0
# NumPy model of proto.cu span_f1 (MODE 0 with v14 fix-up, and MODE 1) checked against a float64 reference:
# sums, exact counts, and one addition per row on sorted input. python3 sim_logic.py -> "fails 0".
# Logic simulation of proto.cu (try2) span_f1 + v14 fix_up (float64), MODE-agnostic.
import numpy as np
OOR, NONE = 0x7fffffff, 0xffffffff
def simulate(idx, src, N, span, K, scr=False):
    E = len(idx); row = lambda k: int(k) if 0 <= k < N else OOR
    dst = np.zeros(N); cnt = np.zeros(N, dtype=np.int64); adds = np.zeros(N, dtype=np.int64)
    spans = -(-E // span); flags = np.zeros(spans, dtype=np.int64); pieces = {}
    def add_run(p, r, s, n):
        if p: dst[r] += s; cnt[r] += n; adds[r] += 1
    def add_piece(sp, which, r, s, n):
        if r >= OOR: return
        cnt[r] += n; assert (sp, which) not in pieces; pieces[(sp, which)] = s
    for sp in range(spans):
        s0, s1 = sp * span, min(sp * span + span, E)
        last = row(idx[s0 - 1]) if s0 > 0 else NONE; carry, carry_m = 0.0, 0
        for r0 in range(s0, s1, 32 * K):
            R = [[OOR] * K for _ in range(32)]; V = [[0.0] * K for _ in range(32)]
            for l in range(32):
                for j in range(K):
                    e = r0 + l * K + j
                    if e < s1: R[l][j] = row(idx[e]); V[l][j] = src[e]
            before = [last if l == 0 else R[l - 1][K - 1] for l in range(32)]
            st, S, M, H, F = [], [], [], [], []
            for l in range(32):
                starts = 0; tail = 0.0
                for j in range(K):
                    b = R[l][j] != (R[l][j - 1] if j else before[l]); starts |= b << j
                    tail = V[l][j] if b else tail + V[l][j]
                first = (starts & -starts).bit_length() - 1 if starts else K
                lastb = starts.bit_length() - 1 if starts else 0
                head = sum(V[l][j] for j in range(K) if j < first)
                s = tail; m = (K - lastb) << 1 | (starts != 0)
                st.append(starts); S.append(s); M.append(m); H.append(head); F.append(first)
            if not (M[0] & 1): S[0] = carry + S[0]; M[0] += carry_m
            for l in range(1, 32):  # inclusive scan (sequential; same result as the tree in exact arithmetic)
                if not (M[l] & 1): S[l] = S[l - 1] + S[l]; M[l] += M[l - 1]
            for l in range(32):
                inn, in_m = (carry, carry_m) if l == 0 else (S[l - 1], M[l - 1])
                starts, first = st[l], F[l]
                if starts:
                    tot = inn + H[l] if first else inn; n = (in_m >> 1) + first
                    add = before[l] < OOR and n > 0; piece = (not scr) and not (in_m & 1)
                    if add and piece: add_piece(sp, 0, before[l], tot, n)
                    add_run(add and not piece, before[l], tot, n)
                if starts & (starts - 1):
                    q, qn = 0.0, 0
                    for j in range(K):
                        b = (starts >> j) & 1
                        if j: add_run(b and j > first and R[l][j - 1] < OOR, R[l][j - 1], q, qn)
                        q, qn = (V[l][j], 1) if b else (q + V[l][j], qn + 1)
            carry, carry_m = S[31], M[31]; last = R[31][K - 1]
        nxt = row(idx[s1]) if s1 < E else NONE; goes_on = nxt == last; begun = carry_m & 1; n = carry_m >> 1
        if not scr and (goes_on or not begun): add_piece(sp, 1 if begun else 0, last, carry, n)
        else: add_run(last < OOR and n > 0, last, carry, n)
        flags[sp] = 0 if begun else 1
    if scr: return dst, cnt, adds
    crosses = lambda j, r: j < spans and row(idx[j * span]) == r
    for b in range(1, spans):
        r = row(idx[b * span])
        if r == OOR or r != row(idx[b * span - 1]) or flags[b - 1] & 1: continue
        tot = pieces[(b - 1, 1)]; k = b
        while True:
            tot += pieces[(k, 0)]
            if (flags[k] & 1) and crosses(k + 1, r): k += 1
            else: break
        dst[r] += tot; adds[r] += 1
    return dst, cnt, adds
rng = np.random.default_rng(2); fails = 0
for trial in range(500):
    K = [8, 16][trial % 2]; step = 32 * K; span = step * int(rng.integers(1, 4))
    E = int(rng.integers(1, 5 * span)); N = int(rng.integers(1, 80)); mode = trial % 6
    idx = rng.integers(0, N, E)
    if mode == 5: idx = rng.integers(0, max(1, E // 40 + 1), E)  # long runs when sorted
    if mode in (2, 3): idx[rng.random(E) < 0.6] = N // 2
    Nn = max(N, int(idx.max()) + 1) if mode == 5 else N
    bad = rng.random(E) < 0.05; idx[bad] = rng.choice([-1, Nn, Nn + 7], bad.sum())
    if mode in (1, 2, 4, 5): idx = np.sort(idx)
    src = rng.standard_normal(E)
    scr = trial % 4 == 3
    d, c, adds = simulate(idx, src, Nn, span, K, scr)
    v = (idx >= 0) & (idx < Nn); rd = np.zeros(Nn); np.add.at(rd, idx[v], src[v]); rc = np.bincount(idx[v], minlength=Nn)
    ok = np.allclose(d, rd) and np.array_equal(c, rc)
    if mode in (1, 2, 4, 5) and not scr: ok = ok and adds.max(initial=0) <= 1  # sorted: one addition per row
    if not ok: fails += 1; print("FAIL", trial, K, span, E, N, mode, adds.max())
print("fails", fails)
