"""ek.set_log_callback: libek's messages to a Python callable, per context's
log level, stderr again with None, exceptions kept out of C, and replacement
while threads log."""
import os
import subprocess
import sys
import threading

import pytest

import ek

HERE = os.path.dirname(os.path.abspath(__file__))
PKG_ROOT = os.path.dirname(HERE)


@pytest.fixture
def messages():
    got = []
    lock = threading.Lock()

    def record(level, message):
        with lock:
            got.append((level, message))

    ek.set_log_callback(record)
    yield got
    ek.set_log_callback(None)


def _reserve_and_release(ctx):
    t = ek.empty(1 << 18, dtype=ek.float32, device=ctx)  # 1 MiB: a new 2 MiB segment
    del t
    ctx.empty_cache()


def test_callback_gets_level_and_text_of_an_info_context(messages):
    ctx = ek.Context("cpu", log_level="info")
    _reserve_and_release(ctx)
    ctx.close()
    assert messages == [
        ("info", "context created on cpu:0"),
        ("info", "pool cpu:0: reserved a new segment of 2.00 MiB from the device; "
                 "reserved now 2.00 MiB"),
        ("info", "pool cpu:0: released 1 cached segment (2.00 MiB) to the device by "
                 "empty_cache; reserved now 0 B"),
    ]


def test_messages_below_the_level_are_filtered(messages):
    ctx = ek.Context("cpu", log_level="warn")
    _reserve_and_release(ctx)
    assert messages == []
    ctx.set_memory_limit(1 << 20)
    with pytest.raises(ek.OutOfMemoryError):
        ek.empty(1 << 20, dtype=ek.float32, device=ctx)
    assert [level for level, _ in messages] == ["warn"]
    assert messages[0][1].startswith("pool cpu:0: out of memory for 4.00 MiB")
    ctx.close()


def _run(code):
    """Runs code in a fresh interpreter, with libek's defaults (no EK_LOG_LEVEL)."""
    env = dict(os.environ, PYTHONPATH=PKG_ROOT)
    env.pop("EK_LOG_LEVEL", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_nothing_is_printed_by_default_and_none_restores_stderr():
    r = _run("import ek\n"
             "ctx = ek.Context('cpu'); t = ek.ones(4, device=ctx); del t; ctx.empty_cache()\n"
             "ek.set_log_callback(lambda level, msg: print('callback', msg))\n"
             "ek.set_log_callback(None)\n"
             "c = ek.Context('cpu', log_level='info'); c.close()\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert r.stderr == "[ek info] context created on cpu:0\n"


def test_an_exception_in_the_callback_is_printed_and_does_not_reach_c():
    r = _run("import ek\n"
             "def boom(level, msg): raise RuntimeError('boom: ' + msg)\n"
             "ek.set_log_callback(boom)\n"
             "ctx = ek.Context('cpu', log_level='info')\n"
             "ctx.close()\n"
             "print('still running')\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "still running\n"
    assert "exception in the log callback (ignored)" in r.stderr
    assert "RuntimeError: boom: context created on cpu:0" in r.stderr


def test_setting_from_inside_the_callback_is_refused(messages):
    errors = []

    def reenter(level, message):
        try:
            ek.set_log_callback(None)
        except ek.InvalidArgumentError as e:
            errors.append(str(e))

    ek.set_log_callback(reenter)
    ek.Context("cpu", log_level="info").close()
    assert len(errors) == 1 and "inside the log callback" in errors[0]
    with pytest.raises(TypeError):
        ek.set_log_callback(42)


def test_threads_log_while_the_callback_is_replaced():
    counts = [0, 0]
    lock = threading.Lock()
    stop = threading.Event()

    def counter(i):
        def f(level, message):
            with lock:
                counts[i] += 1
        return f

    def work():
        for _ in range(50):
            ctx = ek.Context("cpu", log_level="info")
            _reserve_and_release(ctx)
            ctx.close()

    def swap():
        i = 0
        while not stop.is_set():
            ek.set_log_callback(counter(i % 2))
            i += 1
    workers = [threading.Thread(target=work) for _ in range(3)]
    swapper = threading.Thread(target=swap)
    ek.set_log_callback(counter(0))
    swapper.start()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    stop.set()
    swapper.join()
    ek.set_log_callback(None)
    assert sum(counts) == 3 * 50 * 3  # created, reserved, released: none lost
