#!/usr/bin/env python3
"""Micro-benchmarks that anchor aicost's per-generation efficiency profile (data/efficiency.yaml)
on a real GPU: bf16 and fp8 GEMM throughput against the GEMM dimensions (gemm_max,
gemm_half_dim, fp8_gemm_relative), decode-shaped GEMMs against HBM bandwidth
(serving_decode_bandwidth), FlashAttention-style causal attention (attention_flash), and plain HBM
copy bandwidth (memory_bound).

Usage (on the GPU machine): python3 tools/calibration/hopper_microbench.py OUT.csv
Prints one CSV row per measurement: kind, dtype, m, n, k, seconds, tflops, gbytes_per_s.
Each figure is the median of 10 replays of a CUDA graph of the calls (CUDA events), random data.
"""
import csv
import statistics
import sys

import torch


def timed(fns, runs=10):
    """Seconds per call of the callables in `fns`, called in turn. They are captured in one CUDA
    graph and replayed, so the time is the GPU's, not the launch overhead of eager PyTorch (which
    measured ~50 us per call on this machine, above a decode GEMM's own time)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for f in fns:
            f()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for f in fns:
            f()
    graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        graph.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3 / len(fns))
    del graph
    return statistics.median(times)


def gemm(rows, dtype, m, n, k):
    # Enough weight copies to stream >= 256 MB per pass, so L2 (50 MB) cannot serve them; at least
    # 4 calls per pass.
    elem = 1 if dtype == "fp8" else 2
    copies = max(4, -(-256 * 2**20 // (n * k * elem)))
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    ws = [torch.randn(n, k, device="cuda", dtype=torch.bfloat16) for _ in range(min(copies, 64))]
    outs = []
    if dtype == "fp8":
        x8 = x.to(torch.float8_e4m3fn)
        w8s = [w.to(torch.float8_e4m3fn) for w in ws]
        del ws
        one = torch.tensor(1.0, device="cuda")
        # _scaled_mm wants the second operand column-major: w.t() of a row-major (n, k) is that.
        fns = [lambda w=w: torch._scaled_mm(x8, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
               for w in w8s]
    else:
        fns = [lambda w=w: torch.matmul(x, w.t()) for w in ws]
    s = timed(fns)
    flops = 2.0 * m * n * k
    bytes_moved = elem * (m * k + n * k) + 2 * m * n
    rows.append(["gemm", dtype, m, n, k, s, flops / s / 1e12, bytes_moved / s / 1e9])
    torch.cuda.empty_cache()


def attention(rows, seq, heads=64, kv_heads=8, head_dim=128):
    import torch.nn.functional as F
    q = torch.randn(1, heads, seq, head_dim, device="cuda", dtype=torch.bfloat16)
    kv = torch.randn(1, kv_heads, seq, head_dim, device="cuda", dtype=torch.bfloat16)
    k = kv.repeat_interleave(heads // kv_heads, dim=1)
    v = k.clone()
    s = timed([lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True)] * 4)
    flops = 4.0 * seq * seq * heads * head_dim / 2  # causal: half the score matrix
    rows.append(["attention_causal_fwd", "bf16", seq, heads, head_dim, s, flops / s / 1e12, 0.0])


def copy_bandwidth(rows, gib=8):
    n = gib * (1 << 30) // 2
    a = torch.empty(n, device="cuda", dtype=torch.bfloat16)
    b = torch.empty_like(a)
    s = timed([lambda: b.copy_(a)] * 4)
    rows.append(["copy", "bf16", n, 0, 0, s, 0.0, 2 * a.numel() * 2 / s / 1e9])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "microbench.csv"
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = []
    print(torch.cuda.get_device_name(), torch.__version__, flush=True)
    copy_bandwidth(rows)
    for d in (256, 512, 1024, 2048, 4096, 8192, 16384):
        gemm(rows, "bf16", d, d, d)
    for d in (1024, 4096, 8192, 16384):
        gemm(rows, "fp8", d, d, d)
    # Llama-3-70B layer GEMMs at TP 8 (QKV, O, gate+up, down) and Llama-3-8B at TP 1, against
    # the token count m (decode batch or prefill tokens).
    shapes = {"70b-tp8": [(1280, 8192), (8192, 1024), (7168, 8192), (8192, 3584)],
              "8b-tp1": [(6144, 4096), (4096, 4096), (28672, 4096), (4096, 14336)]}
    for name, mats in shapes.items():
        for m in (1, 4, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384):
            for n, k in mats:
                gemm(rows, "bf16", m, n, k)
        for m in (1, 64, 1024, 8192):
            for n, k in mats:
                gemm(rows, "fp8", m, n, k)
    for seq in (512, 1024, 2048, 4096, 8192, 16384):
        attention(rows, seq)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kind", "dtype", "m", "n", "k", "seconds", "tflops", "gbytes_per_s"])
        for r in rows:
            w.writerow([r[0], r[1], r[2], r[3], r[4], f"{r[5]:.9f}", f"{r[6]:.2f}", f"{r[7]:.1f}"])
    for r in rows:
        print(",".join(str(x) if not isinstance(x, float) else f"{x:.4g}" for x in r))


if __name__ == "__main__":
    main()
