"""ek.distributed: argument checks, the NCCL-missing path and the launcher on
any machine; collectives on every GPU of the machine (one process per GPU via
the launcher, and Communicator.init_all in one process) when EK_TEST_DEVICE
covers cuda and there are >= 2 CUDA devices."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ek
import ek.distributed as dist

_SEL = os.environ.get("EK_TEST_DEVICE", "cpu").lower()
_ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))


def _nccl_present() -> bool:
    try:
        dist.get_unique_id()
        return True
    except ek.LibraryError:
        return False


def _gpus(need: int) -> int:
    if _SEL not in ("cuda", "all"):
        pytest.skip("CUDA tests not requested (set EK_TEST_DEVICE=cuda or all)")
    n = ek.device_count("cuda")
    if n < need:
        if os.environ.get("EK_REQUIRE_GPU") == "1" and n == 0:
            pytest.fail("EK_REQUIRE_GPU=1 but no CUDA device is available")
        pytest.skip(f"needs {need} CUDA devices, found {n}")
    return n


def _launch(tmp_path, body: str, nproc: int, timeout=300):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(body))
    return subprocess.run([sys.executable, "-m", "ek.distributed.launch", "--nproc-per-node",
                           str(nproc), str(script)], env=_ENV, capture_output=True, text=True,
                          timeout=timeout)


def test_reduce_op_values():
    assert [int(o) for o in dist.ReduceOp] == [0, 1, 2, 3, 4]
    assert dist.ReduceOp.AVG == ek._ffi.EK_REDUCE_MEAN


def test_cpu_device_is_not_supported():
    uid = bytes(128)
    with pytest.raises(ek.NotSupportedError, match="ctx is a CPU context"):
        dist.Communicator("cpu", 1, uid, 0)


def test_bad_arguments():
    with pytest.raises(ek.InvalidArgumentError, match="must be 128 bytes"):
        dist.Communicator("cpu", 1, b"short", 0)
    with pytest.raises(ek.InvalidArgumentError, match="timeout must be > 0"):
        dist.Communicator("cpu", 1, bytes(128), 0, timeout=-1)
    with pytest.raises(RuntimeError, match="init_process_group"):
        dist.get_rank()


def test_nccl_missing():
    code = textwrap.dedent("""
        import ek, ek.distributed as dist
        try:
            dist.get_unique_id()
        except ek.LibraryError as e:
            assert "NCCL not found (" in str(e) and "/nonexistent/libnccl.so.2" in str(e), e
            print("ok")
    """)
    env = dict(_ENV, EK_NCCL_LIBRARY="/nonexistent/libnccl.so.2")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_launcher_sets_the_environment(tmp_path):
    if not _nccl_present():
        pytest.skip("NCCL not found: the launcher cannot make a unique id")
    r = _launch(tmp_path, """
        import os, stat, ek.distributed as dist
        d = os.path.dirname(os.environ["EK_COMM_ID_FILE"])
        assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
        assert len(dist.read_unique_id()) == 128
        line = " ".join(["rank", os.environ["EK_RANK"], os.environ["EK_WORLD_SIZE"],
                         os.environ["EK_LOCAL_RANK"]])
        os.write(1, (line + "\\n").encode())  # one write: lines of ranks never interleave
    """, 3)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split("\n"))[1:] == ["rank 0 3 0", "rank 1 3 1", "rank 2 3 2"]


def test_launcher_propagates_a_failure(tmp_path):
    if not _nccl_present():
        pytest.skip("NCCL not found: the launcher cannot make a unique id")
    r = _launch(tmp_path, """
        import os, sys, time
        if os.environ["EK_RANK"] == "1":
            sys.exit(3)
        time.sleep(60)  # terminated by the launcher
    """, 2, timeout=30)
    assert r.returncode == 3


_COLLECTIVES = """
    import numpy as np, ek, ek.distributed as dist
    comm = dist.init_process_group(timeout=120)
    r, n, dev = dist.get_rank(), dist.get_world_size(), dist.device()
    for dt in ["float32", "bfloat16", "float16", "float64", "int32", "int64", "uint8", "int8"]:
        base = np.arange(6, dtype=np.float64) % 3 + 1
        x = ek.tensor((base + r).tolist(), dtype=dt, device=dev)
        dist.all_reduce(x)
        want = base * n + n * (n - 1) / 2
        assert np.allclose(x.astype(ek.float64).numpy(), want, rtol=1e-2), dt
        m = ek.tensor((base * n).tolist(), dtype=dt, device=dev)
        dist.all_reduce(m, dist.ReduceOp.AVG)
        assert np.allclose(m.astype(ek.float64).numpy(), base * n, rtol=1e-2), dt
        g = dist.all_gather(ek.tensor([float(r)] * 3, dtype=dt, device=dev))
        assert g.shape == (n, 3) and np.allclose(g.astype(ek.float64).numpy()[:, 0], np.arange(n))
    y = ek.tensor([[float(r * 10 + q) for q in range(2)] for _ in range(n)], dtype="float32", device=dev)
    out = ek.zeros((2,), dtype="float32", device=dev)
    dist.reduce_scatter_tensor(out, y, dist.ReduceOp.MAX)
    assert np.allclose(out.numpy(), [(n - 1) * 10, (n - 1) * 10 + 1]), out.numpy()
    b = ek.tensor([float(r)] * 4, dtype="float32", device=dev)
    dist.broadcast(b, src=n - 1)
    assert np.allclose(b.numpy(), n - 1)
    a2a_in = ek.tensor([[float(r * 100 + q)] for q in range(n)], dtype="float32", device=dev)
    a2a_out = ek.zeros((n, 1), dtype="float32", device=dev)
    dist.all_to_all_single(a2a_out, a2a_in)
    assert np.allclose(a2a_out.numpy()[:, 0], [q * 100 + r for q in range(n)]), a2a_out.numpy()
    with dist.group():
        dist.send(ek.tensor([float(r)], dtype="float32", device=dev), (r + 1) % n)
        got = dist.recv(ek.zeros((1,), dtype="float32", device=dev), (r - 1) % n)
    assert got.numpy()[0] == (r - 1) % n
    sub = comm.split(r % 2, key=r)
    assert sub.size == len(range(r % 2, n, 2))
    sub.close()
    try:
        dist.all_reduce(ek.tensor([[1.0, 2.0], [3.0, 4.0]], device=dev).T)
    except ek.InvalidArgumentError as e:
        assert "not contiguous" in str(e)
    else:
        raise AssertionError("a transposed tensor was accepted")
    dist.barrier()
    dist.destroy_process_group()
    import os
    os.write(1, f"ok {r}\\n".encode())
"""


def test_collectives_one_process_per_gpu(tmp_path):
    n = _gpus(2)
    r = _launch(tmp_path, _COLLECTIVES, n)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("ok ") == n


def test_init_all_in_one_process():
    n = _gpus(2)
    comms = dist.Communicator.init_all([f"cuda:{i}" for i in range(n)], timeout=120)
    assert [c.rank for c in comms] == list(range(n))
    xs = [ek.tensor([float(i)] * 5, device=f"cuda:{i}") for i in range(n)]
    with dist.group():
        for c, x in zip(comms, xs):
            c.all_reduce(x, dist.ReduceOp.SUM)
    for c, x in zip(comms, xs):
        c.synchronize()
        assert np.allclose(x.numpy(), n * (n - 1) / 2)
    for c in comms:
        c.close()
