#!/usr/bin/env python3
"""Draws a libek Chrome trace (ek_profiler_write_chrome_trace) as a PNG
timeline: a row per host thread and per device stream, a bar per call
coloured by op, and a line from each call to the start of its device work.

    python3 scripts/plot_trace.py trace.json -o trace.png [--title TEXT]
"""

import argparse
import json
from collections import defaultdict


def load(path):
    events = json.load(open(path))["traceEvents"]
    processes = {e["pid"]: e["args"]["name"] for e in events
                 if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "thread_name"}
    slices = [e for e in events if e["ph"] == "X"]
    flows = defaultdict(dict)
    for e in events:
        if e["ph"] in ("s", "f"):
            flows[e["id"]][e["ph"]] = e
    return processes, threads, slices, flows


def draw(path, out, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    processes, threads, slices, flows = load(path)
    tracks = sorted({(e["pid"], e["tid"]) for e in slices})
    row = {t: len(tracks) - 1 - i for i, t in enumerate(tracks)}  # host tracks on top
    names = sorted({e["name"] for e in slices})
    cmap = plt.get_cmap("tab20")
    colour = {n: cmap(i % 20) for i, n in enumerate(names)}
    t0 = min(e["ts"] for e in slices)

    fig, ax = plt.subplots(figsize=(14, 1.0 + 0.7 * len(tracks)))
    for e in slices:
        y = row[(e["pid"], e["tid"])]
        ax.barh(y, e["dur"] / 1e3, left=(e["ts"] - t0) / 1e3, height=0.6,
                color=colour[e["name"]], edgecolor="black", linewidth=0.3)
    for pair in flows.values():
        if "s" in pair and "f" in pair:
            s, f = pair["s"], pair["f"]
            ax.plot([(s["ts"] - t0) / 1e3, (f["ts"] - t0) / 1e3],
                    [row[(s["pid"], s["tid"])] - 0.3, row[(f["pid"], f["tid"])] + 0.3],
                    color="grey", linewidth=0.4, alpha=0.6)
    ax.set_yticks([row[t] for t in tracks])
    ax.set_yticklabels([f"{processes.get(t[0], t[0])} / {threads.get(t, t[1])}" for t in tracks])
    ax.set_xlabel("time since the first call (ms)")
    ax.set_title(title or path)
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=colour[n]) for n in names], labels=names,
              loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--title")
    args = ap.parse_args()
    draw(args.trace, args.output, args.title)


if __name__ == "__main__":
    main()
