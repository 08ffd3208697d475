"""Automatic fusion from Python: the Context option, the scoped switch,
Tensor.eval, the counters, and errors."""

import numpy as np
import pytest

import ek


def chain(x, y):
    return ((x * y + x.relu()) * 0.5).exp()


def test_fused_chain_equals_eager(device):
    ctx = ek.Context(device)
    rng = np.random.default_rng(7)
    xs, ys = rng.standard_normal((64, 33)).astype(np.float32), rng.standard_normal(33).astype(np.float32)
    x, y = ek.tensor(xs, device=ctx), ek.tensor(ys, device=ctx)
    eager = chain(x, y).numpy()
    before = ek.fusion_stats(ctx)["ops_deferred"]
    with ek.fusion(True, stream=ctx.default_stream):
        z = chain(x, y)
        assert ek.fusion_stats(ctx)["ops_deferred"] == before + 5
        z.eval()
    assert ek.fusion_stats(ctx)["groups_evaluated"] >= 1
    np.testing.assert_array_equal(z.numpy(), eager)


def test_context_option_and_config(device):
    ctx = ek.Context(device, fusion="rounded", fusion_max_kernels=4)
    assert ctx.config["fusion"] == "rounded"
    assert ctx.config["fusion_max_kernels"] == 4
    x = ek.tensor(np.arange(4, dtype=np.float32), device=ctx)
    y = -(x + 1)
    assert ek.fusion_stats(ctx)["ops_deferred"] >= 2
    assert y.tolist() == [-1.0, -2.0, -3.0, -4.0]
    assert ek.Context(device, fusion=False).config["fusion"] is False


def test_scope_restores_the_stream_setting(device):
    ctx = ek.Context(device)
    s = ctx.default_stream
    with ek.fusion(True, stream=s):
        with ek.fusion(False, stream=s):
            x = ek.tensor(np.ones(3, dtype=np.float32), device=ctx)
            before = ek.fusion_stats(ctx)["ops_deferred"]
            (x * 2).eval()
            assert ek.fusion_stats(ctx)["ops_deferred"] == before
        t = x * 3
        assert ek.fusion_stats(ctx)["ops_deferred"] == before + 1
        s.flush()
        assert t.tolist() == [3.0, 3.0, 3.0]


def test_bad_mode_is_an_error(device):
    with pytest.raises(ek.InvalidArgumentError, match="fusion 7"):
        with ek.fusion(7, device=device):
            pass
    with pytest.raises(ek.InvalidArgumentError, match="ek.Context: fusion"):
        ek.Context(device, fusion="always")


def test_sum_of_pending_chain_joins_its_group(device):
    ctx = ek.Context(device)
    rng = np.random.default_rng(3)
    xs, ys = rng.standard_normal((16, 300)).astype(np.float32), rng.standard_normal(300).astype(np.float32)
    x, y = ek.tensor(xs, device=ctx), ek.tensor(ys, device=ctx)
    eager = [chain(x, y).sum().numpy(), chain(x, y).sum(dim=-1).numpy()]
    with ek.fusion(True, stream=ctx.default_stream):
        before = ek.fusion_stats(ctx)
        fused = [chain(x, y).sum(), chain(x, y).sum(dim=-1)]
        after = ek.fusion_stats(ctx)
        assert after["ops_deferred"] == before["ops_deferred"] + 12  # 5 ops and the sum, twice
        assert [f.numpy().tobytes() for f in fused] == [e.tobytes() for e in eager]
    assert "prologue_fusions" in after
