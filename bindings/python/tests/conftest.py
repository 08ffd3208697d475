"""Device selection: EK_TEST_DEVICE=cpu (default) | cuda | all.
CUDA cases are skipped visibly when not requested or no GPU; EK_REQUIRE_GPU=1
turns a missing GPU into a failure."""

import os

import pytest

import ek

_SEL = os.environ.get("EK_TEST_DEVICE", "cpu").lower()


def _devices():
    return ["cpu", "cuda"]


@pytest.fixture(params=_devices())
def device(request):
    dev = request.param
    if dev == "cuda":
        if _SEL not in ("cuda", "all"):
            pytest.skip("CUDA tests not requested (set EK_TEST_DEVICE=cuda or all)")
        if ek.device_count("cuda") == 0:
            if os.environ.get("EK_REQUIRE_GPU") == "1":
                pytest.fail("EK_REQUIRE_GPU=1 but no CUDA device is available")
            pytest.skip("no CUDA device")
    elif _SEL == "cuda":
        pytest.skip("EK_TEST_DEVICE=cuda: CPU cases not selected")
    return dev


@pytest.fixture
def cuda_device(device):
    if device != "cuda":
        pytest.skip("CUDA-only test")
    return device
