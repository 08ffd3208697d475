#!/usr/bin/env python3
"""Writes README.md's table of the Python array API standard's functions from
ek.array_api itself (ek.array_api._table), between the array-api-table
markers; --check fails when the README differs. Needs a built libek:
  EK_LIBRARY=build-cpu/libek.so.0 PYTHONPATH=bindings/python scripts/array_api_table.py
Rerun after merging other work: names that wait on ek functions turn to supported."""

import pathlib
import sys

from ek.array_api import _table

BEGIN, END = "<!-- array-api-table:begin -->", "<!-- array-api-table:end -->"


def table() -> str:
    out = ["| Category | Supported | Waits on (not in this ek yet) | Not supported (why) |",
           "|---|---|---|---|"]
    rows = _table.rows()
    for cat, names in _table.CATEGORIES.items():
        got = {n: (s, note) for n, s, note in rows if n in names.split()}
        yes = " ".join(f"`{n}`" for n, (s, _) in got.items() if s == "yes")
        waits = ", ".join(f"`{n}` ({note})" for n, (s, note) in got.items() if s == "waits")
        no = ", ".join(f"`{n}`: {note}" for n, (s, note) in got.items() if s == "no")
        out.append(f"| {cat} | {yes} | {waits} | {no} |")
    n_yes = sum(s == "yes" for _, s, _ in rows)
    out.append(f"\n{n_yes} of the standard's {len(rows)} names supported.")
    return "\n".join(out)


def main() -> int:
    readme = pathlib.Path(__file__).resolve().parent.parent / "README.md"
    text = readme.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{table()}\n{END}{tail}"
    if "--check" in sys.argv[1:]:
        if new != text:
            print("README.md's array API table is stale: run scripts/array_api_table.py")
            return 1
        return 0
    readme.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
