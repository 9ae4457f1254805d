"""Kernels in the style of popular Triton libraries (LLM training kernels, linear attention, operator libraries,
quantized GEMMs): fused norms, cross-entropy, rotary embeddings, MoE routing, chunked attention, int4 GEMM.
Written here from the ideas, not copied; small tiles so every target compiles them."""

import triton
import triton.language as tl

from corpus_kernels import case


@triton.jit
def rms_norm_residual(x_ptr, r_ptr, w_ptr, y_ptr, res_out_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    """y = rmsnorm(x + r) * w, and x + r written back (the fused-add variant)."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row * N + offs, mask=mask, other=0.0).to(tl.float32)
    h = x + r
    tl.store(res_out_ptr + row * N + offs, h.to(tl.float16), mask=mask)
    rstd = 1.0 / tl.sqrt(tl.sum(h * h, axis=0) / N + 1e-6)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + offs, (h * rstd * w).to(tl.float16), mask=mask)


@triton.jit
def cross_entropy_rows(logits_ptr, target_ptr, loss_ptr, V, BM: tl.constexpr, BV: tl.constexpr):
    """Online log-sum-exp over vocabulary chunks, a tile of rows at a time, and the target's logit picked out."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    tgt = tl.load(target_ptr + rows)
    m = tl.full((BM,), float("-inf"), tl.float32)
    s = tl.zeros((BM,), tl.float32)
    picked = tl.zeros((BM,), tl.float32)
    for v0 in range(0, V, BV):
        cols = v0 + tl.arange(0, BV)
        x = tl.load(logits_ptr + rows[:, None] * V + cols[None, :], mask=cols[None, :] < V,
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=1))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new[:, None]), axis=1)
        m = m_new
        picked += tl.sum(tl.where(cols[None, :] == tgt[:, None], x, 0.0), axis=1)
    tl.store(loss_ptr + rows, m + tl.log(s) - picked)


@triton.jit
def rope_interleaved(q_ptr, cos_ptr, sin_ptr, out_ptr, S: tl.constexpr, D: tl.constexpr):
    """Rotary embedding on interleaved pairs: split the head dim into (even, odd), rotate, join back."""
    s = tl.arange(0, S)[:, None]
    d = tl.arange(0, D)[None, :]
    q = tl.load(q_ptr + s * D + d)
    pairs = tl.reshape(q, (S, D // 2, 2))
    even, odd = tl.split(pairs)
    h = tl.arange(0, D // 2)[None, :]
    c = tl.load(cos_ptr + s * (D // 2) + h)
    sn = tl.load(sin_ptr + s * (D // 2) + h)
    out = tl.join(even * c - odd * sn, even * sn + odd * c)
    tl.store(out_ptr + s * D + d, tl.reshape(out, (S, D)))


@triton.jit
def moe_route(logits_ptr, expert_ptr, weight_ptr, counts_ptr, T: tl.constexpr, E: tl.constexpr):
    """Top-1 routing: softmax over experts, argmax, a histogram of tokens per expert, counts added atomically."""
    t = tl.arange(0, T)[:, None]
    e = tl.arange(0, E)[None, :]
    x = tl.load(logits_ptr + t * E + e).to(tl.float32)
    p = tl.exp(x - tl.max(x, axis=1)[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    best = tl.argmax(p, axis=1)
    tl.store(expert_ptr + tl.arange(0, T), best)
    tl.store(weight_ptr + tl.arange(0, T), tl.max(p, axis=1))
    hist = tl.histogram(best, E)
    tl.atomic_add(counts_ptr + tl.arange(0, E), hist)
    order = tl.sort(best.to(tl.int32))
    tl.store(expert_ptr + T + tl.arange(0, T), order)


@triton.jit
def chunked_linear_attention(q_ptr, k_ptr, v_ptr, o_ptr, NC: tl.constexpr, C: tl.constexpr, D: tl.constexpr):
    """Chunked causal linear attention: inside a chunk a masked q k^T v, across chunks a running state k^T v;
    the decay of each row is a cumulative sum."""
    c = tl.arange(0, C)
    d = tl.arange(0, D)
    state = tl.zeros((D, D), tl.float32)
    for i in range(NC):
        base = i * C * D
        q = tl.load(q_ptr + base + c[:, None] * D + d[None, :])
        k = tl.load(k_ptr + base + c[:, None] * D + d[None, :])
        v = tl.load(v_ptr + base + c[:, None] * D + d[None, :])
        g = tl.cumsum(tl.full((C,), 0.1, tl.float32), axis=0)
        scores = tl.dot(q, tl.trans(k)) * tl.exp(g[:, None] - g[None, :])
        scores = tl.where(c[:, None] >= c[None, :], scores, 0.0)
        o = tl.dot(scores.to(tl.float16), v) + tl.dot(q, state.to(tl.float16))
        state += tl.dot(tl.trans(k), v)
        tl.store(o_ptr + base + c[:, None] * D + d[None, :], o.to(tl.float16))


@triton.jit
def int4_gemm(a_ptr, b_ptr, scale_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A (fp16) x B (int4, two per byte along K) with a scale per output column: B unpacked with shifts,
    joined, permuted and reshaped into the dot operand."""
    m = tl.arange(0, BM)
    n = tl.arange(0, BN)
    kk = tl.arange(0, BK)
    kh = tl.arange(0, BK // 2)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + m[:, None] * K + (k0 + kk)[None, :])
        packed = tl.load(b_ptr + (k0 // 2 + kh)[:, None] * BN + n[None, :])
        lo = (packed & 0xF).to(tl.int8) - 8
        hi = ((packed >> 4) & 0xF).to(tl.int8) - 8
        b = tl.join(lo, hi)                        # [BK/2, BN, 2]
        b = tl.permute(b, (0, 2, 1))               # [BK/2, 2, BN]
        b = tl.reshape(b, (BK, BN)).to(tl.float16)
        acc = tl.dot(a, b, acc)
    scale = tl.load(scale_ptr + n)
    tl.store(c_ptr + m[:, None] * BN + n[None, :], (acc * scale[None, :]).to(tl.float16))


def _ptrs(**kw):
    return dict(kw)


CASES = [
    case("lib_rms_norm_residual", rms_norm_residual,
         _ptrs(x_ptr="*fp16", r_ptr="*fp16", w_ptr="*fp32", y_ptr="*fp16", res_out_ptr="*fp16"),
         {"N": 1000, "BLOCK": 1024}, doc="fused add + RMSNorm (a row per program, masked)", num_warps=8),
    case("lib_cross_entropy", cross_entropy_rows, _ptrs(logits_ptr="*fp16", target_ptr="*i32", loss_ptr="*fp32",
                                                        V="i32"),
         {"BM": 16, "BV": 256}, doc="online logsumexp over vocabulary chunks"),
    case("lib_rope", rope_interleaved, _ptrs(q_ptr="*fp32", cos_ptr="*fp32", sin_ptr="*fp32", out_ptr="*fp32"),
         {"S": 32, "D": 64}, doc="rotary embedding: reshape, split, join"),
    case("lib_moe_route", moe_route, _ptrs(logits_ptr="*fp16", expert_ptr="*i32", weight_ptr="*fp32",
                                           counts_ptr="*i32"),
         {"T": 128, "E": 16}, doc="top-1 MoE routing: softmax, argmax, histogram, atomic counts, sort"),
    case("lib_chunked_attention", chunked_linear_attention, _ptrs(q_ptr="*fp16", k_ptr="*fp16", v_ptr="*fp16",
                                                                  o_ptr="*fp16"),
         {"NC": 4, "C": 64, "D": 64}, doc="chunked linear attention: four dots and a cumsum per chunk"),
    case("lib_int4_gemm", int4_gemm, _ptrs(a_ptr="*fp16", b_ptr="*i8", scale_ptr="*fp16", c_ptr="*fp16", K="i32"),
         {"BM": 64, "BN": 64, "BK": 64}, doc="int4 weights unpacked with join/permute/reshape into a dot"),
]
