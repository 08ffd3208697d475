"""Context.memory_snapshot_json: the pool as JSON (a file or a dict) that
agrees with memory_snapshot and memory_stats, and scripts/plot_memory.py
drawing it."""
import json
import os
import subprocess
import sys

import pytest

import ek

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PLOT = os.path.join(REPO, "scripts", "plot_memory.py")


def _fragmented(ctx):
    """Live and cached blocks in two segments; returns the live tensors."""
    ts = [ek.empty(n, dtype=ek.uint8, device=ctx) for n in (300, 100_000, 5000, 3 << 20, 1 << 20)]
    del ts[1], ts[3]
    return ts


def test_file_and_dict_agree_with_snapshot_and_stats(tmp_path):
    ctx = ek.Context("cpu")
    live = _fragmented(ctx)
    path = tmp_path / "snap.json"
    assert ctx.memory_snapshot_json(path) is None
    doc = json.loads(path.read_text())
    assert doc == ctx.memory_snapshot_json()
    assert doc["version"] == 1
    assert doc["device"] == {"type": "cpu", "index": 0, "name": "cpu"}
    assert doc["stats"] == ctx.memory_stats()
    blocks = [b for seg in doc["segments"] for b in seg["blocks"]]
    snap = ctx.memory_snapshot()
    assert len(blocks) == len(snap)
    for b, s in zip(blocks, snap):
        assert (b["address"], b["size"], b["requested"], b["allocated"], b["stream_id"]) == \
            (s["address"], s["size"], s["requested"], s["allocated"], s["stream_id"])
    assert sum(b["size"] for b in blocks if b["allocated"]) == doc["stats"]["allocated_bytes"]
    assert doc["stats"]["fragmentation"] > 0
    del live


def test_unwritable_path_raises_ekioerror_naming_it(tmp_path):
    ctx = ek.Context("cpu")
    bad = tmp_path / "missing" / "snap.json"
    with pytest.raises(ek.EkIOError, match="cannot write .*missing/snap.json: No such file"):
        ctx.memory_snapshot_json(bad)
    assert not (tmp_path / "missing").exists()
    with pytest.raises(ek.InvalidArgumentError, match="path is empty"):
        ctx.memory_snapshot_json("")
    assert isinstance(ek.memory_snapshot_json(), dict)


def test_plot_script_draws_a_png(tmp_path):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.skip("matplotlib is not installed (pip install matplotlib) to run "
                    "scripts/plot_memory.py")
    ctx = ek.Context("cpu")
    s = ek.Stream(ctx)
    live = _fragmented(ctx)
    with s:
        live.append(ek.empty(7000, dtype=ek.uint8, device=ctx))  # a second stream's block
    path, png = tmp_path / "snap.json", tmp_path / "memory.png"
    ctx.memory_snapshot_json(path)
    r = subprocess.run([sys.executable, PLOT, str(path), "-o", str(png)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "memory.png" in r.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 2}')
    r = subprocess.run([sys.executable, PLOT, str(bad), "-o", str(png)],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "version 2" in r.stderr
    del live
