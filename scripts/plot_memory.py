#!/usr/bin/env python3
"""Draws a libek memory snapshot (the JSON of ek_memory_write_snapshot_json) as a PNG.

Usage::

    python3 scripts/plot_memory.py snapshot.json -o memory.png

Each segment of the pool is a horizontal bar over its address range (x: the
offset within the segment, in MiB); its blocks are coloured by the stream they
belong to when allocated, light grey when cached free. The title carries the
pool's numbers: allocated, reserved, fragmentation. Needs matplotlib.
"""

from __future__ import annotations

import argparse
import json
import sys

MiB = 1 << 20
SHARED_STREAM = (1 << 64) - 1  # blocks destroyed streams left to the pool
FREE_COLOR = "#d9d9d9"


def format_bytes(n: int) -> str:
    """As libek writes sizes: "512 B", "1.50 MiB", "80.00 GiB"."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", MiB), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} B"


def stream_label(stream_id: int) -> str:
    return "shared" if stream_id == SHARED_STREAM else str(stream_id)


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("version") != 1:
        raise ValueError(f"{path}: snapshot version {doc.get('version')} is not 1 "
                         "(this script reads version 1)")
    return doc


def title(doc: dict) -> str:
    dev, st = doc["device"], doc["stats"]
    return (f"{dev['name']} ({dev['type']}:{dev['index']}): allocated "
            f"{format_bytes(st['allocated_bytes'])}, reserved {format_bytes(st['reserved_bytes'])}, "
            f"fragmentation {100 * st['fragmentation']:.1f}%\n"
            f"{st['active_blocks']} live blocks, {st['cached_blocks']} cached free, "
            f"largest free block {format_bytes(st['largest_free_block'])}, "
            f"{st['segments']} segments")


def stream_colors(segments: list) -> dict:
    """One colour per stream that owns an allocated block, in order of appearance."""
    import matplotlib

    cmaps = getattr(matplotlib, "colormaps", None)  # matplotlib >= 3.5
    palette = (cmaps["tab10"] if cmaps else matplotlib.cm.get_cmap("tab10")).colors
    colors = {}
    for seg in segments:
        for b in seg["blocks"]:
            if b["allocated"] and b["stream_id"] not in colors:
                colors[b["stream_id"]] = palette[len(colors) % len(palette)]
    return colors


def draw_segment(ax, y: int, seg: dict, colors: dict) -> None:
    for b in seg["blocks"]:
        left = (b["address"] - seg["address"]) / MiB
        if b["allocated"]:
            # A darker outline keeps neighbours apart and a block of a few
            # bytes visible as a line at MiB scale.
            color = colors[b["stream_id"]]
            edge = tuple(0.6 * c for c in color[:3])
            ax.barh(y, b["size"] / MiB, left=left, height=0.7, color=color, edgecolor=edge,
                    linewidth=0.6)
        else:
            ax.barh(y, b["size"] / MiB, left=left, height=0.7, color=FREE_COLOR, linewidth=0)
    ax.barh(y, seg["size"] / MiB, height=0.7, fill=False, edgecolor="black", linewidth=0.6)


def plot(doc: dict, output: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    segments = doc["segments"]
    height = min(2.2 + 0.35 * max(len(segments), 1), 40)
    fig, ax = plt.subplots(figsize=(11, height))
    colors = stream_colors(segments)
    for y, seg in enumerate(segments):
        draw_segment(ax, y, seg, colors)
    ax.set_yticks(range(len(segments)))
    ax.set_yticklabels([f"{seg['address']:#x}  {format_bytes(seg['size'])}"
                        for seg in segments], fontsize=8)
    ax.invert_yaxis()  # lowest address on top, as ek_memory_get_snapshot lists them
    ax.set_xlabel("offset within the segment (MiB)")
    ax.set_ylabel("segment")
    ax.set_xlim(left=0)
    if not segments:
        ax.text(0.5, 0.5, "no segments: the pool holds no memory", ha="center",
                va="center", transform=ax.transAxes)
    handles = [Patch(color=c, label=f"allocated, stream {stream_label(s)}")
               for s, c in colors.items()]
    handles.append(Patch(color=FREE_COLOR, label="cached free"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    ax.set_title(title(doc), fontsize=10)
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("snapshot", help="JSON written by ek_memory_write_snapshot_json")
    parser.add_argument("-o", "--output", default="memory.png", help="PNG to write")
    args = parser.parse_args(argv)
    try:
        doc = load(args.snapshot)
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_memory: {e}", file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot_memory: needs matplotlib (pip install matplotlib)", file=sys.stderr)
        return 1
    plot(doc, args.output)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
