#!/usr/bin/env python3
"""Draws bench/nccl_bench.py's JSON as a PNG: bus bandwidth against size, one
panel per collective, libek and torch.distributed; with peer_copy.py's JSON
(--peer) a bar panel of the 1 GiB peer copies. Needs matplotlib.

    python3 bench/plot_nccl.py bench/results/nccl-h100x2.json \\
        --peer bench/results/peer-copy-h100x2.json -o bench/results/nccl-h100x2.png
"""
import argparse
import json

MIB = 1 << 20
COLLS = ["all_reduce", "all_gather", "reduce_scatter"]


def size_label(b):
    return f"{b // MIB} MiB" if b < 1 << 30 else f"{b >> 30} GiB"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("json")
    p.add_argument("--peer", default=None)
    p.add_argument("-o", "--output", default="nccl.png")
    a = p.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(a.json) as f:
        doc = json.load(f)
    peer = None
    if a.peer:
        with open(a.peer) as f:
            peer = json.load(f)
    panels = len(COLLS) + (1 if peer else 0)
    fig, axes = plt.subplots(1, panels, figsize=(4.6 * panels, 4.2))
    for ax, coll in zip(axes, COLLS):
        rows = [r for r in doc["rows"] if r["collective"] == coll]
        xs = [r["size_bytes"] for r in rows]
        labels = {"ek": "libek", "ek_nonblocking": "libek (EK_COMM_NONBLOCKING)", "torch": "torch.distributed"}
        for name, style in (("ek", "o-"), ("ek_nonblocking", "^-"), ("torch", "s--")):
            ys = [r[name]["busbw_GBps"] for r in rows if name in r]
            if ys:
                ax.plot(xs[:len(ys)], ys, style, label=labels[name])
        ax.set_xscale("log", base=2)
        ax.set_xticks(xs, [size_label(x) for x in xs], rotation=45, fontsize=8)
        ax.set_title(f"{coll} ({doc['ranks']} GPUs, {doc['dtype']})")
        ax.set_ylabel("bus bandwidth, GB/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if peer:
        ax = axes[-1]
        res = {k: v for k, v in peer["results"].items() if isinstance(v, dict)}
        ax.bar(range(len(res)), [v["GBps"] for v in res.values()], color="#4c72b0")
        ax.set_xticks(range(len(res)), list(res), rotation=30, fontsize=8, ha="right")
        ax.set_title(f"peer copy {size_label(peer['bytes'])} {peer['src']} -> {peer['dst']}")
        ax.set_ylabel("GB/s (median)")
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(a.output, dpi=110)
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
