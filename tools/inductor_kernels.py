"""Collect PyTorch Inductor's Triton kernels on an NVIDIA GPU: torch.compile real workloads and keep what Triton
compiles (TTGIR, PTX, metadata) in a Triton cache folder, for layoutcheck to verify against Triton's own figures.

    python tools/inductor_kernels.py collect --round 1 --budget 400     # on the GPU; TRITON_CACHE_DIR=/tmp/tc
    python tools/inductor_kernels.py index /tmp/tc > index.jsonl        # one line per TTGIR: its metadata.shared

Round 1: pointwise ops, norms, softmax, cross-entropy forward and backward, scans, max-autotune Triton GEMM
templates (persistent TMA on Hopper too), ``_int_mm``, ``_scaled_mm``, flex_attention forward, backward and
decode, a small Llama training step. Round 2: Inductor's tuning options (coordinate descent, autotuned
pointwise, cooperative and non-persistent reductions, combo kernels), conv and GEMM templates with epilogues,
BERT / GPT-2 / ViT / MobileNet training steps, scatter, bucketize, pooling, interpolation. Each workload is
compiled once (errors are logged, not raised), until the time budget runs out. The cache folder's
``<hash>/<kernel>.ttgir`` and ``.json`` are what ``tests/verify/ttgir/inductor/`` holds a sample of
(tests/verify/test_inductor_kernels.py); the 2026-12-07 runs (an H100, PyTorch 2.11, Triton 3.6.0) gave 882
modules (round 1) and 1,242 (round 2).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

LOG: dict[str, str] = {}


def _setup():
    os.environ.setdefault("TRITON_CACHE_DIR", "/tmp/tc")
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", "/tmp/ti")
    os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "0"
    os.environ["TORCHINDUCTOR_AUTOGRAD_CACHE"] = "0"
    import torch._dynamo

    torch._dynamo.config.cache_size_limit = 256
    torch._dynamo.config.accumulated_cache_size_limit = 4096


def _runner(budget: float):
    import torch

    start = time.time()

    def run(name, fn, *args, mode=None, dynamic=False, backward=False, opts=None):
        if time.time() - start > budget:
            LOG[name] = "skipped (time)"
            return
        began = time.time()
        try:
            torch._dynamo.reset()
            out = torch.compile(fn, mode=mode, dynamic=dynamic, options=opts)(*args)
            if backward:
                (out.float().sum() if torch.is_tensor(out) else sum(o.float().sum() for o in out)).backward()
            torch.cuda.synchronize()
            LOG[name] = f"ok {time.time() - began:.1f}s"
        except Exception as e:  # a workload this PyTorch cannot compile: logged, the others go on
            LOG[name] = f"FAIL {type(e).__name__}: {str(e)[:300]}"
        print(name, LOG[name], flush=True)

    return run


def _layer_norm(run, r, name: str, rows: int, cols: int, dtype, **options) -> None:
    """A layer norm over the last dim, forward and backward, with weight and bias."""
    import torch.nn.functional as F

    run(name, lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b), r(rows, cols, dtype=dtype, grad=True),
        r(cols, dtype=dtype, grad=True), r(cols, dtype=dtype, grad=True), backward=True, **options)


def round1(run):
    import torch
    import torch._inductor.config as ic
    import torch.nn.functional as F

    dev = "cuda"

    def r(*shape, dtype=torch.float16, grad=False):
        return torch.randn(*shape, device=dev, dtype=dtype, requires_grad=grad)

    for dt in (torch.float16, torch.bfloat16, torch.float32):
        n = str(dt).split(".")[1]
        run(f"gelu_{n}", lambda x: F.gelu(x) * 2 + 1, r(4096, 1024, dtype=dt))
        run(f"swiglu_{n}", lambda a, b: F.silu(a) * b, r(2048, 2816, dtype=dt), r(2048, 2816, dtype=dt))
        run(f"softmax_last_{n}", lambda x: torch.softmax(x, -1), r(1024, 4096, dtype=dt))
        run(f"softmax_first_{n}", lambda x: torch.softmax(x, 0), r(1024, 512, dtype=dt))
        _layer_norm(run, r, f"layernorm_{n}", 2048, 4096, dt)
        run(
            f"rmsnorm_{n}",
            lambda x, w: x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype) * w,
            r(4096, 2048, dtype=dt, grad=True),
            r(2048, dtype=dt, grad=True),
            backward=True,
        )
        run(f"transpose_add_{n}", lambda x, y: x.t() + y, r(2048, 1024, dtype=dt), r(1024, 2048, dtype=dt))
        run(f"permute3d_{n}", lambda x: x.permute(0, 2, 1).contiguous() * 3, r(16, 512, 768, dtype=dt))
    run(
        "xent_fwd_bwd",
        lambda x, t: F.cross_entropy(x.float(), t),
        r(4096, 32000, dtype=torch.bfloat16, grad=True),
        torch.randint(0, 32000, (4096,), device=dev),
        backward=True,
    )
    run("var_mean", lambda x: torch.var_mean(x, dim=1), r(512, 8192, dtype=torch.float32))
    run("argmax", lambda x: x.argmax(-1), r(1024, 5000, dtype=torch.float32))
    run("cumsum", lambda x: torch.cumsum(x, -1), r(256, 4096, dtype=torch.float32))
    run("cumsum_dim0", lambda x: torch.cumsum(x, 0), r(2048, 64, dtype=torch.float32))
    run("logcumsumexp", lambda x: torch.logcumsumexp(x, -1), r(128, 2048, dtype=torch.float32))
    run("outer_reduce", lambda x: x.sum(0), r(8192, 1024, dtype=torch.float16))
    run("mean_dims", lambda x: x.mean((0, 2)), r(32, 256, 1024, dtype=torch.float32))
    run("amax_int8q", lambda x: (x / (x.abs().amax(-1, keepdim=True) / 127)).round().to(torch.int8), r(4096, 4096))
    run(
        "batchnorm_train",
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        r(64, 256, 28, 28, grad=True),
        r(256, grad=True),
        r(256, grad=True),
        backward=True,
    )
    run(
        "embedding_bwd",
        lambda e, i: F.embedding(i, e),
        r(32000, 1024, dtype=torch.float32, grad=True),
        torch.randint(0, 32000, (8, 512), device=dev),
        backward=True,
    )
    run("dynamic_softmax", lambda x: torch.softmax(x * 2, -1), r(300, 1000), dynamic=True)
    run("dynamic_ln", lambda x: F.layer_norm(x, (x.shape[-1],)), r(333, 777, dtype=torch.float32), dynamic=True)
    run(
        "rope",
        lambda q, c, s: torch.cat([q[..., :64] * c - q[..., 64:] * s, q[..., 64:] * c + q[..., :64] * s], -1),
        r(8, 32, 1024, 128),
        r(1024, 64),
        r(1024, 64),
    )
    run("sort_topk", lambda x: torch.topk(x, 8, -1).values.sum(-1), r(4096, 64, dtype=torch.float32))
    run(
        "gather_scatter",
        lambda x, i: x.gather(1, i) * 2,
        r(1024, 512, dtype=torch.float32),
        torch.randint(0, 512, (1024, 64), device=dev),
    )
    run(
        "index_add",
        lambda x, i, s: x.index_add(0, i, s),
        r(1000, 256, dtype=torch.float32),
        torch.randint(0, 1000, (4096,), device=dev),
        r(4096, 256, dtype=torch.float32),
    )

    # GEMM templates (max-autotune, Triton only), with epilogues; persistent TMA on Hopper
    ic.max_autotune_gemm_backends = "TRITON"
    for tma in (False, True):
        ic.triton.enable_persistent_tma_matmul = tma
        t = "_tma" if tma else ""
        for dt in (torch.float16, torch.bfloat16, torch.float32):
            n = str(dt).split(".")[1]
            run(
                f"mm{t}_{n}",
                lambda a, b: a @ b,
                r(2048, 1024, dtype=dt),
                r(1024, 4096, dtype=dt),
                mode="max-autotune-no-cudagraphs",
            )
        run(
            f"addmm_relu{t}",
            lambda a, b, c: torch.relu(torch.addmm(c, a, b)),
            r(1024, 2048),
            r(2048, 1024),
            r(1024),
            mode="max-autotune-no-cudagraphs",
        )
        run(
            f"bmm{t}", lambda a, b: torch.bmm(a, b), r(16, 512, 256), r(16, 256, 512), mode="max-autotune-no-cudagraphs"
        )
        run(
            f"mm_tn{t}",
            lambda a, b: a.t() @ b,
            r(1024, 2048, dtype=torch.bfloat16),
            r(1024, 512, dtype=torch.bfloat16),
            mode="max-autotune-no-cudagraphs",
        )
        run(f"mm_small{t}", lambda a, b: a @ b, r(64, 4096), r(4096, 64), mode="max-autotune-no-cudagraphs")
    ic.triton.enable_persistent_tma_matmul = False
    run(
        "int_mm",
        lambda a, b: torch._int_mm(a, b),
        torch.randint(-8, 8, (1024, 1024), device=dev, dtype=torch.int8),
        torch.randint(-8, 8, (1024, 1024), device=dev, dtype=torch.int8),
        mode="max-autotune-no-cudagraphs",
    )
    run(
        "scaled_mm",
        lambda a, b, sa, sb: torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16),
        r(1024, 1024).to(torch.float8_e4m3fn),
        r(1024, 1024).to(torch.float8_e4m3fn).t(),
        torch.ones(1024, 1, device=dev),
        torch.ones(1, 1024, device=dev),
        mode="max-autotune-no-cudagraphs",
    )
    # flex attention forward and backward
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        for dt in (torch.float16, torch.bfloat16):
            n = str(dt).split(".")[1]
            for hd in (64, 128):
                bm = create_block_mask(lambda b, h, q, k: q >= k, None, None, 1024, 1024, device=dev)
                q, k, v = (r(2, 8, 1024, hd, dtype=dt, grad=True) for _ in range(3))
                run(
                    f"flex_causal_{n}_{hd}",
                    lambda q, k, v, bm=bm: flex_attention(q, k, v, block_mask=bm),
                    q,
                    k,
                    v,
                    backward=True,
                )
            run(
                f"flex_softcap_{n}",
                lambda q, k, v: flex_attention(q, k, v, score_mod=lambda s, b, h, qi, ki: 30 * torch.tanh(s / 30)),
                *(r(1, 4, 512, 64, dtype=dt, grad=True) for _ in range(3)),
                backward=True,
            )
        run(
            "flex_gqa",
            lambda q, k, v: flex_attention(q, k, v, enable_gqa=True),
            r(1, 8, 512, 64, grad=True),
            r(1, 2, 512, 64, grad=True),
            r(1, 2, 512, 64, grad=True),
            backward=True,
        )
        run(
            "flex_decode",
            lambda q, k, v: flex_attention(q, k, v),
            r(4, 8, 1, 128),
            r(4, 8, 4096, 128),
            r(4, 8, 4096, 128),
        )
    except Exception as e:
        print("flex import", e)
    # small models: a transformer block training step
    try:
        from transformers import LlamaConfig, LlamaForCausalLM

        cfg = LlamaConfig(
            hidden_size=512,
            intermediate_size=1408,
            num_hidden_layers=2,
            num_attention_heads=8,
            num_key_value_heads=4,
            vocab_size=8192,
            max_position_embeddings=1024,
        )
        m = LlamaForCausalLM(cfg).to(dev, torch.bfloat16)
        ids = torch.randint(0, 8192, (2, 512), device=dev)
        run("llama_train", lambda i: m(input_ids=i, labels=i).loss, ids, backward=True)
    except Exception as e:
        print("llama", e)
    try:
        import torchvision

        rn = torchvision.models.resnet18().to(dev).to(memory_format=torch.channels_last)
        run(
            "resnet18_train",
            lambda x: rn(x),
            r(16, 3, 224, 224, dtype=torch.float32, grad=False).to(memory_format=torch.channels_last),
            backward=True,
        )
    except Exception as e:
        print("resnet", e)


def round2(run):
    import torch
    import torch._inductor.config as ic
    import torch.nn.functional as F

    dev = "cuda"

    def r(*shape, dtype=torch.float16, grad=False):
        return torch.randn(*shape, device=dev, dtype=dtype, requires_grad=grad)

    tuned = {"coordinate_descent_tuning": True, "max_autotune_pointwise": True}
    for opts_name, opts in (
        ("cd", tuned),
        ("coop", {"triton.cooperative_reductions": True}),
        ("combo", {"combo_kernels": True}),
        ("persist_off", {"triton.persistent_reductions": False}),
    ):
        for dt in (torch.bfloat16, torch.float32):
            n = str(dt).split(".")[1]
            _layer_norm(run, r, f"{opts_name}_layernorm_{n}", 4096, 2048, dt, opts=opts)
            run(f"{opts_name}_softmax_{n}", lambda x: torch.softmax(x, -1), r(512, 8192, dtype=dt), opts=opts)
            run(f"{opts_name}_sum_outer_{n}", lambda x: x.sum(0), r(16384, 512, dtype=dt), opts=opts)
            run(f"{opts_name}_sum_long_{n}", lambda x: x.sum(-1), r(8, 1 << 20, dtype=dt), opts=opts)
            run(
                f"{opts_name}_gelu_tanh_{n}",
                lambda x, y: F.gelu(x, approximate="tanh") + y.t(),
                r(2048, 2048, dtype=dt),
                r(2048, 2048, dtype=dt),
                opts=opts,
            )
            run(
                f"{opts_name}_multi_out_{n}",
                lambda a, b: (a.sin() + b, a.cos() * b, (a * b).sum(1)),
                r(1024, 1024, dtype=dt),
                r(1024, 1024, dtype=dt),
                opts=opts,
            )
    run(
        "int8_dequant_mm",
        lambda w, s, x: x @ (w.to(torch.bfloat16) * s).t(),
        torch.randint(-8, 8, (2048, 1024), device=dev, dtype=torch.int8),
        r(2048, 1, dtype=torch.bfloat16),
        r(64, 1024, dtype=torch.bfloat16),
        mode="max-autotune-no-cudagraphs",
    )
    ic.max_autotune_gemm_backends = "TRITON"
    run(
        "conv2d_template",
        lambda x, w: F.conv2d(x, w, padding=1),
        r(8, 64, 56, 56).to(memory_format=torch.channels_last),
        r(64, 64, 3, 3).to(memory_format=torch.channels_last),
        mode="max-autotune-no-cudagraphs",
    )
    run(
        "conv1x1_template",
        lambda x, w: F.conv2d(x, w),
        r(8, 256, 28, 28).to(memory_format=torch.channels_last),
        r(128, 256, 1, 1).to(memory_format=torch.channels_last),
        mode="max-autotune-no-cudagraphs",
    )
    run(
        "mm_epilogue_gelu",
        lambda a, b, c: F.gelu(a @ b + c),
        r(1024, 1024),
        r(1024, 4096),
        r(4096),
        mode="max-autotune-no-cudagraphs",
    )
    run(
        "baddbmm",
        lambda a, b, c: torch.baddbmm(c, a, b),
        r(8, 256, 128),
        r(8, 128, 256),
        r(8, 256, 256),
        mode="max-autotune-no-cudagraphs",
    )
    run("mm_dynamic", lambda a, b: a @ b, r(1000, 512), r(512, 768), mode="max-autotune-no-cudagraphs", dynamic=True)
    try:
        from transformers import (
            BertConfig,
            BertForMaskedLM,
            GPT2Config,
            GPT2LMHeadModel,
            T5Config,
            T5ForConditionalGeneration,
        )

        bert = BertForMaskedLM(
            BertConfig(
                hidden_size=256, num_hidden_layers=2, num_attention_heads=4, intermediate_size=1024, vocab_size=8000
            )
        ).to(dev)
        ids = torch.randint(0, 8000, (8, 128), device=dev)
        run("bert_train_fp32", lambda i: bert(input_ids=i, labels=i).loss, ids, backward=True)
        gpt = GPT2LMHeadModel(GPT2Config(n_embd=256, n_layer=2, n_head=4, vocab_size=8000, n_positions=512)).to(
            dev, torch.bfloat16
        )
        run("gpt2_train_bf16", lambda i: gpt(input_ids=i, labels=i).loss, ids, backward=True)
        t5 = T5ForConditionalGeneration(T5Config(d_model=256, d_ff=512, num_layers=2, num_heads=4, vocab_size=8000)).to(
            dev
        )
        run("t5_train_fp32", lambda i: t5(input_ids=i, labels=i).loss, ids, backward=True)
    except Exception as e:
        print("transformers", e)
    try:
        import torchvision

        vit = torchvision.models.VisionTransformer(
            image_size=64, patch_size=8, num_layers=2, num_heads=4, hidden_dim=128, mlp_dim=256, num_classes=10
        ).to(dev)
        run("vit_train", lambda x: vit(x), r(16, 3, 64, 64, dtype=torch.float32), backward=True)
        mb = torchvision.models.mobilenet_v3_small().to(dev).to(memory_format=torch.channels_last)
        run(
            "mobilenet_train",
            lambda x: mb(x),
            r(8, 3, 96, 96, dtype=torch.float32).to(memory_format=torch.channels_last),
            backward=True,
        )
    except Exception as e:
        print("torchvision", e)
    run(
        "group_norm",
        lambda x, w, b: F.group_norm(x, 8, w, b),
        r(16, 64, 32, 32, dtype=torch.float32, grad=True),
        r(64, dtype=torch.float32, grad=True),
        r(64, dtype=torch.float32, grad=True),
        backward=True,
    )
    run(
        "scatter_reduce",
        lambda x, i: torch.zeros(1000, 64, device=dev).scatter_reduce(0, i, x, "amax"),
        r(4096, 64, dtype=torch.float32),
        torch.randint(0, 1000, (4096, 64), device=dev),
    )
    run(
        "bucketize_hist",
        lambda x, b: torch.bucketize(x, b).bincount(minlength=65),
        r(1 << 16, dtype=torch.float32),
        torch.linspace(-3, 3, 64, device=dev),
    )
    run(
        "max_pool_bwd",
        lambda x: F.max_pool2d(x, 3, 2, 1),
        r(8, 64, 56, 56, dtype=torch.float32, grad=True),
        backward=True,
    )
    run(
        "interp_bilinear",
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
        r(8, 32, 64, 64, dtype=torch.float32, grad=True),
        backward=True,
    )
    run(
        "complex_rope",
        lambda q, f: torch.view_as_real(torch.view_as_complex(q.float().reshape(*q.shape[:-1], -1, 2)) * f).flatten(-2),
        r(2, 512, 8, 64),
        torch.polar(torch.ones(512, 1, 32, device=dev), torch.randn(512, 1, 32, device=dev)),
    )


def _target(target) -> str:
    """Triton's metadata target ({'backend': 'cuda', 'arch': 90, ...}) as layoutcheck's module attribute spells it."""
    if isinstance(target, dict):
        return f"{target.get('backend')}:{target.get('arch')}"
    return str(target)


def index(cache: str) -> list[dict]:
    """One entry per TTGIR of a Triton cache folder: its path (relative to the folder), Triton's metadata.shared
    and target."""
    out = []
    for path in sorted(glob.glob(os.path.join(cache, "*", "*.ttgir"))):
        with open(path[: -len(".ttgir")] + ".json") as f:
            meta = json.load(f)
        out.append(
            {"file": os.path.relpath(path, cache), "shared": meta["shared"], "target": _target(meta.get("target"))}
        )
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="on the GPU: compile the workloads of a round")
    c.add_argument("--round", type=int, choices=(1, 2), default=1)
    c.add_argument("--budget", type=float, default=400.0, help="seconds; workloads past it are skipped")
    c.add_argument("--log", default="/tmp/inductor_log.json")
    i = sub.add_parser("index", help="index.jsonl lines of a Triton cache folder")
    i.add_argument("cache")
    args = ap.parse_args(argv)
    if args.cmd == "index":
        for entry in index(args.cache):
            print(json.dumps(entry))
        return 0
    _setup()
    (round1 if args.round == 1 else round2)(_runner(args.budget))
    with open(args.log, "w") as f:
        json.dump(LOG, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
