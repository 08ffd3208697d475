"""CUDA graphs: ek.cuda.CUDAGraph, ek.cuda.graph, ek.cuda.graph_pool_handle."""

import pytest

import ek


def test_graph_cpu_capture_is_not_supported():
    g = ek.cuda.CUDAGraph()
    with pytest.raises(ek.NotSupportedError, match="ek_graph_capture_begin: graph capture needs "
                                                   "a CUDA context"):
        with ek.cuda.graph(g, stream=ek.current_stream("cpu")):
            pass
    with pytest.raises(ek.NotSupportedError, match="ek_graph_pool_create"):
        ek.cuda.graph_pool_handle("cpu")
    assert not ek.cuda.is_current_stream_capturing("cpu")


def test_graph_bad_input():
    g = ek.cuda.CUDAGraph()
    with pytest.raises(ek.InvalidArgumentError, match="nothing was captured"):
        g.replay()
    with pytest.raises(ValueError, match="capture_error_mode"):
        g.capture_begin(stream=ek.current_stream("cpu"), capture_error_mode="loose")
    with pytest.raises(TypeError, match="cuda_graph"):
        ek.cuda.graph(object())
    with pytest.raises(ek.InvalidArgumentError, match="capture_end without capture_begin"):
        g.capture_end()


def test_graph_capture_and_replay(cuda_device):
    x = ek.full((64, 512), 0.5, device="cuda")
    w = ek.full((512, 512), 0.01, device="cuda")
    b = ek.full((512,), 0.25, device="cuda")
    g = ek.cuda.CUDAGraph()
    with ek.cuda.graph(g):
        assert ek.cuda.is_current_stream_capturing()
        y = ek.gelu(x @ w + b).sum(1)
    assert not ek.cuda.is_current_stream_capturing()
    for v in (0.5, -1.0):
        x.copy_(ek.full((64, 512), v, device="cuda"))
        g.replay()
        want = ek.gelu(x @ w + b).sum(1)
        assert y.tolist() == pytest.approx(want.tolist())
    # a second graph shares the first one's pool; the pool reports its blocks
    g2 = ek.cuda.CUDAGraph()
    with ek.cuda.graph(g2, pool=g.pool()):
        z = y * 2
    g.replay()
    g2.replay()
    assert z.tolist() == pytest.approx([2 * v for v in y.tolist()])
    assert g.pool().stats()["active_blocks"] >= 2


def test_graph_capture_errors(cuda_device):
    x = ek.ones(8, device="cuda")
    g = ek.cuda.CUDAGraph()
    with ek.cuda.graph(g):
        y = x + 1
        with pytest.raises(ek.CaptureError, match="capturing"):
            y.tolist()
    g.replay()
    assert y.tolist() == [2.0] * 8
