#!/usr/bin/env python3
"""Check that every function of include/ek.h is reachable from each binding.

A function counts as bound in a language when that binding's library sources
(tests excluded) call it: Python ``lib.ek_x`` / ``"ek_x"`` (anything but the
declarations in _ffi.py), Rust ``sys::ek_x``, Go ``C.ek_x`` or a shim ``ekgo_[op_|into_]ek_x``
called from a .go file (the shim header alone does not count), C++ ``ek_x(`` in include/ek.hpp. Functions a binding leaves
out on purpose are listed in bindings/coverage-exclusions.txt as
``<lang> <function> <reason>``; an entry without a reason, for a function the
header lacks, or for one the binding does bind, is an error too.

    python3 tools/gen_bindings/coverage.py        # report; exit 1 on any gap
"""

from __future__ import annotations

import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import header  # noqa: E402

ROOT = header.ROOT
EXCLUSIONS = os.path.join(ROOT, "bindings", "coverage-exclusions.txt")

# language -> (source globs, files to skip, pattern whose group 1 is the function)
LANGUAGES = {
    "python": (["bindings/python/ek/*.py"], {"_ffi.py"}, r"\b(ek_\w+)\b"),
    "rust": (["bindings/rust/ek/src/**/*.rs"], set(), r"\bsys::(ek_\w+)\b"),
    # Go code, not the shim header: a shim no Go function calls is unreachable.
    "go": (["bindings/go/*.go"], set(), r"\bekgo_(?:[a-z]+_)??(ek_\w+)\b|\bC\.(ek_\w+)\b"),
    "cpp": (["include/ek.hpp"], set(), r"\b(ek_\w+)\s*\("),
}


def referenced(lang: str) -> set:
    globs, skip, pattern = LANGUAGES[lang]
    names = set()
    for g in globs:
        for path in glob.glob(os.path.join(ROOT, g), recursive=True):
            base = os.path.basename(path)
            if base in skip or base.endswith("_test.go"):
                continue
            with open(path, encoding="utf-8") as f:
                for m in re.finditer(pattern, f.read()):
                    names.update(x for x in m.groups() if x)
    return names


def exclusions() -> tuple:
    """{lang: {function: reason}} and a list of malformed lines."""
    out, bad = {lang: {} for lang in LANGUAGES}, []
    if not os.path.exists(EXCLUSIONS):
        return out, bad
    with open(EXCLUSIONS, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) < 3 or parts[0] not in LANGUAGES:
                bad.append(f"{EXCLUSIONS}:{n}: expected '<lang> <function> <reason>': {line!r}")
                continue
            out[parts[0]][parts[1]] = parts[2]
    return out, bad


def main() -> int:
    model = header.parse()
    functions = {f.name for f in model.functions}
    excluded, errors = exclusions()
    for lang in LANGUAGES:
        bound = referenced(lang) & functions
        unbound = sorted(functions - bound - set(excluded[lang]))
        for name, reason in sorted(excluded[lang].items()):
            if name not in functions:
                errors.append(f"{lang}: excluded {name} is not a function of ek.h")
            elif name in bound:
                errors.append(f"{lang}: {name} is bound; drop its exclusion")
        print(f"{lang}: {len(bound)} of {len(functions)} functions bound, "
              f"{len(excluded[lang])} excluded, {len(unbound)} unbound")
        errors += [f"{lang}: {name} is not bound (bind it or exclude it with a reason)"
                   for name in unbound]
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
