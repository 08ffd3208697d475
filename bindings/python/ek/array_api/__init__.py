"""ek.array_api: libek's Python array API standard namespace (2024.12; 2023.12 also
accepted).

    >>> import ek
    >>> x = ek.arange(6.0).reshape(2, 3)
    >>> xp = x.__array_namespace__()          # this module
    >>> xp.sum(x, axis=0, keepdims=True)

A submodule, not ``ek`` itself, because ek's PyTorch-style names clash with
the standard's: ``ek.sum(x, dim=)`` vs ``sum(x, axis=)``, ``Tensor.size()`` a
method vs the standard's ``size`` property, ``ek.max(x, dim)`` returning
(values, indices), ``ek.meshgrid`` defaulting to "ij", ``Tensor.repeat``
being tile. The arrays are ordinary ``ek.Tensor`` objects (no wrapper):
operators, indexing, ``mT``, ``device``, ``to_device``, ``__dlpack__`` and
``__array_namespace__`` are Tensor's own. The one attribute that differs is
``size``: use ``ek.array_api.size(x)`` (as array-api-compat does for PyTorch).

Defaults: float32 for Python floats (as PyTorch), int64 for ints; devices
"cpu" and "cuda:N". Functions that other ek work adds (sort, unique, ...)
raise NotImplementedError naming the missing ek function until it exists;
``_pending.NEEDS`` lists them. Not provided: the optional linalg and fft
extensions. README.md has the table of every function (scripts/
array_api_table.py writes it).
"""

from __future__ import annotations

import math

from ._creation import *  # noqa: F401,F403
from ._dtypes import *  # noqa: F401,F403
from ._elementwise import *  # noqa: F401,F403
from ._info import __array_namespace_info__
from ._manipulation import *  # noqa: F401,F403
from ._pending import *  # noqa: F401,F403
from ._statistical import *  # noqa: F401,F403
from . import _creation, _dtypes, _elementwise, _manipulation, _pending, _statistical

__array_api_version__ = "2024.12"
SUPPORTED_VERSIONS = ("2023.12", "2024.12")

e, inf, nan, pi = math.e, math.inf, math.nan, math.pi
newaxis = None


def size(x, /):
    """The number of elements of x (the standard's ``x.size``; ek's
    ``Tensor.size()`` is PyTorch's shape method)."""
    return math.prod(x.shape)


__all__ = ["__array_api_version__", "__array_namespace_info__", "e", "inf", "nan", "pi",
           "newaxis", "size"]
for _m in (_creation, _dtypes, _elementwise, _manipulation, _pending, _statistical):
    __all__ += _m.__all__
del _m
