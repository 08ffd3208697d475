#!/usr/bin/env python3
"""Before/after table of two or more bench_ops (or bench_fused) outputs of one
machine: each op's median time in every run and the ratio of the best 'after'
to the best 'before' (>1: the change is faster). Runs alternate before/after
in the same call so clock drift hits both sides.

usage: compare_runs.py --before LOG [LOG...] --after LOG [LOG...] [--md OUT]
"""
import argparse
import re
import sys

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}
TIME = re.compile(r"^(?P<value>[0-9.]+)\s*(?P<unit>us|ms|s)\b")
NUMBER = re.compile(r"^[0-9.]+(\s|$)")


def row(line):
    """(name, ms) of a table row whose first timed cell is its median: the
    name is the text cells before it (op, impl), numbers such as bytes left out."""
    if not line.startswith("|"):
        return None
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    for i, cell in enumerate(cells):
        m = TIME.match(cell)
        if m:
            name = " | ".join(c for c in cells[:i] if c and not NUMBER.match(c))
            return (name, float(m["value"]) * UNITS[m["unit"]]) if name else None
    return None


def medians(path):
    """{op name: median in ms} from the table rows of one log."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = row(line)
            if r:
                out[r[0]] = r[1]
    return out


def best(runs, name):
    values = [r[name] for r in runs if name in r]
    return min(values) if values else None


def table(before, after):
    names = [n for n in before[0] if all(n in r for r in before + after)]
    lines = ["| op | before (ms) | after (ms) | before / after |", "|---|---|---|---|"]
    worst = None
    for n in names:
        b, a = best(before, n), best(after, n)
        ratio = b / a if a else float("inf")
        worst = ratio if worst is None else min(worst, ratio)
        lines.append(f"| {n} | {b:.4f} | {a:.4f} | {ratio:.3f} |")
    lines.append(f"\nslowest op: {worst:.3f}x of before" if worst is not None else "\nno common rows")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", nargs="+", required=True)
    p.add_argument("--after", nargs="+", required=True)
    p.add_argument("--md")
    a = p.parse_args()
    text = table([medians(x) for x in a.before], [medians(x) for x in a.after])
    print(text)
    if a.md:
        with open(a.md, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
