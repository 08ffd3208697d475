#!/usr/bin/env python3
"""Writes the first ```c block after a README heading to a file, so the
snippet users copy is compiled and run as a test (tests/meson.build)."""
import sys

readme, heading, out = sys.argv[1:4]
text = open(readme, encoding="utf-8").read()
start = text.index("```c\n", text.index(heading)) + len("```c\n")
with open(out, "w", encoding="utf-8") as f:
    f.write(text[start:text.index("```\n", start)])
