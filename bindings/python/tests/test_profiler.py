"""ek.profile: records, summary and Chrome trace through the binding."""

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import ek


def test_records_name_each_op_with_its_tensors(device):
    a = ek.ones((64, 32), device=device)
    b = ek.ones((32, 8), device=device)
    with ek.profile(device) as prof:
        c = (a @ b).softmax(dim=-1).sum()
    recs = prof.records()
    assert [r.name for r in recs] == ["matmul", "softmax", "reduce.sum"]
    assert recs[0].args == "float32[64,32] float32[32,8] -> float32[64,8]"
    where = ek.context(device).device  # "cpu" or "cuda:0"
    assert all(r.device == where and r.device_us >= 0 and r.host_us >= 0 for r in recs)
    assert float(c.item()) == pytest.approx(64.0)


def test_summary_and_chrome_trace(device, tmp_path):
    x = ek.arange(1000, dtype=ek.float32, device=device)
    prof = ek.Profiler(device)
    prof.start()
    for _ in range(3):
        x.exp()
    prof.stop()
    table = prof.summary()
    row = next(line for line in table.splitlines() if line.startswith("unary.exp "))
    assert row.split()[1] == "3"
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(path)
    trace = json.loads(path.read_text())  # valid JSON
    calls = [e for e in trace["traceEvents"] if e.get("cat") == "call"]
    device_slices = [e for e in trace["traceEvents"] if e.get("cat") == "device"]
    assert [e["name"] for e in calls] == ["unary.exp"] * 3
    assert len(device_slices) == 3
    assert all(e["args"]["tensors"] == "float32[1000] -> float32[1000]" for e in calls)


def test_reading_while_running_and_double_start_raise(device):
    prof = ek.Profiler(device).start()
    try:
        with pytest.raises(ek.NotReadyError, match="ek_profiler_stop"):
            prof.records()
        with pytest.raises(ek.InvalidArgumentError, match="already running"):
            prof.start()
    finally:
        prof.stop()
    with pytest.raises(ek.InvalidArgumentError, match="not running"):
        prof.stop()


def test_threads_each_get_their_own_track(device):
    x = ek.ones(256, device=device)
    with ek.profile(device) as prof:
        def work():
            with ek.Stream(device):
                for _ in range(20):
                    x.relu()
        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ek.synchronize(device)
    recs = prof.records()
    assert len(recs) == 60
    assert len({r.thread_id for r in recs}) == 3
    assert len({r.stream_id for r in recs}) == 3


def test_plot_trace_script_draws_a_png(tmp_path):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.skip("matplotlib is not installed (pip install matplotlib) to run "
                    "scripts/plot_trace.py")
    x = ek.ones(4096)
    with ek.profile("cpu") as prof:
        (x * 2).exp().sum()
    trace, png = tmp_path / "trace.json", tmp_path / "trace.png"
    prof.export_chrome_trace(trace)
    script = Path(__file__).resolve().parents[3] / "scripts" / "plot_trace.py"
    subprocess.run([sys.executable, str(script), str(trace), "-o", str(png)], check=True)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
