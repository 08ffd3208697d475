"""EK_CPU_ISA: every ISA level of the CPU's hot loops gives the same bits
(sums in every layout, exp, softmax), and an unknown level falls back to the
best one. Each level runs in its own process (the level is read once)."""

import os
import subprocess
import sys

import pytest

_CODE = r"""
import hashlib, numpy as np, ek
rng = np.random.default_rng(1)
x = rng.standard_normal((517, 1029), dtype=np.float32) * 30
ex = ek.from_numpy(x)
parts = [ek.sum(ex), ek.sum(ex, 0), ek.sum(ex, 1), ek.mean(ek.from_numpy(x.astype(np.float64)), 0),
         ek.exp(ex), ek.softmax(ex, -1), ek.log_softmax(ex, -1)]
h = hashlib.sha256()
for p in parts:
    h.update(p.numpy().tobytes())
print(h.hexdigest())
"""


def _run(level):
    env = dict(os.environ, EK_CPU_ISA=level)
    r = subprocess.run([sys.executable, "-c", _CODE], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_cpu_isa_levels_give_the_same_bits(device):
    if device != "cpu":
        pytest.skip("the CPU's ISA levels")
    base = _run("baseline")
    for level in ("avx2", "avx512", "not-a-level"):  # one the CPU lacks runs the best it has
        assert _run(level) == base, level
