"""The standard's (2024.12) names by category and this namespace's status of
each: "yes", "waits" (on an ek function other work adds; see _pending.NEEDS)
or "no" (with the reason). scripts/array_api_table.py writes README's table
from rows()."""

from __future__ import annotations

from . import _dtypes, _pending

CATEGORIES = {
    "Constants": "e inf nan newaxis pi",
    "Creation": "arange asarray empty empty_like eye from_dlpack full full_like linspace "
                "meshgrid ones ones_like tril triu zeros zeros_like",
    "Data types": " ".join(_dtypes.STANDARD_NAMES),
    "Data type functions": "astype can_cast finfo iinfo isdtype result_type",
    "Elementwise": "abs acos acosh add asin asinh atan atan2 atanh bitwise_and "
                   "bitwise_left_shift bitwise_invert bitwise_or bitwise_right_shift "
                   "bitwise_xor ceil clip conj copysign cos cosh divide equal exp expm1 floor "
                   "floor_divide greater greater_equal hypot imag isfinite isinf isnan less "
                   "less_equal log log1p log2 log10 logaddexp logical_and logical_not "
                   "logical_or logical_xor maximum minimum multiply negative nextafter "
                   "not_equal positive pow real reciprocal remainder round sign signbit sin "
                   "sinh square sqrt subtract tan tanh trunc",
    "Indexing": "take take_along_axis",
    "Inspection": "__array_namespace_info__",
    "Linear algebra": "matmul matrix_transpose tensordot vecdot",
    "Manipulation": "broadcast_arrays broadcast_to concat expand_dims flip moveaxis "
                    "permute_dims repeat reshape roll squeeze stack tile unstack",
    "Searching": "argmax argmin count_nonzero nonzero searchsorted where",
    "Sets": "unique_all unique_counts unique_inverse unique_values",
    "Sorting": "argsort sort",
    "Statistical": "cumulative_prod cumulative_sum max mean min prod std sum var",
    "Utility": "all any diff",
    "Extensions": "linalg fft",
}
CONSTANTS = set(CATEGORIES["Constants"].split())
_DTYPES = set(CATEGORIES["Data types"].split())

NOT_SUPPORTED = {
    "linalg": "optional extension, not provided (ek has matmul/gemm only; no "
              "factorizations or solvers)",
    "fft": "optional extension, not provided (ek has no FFT)",
}


def status(name: str) -> tuple:
    """(status, note) of one standard name in this build."""
    from ek import array_api as xp
    if name in NOT_SUPPORTED:
        return "no", NOT_SUPPORTED[name]
    if name in _DTYPES and not hasattr(xp, name):
        return "waits", f"ek.{name}"
    missing = _pending.missing(name)
    if missing:
        return "waits", ", ".join(f"ek.{m}" for m in missing)
    if not hasattr(xp, name) and name not in CONSTANTS:
        return "no", "not implemented"
    return "yes", ""


def rows() -> list:
    """(name, status, note) for every standard name, by category."""
    return [(n, *status(n)) for names in CATEGORIES.values() for n in names.split()]
