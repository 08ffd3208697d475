#!/usr/bin/env python3
"""Generate every binding file that follows from include/ek.h.

Usage::

    python3 tools/gen_bindings/gen.py            # (re)write every generated file
    python3 tools/gen_bindings/gen.py --check    # exit 1 with a diff when one is stale
    python3 tools/gen_bindings/gen.py --only python   # one emitter (emit_python.py)

header.py reads the header into one model; each ``emit_<lang>.py`` beside
this file has ``outputs(model) -> {path relative to the repository: text}``.
Outputs depend only on the header and, for Python's type stubs, the Python
package's own sources (no dates, no paths): they are deterministic and
committed, and CI runs ``--check``.
"""

from __future__ import annotations

import argparse
import difflib
import glob
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import header  # noqa: E402


def emitters(only=None):
    names = sorted(os.path.basename(p)[5:-3] for p in glob.glob(os.path.join(HERE, "emit_*.py")))
    if only:
        unknown = set(only) - set(names)
        if unknown:
            raise SystemExit(f"gen.py: no emitter {sorted(unknown)} (have {names})")
        names = [n for n in names if n in only]
    return [(n, importlib.import_module("emit_" + n)) for n in names]


def generated(model, only=None) -> dict:
    files = {}
    for lang, mod in emitters(only):
        for path, text in mod.outputs(model).items():
            if path in files:
                raise SystemExit(f"gen.py: {path} emitted twice (emit_{lang}.py)")
            files[path] = text
    return files


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--header", default=header.DEFAULT_HEADER)
    ap.add_argument("--check", action="store_true",
                    help="exit 1 with a diff when a generated file is not up to date")
    ap.add_argument("--only", action="append", metavar="LANG", help="run one emitter (repeatable)")
    args = ap.parse_args(argv)
    try:
        model = header.parse(args.header)
        files = generated(model, args.only)
    except header.GenError as e:
        print(f"gen.py: {args.header}: {e}", file=sys.stderr)
        return 2
    stale = []
    for rel, new in sorted(files.items()):
        path = os.path.join(header.ROOT, rel)
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except FileNotFoundError:
            old = ""
        if old == new:
            continue
        if args.check:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True),
                fromfile=rel + " (committed)", tofile=rel + " (from ek.h)"))
            stale.append(rel)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    if stale:
        print("\nstale: " + ", ".join(stale) + "; run python3 tools/gen_bindings/gen.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
