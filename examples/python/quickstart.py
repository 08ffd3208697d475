"""libek quickstart in Python: the same steps as examples/c/quickstart.c.

    EK_LIBRARY=build/libek.so.0 PYTHONPATH=bindings/python python3 examples/python/quickstart.py
"""
import ek

device = "cuda" if ek.device_count("cuda") > 0 else "cpu"
print(f"libek {ek.version()} on {device}")

m = ek.arange(0, 12, dtype=ek.float32, device=device).reshape(3, 4)
print("transpose of arange(12).reshape(3, 4):")
print(m.T.contiguous().numpy())
print("last column:", m[:, -1].tolist())
print("reversed rows:", m[::-1, 0].tolist())

stats = ek.context(device).memory_stats()
print(f"pool: {stats['allocated_bytes']} bytes allocated, {stats['reserved_bytes']} reserved")
