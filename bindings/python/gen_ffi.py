#!/usr/bin/env python3
"""Generate ``ek/_ffi.py`` (ctypes declarations) from ``include/ek.h``.

Usage::

    python3 bindings/python/gen_ffi.py            # (re)write ek/_ffi.py
    python3 bindings/python/gen_ffi.py --check    # exit 1 with a diff when stale
    python3 bindings/python/gen_ffi.py --stdout   # print the module

The header is parsed with regular expressions; it follows a small set of forms
(see the docstrings of the ``parse_*`` functions). ``static inline`` helpers
(the ek_scalar constructors) are skipped; ``#ifdef EK_EXPERIMENTAL`` sections
are parsed like the rest and listed in ``EXPERIMENTAL``; any other
conditional not in KNOWN_CONDITIONALS is an error.  Anything the generator
does not understand inside those forms is an error, never silently skipped, so
that a header change cannot produce a binding with a wrong signature.
The output depends only on the header text (no dates, no paths): it is
deterministic and committed.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import operator
import os
import re
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_HEADER = os.path.normpath(os.path.join(HERE, "..", "..", "include", "ek.h"))
DEFAULT_OUTPUT = os.path.join(HERE, "ek", "_ffi.py")

# C scalar types -> ctypes names.
SCALARS = {
    "void": "None",
    "char": "ctypes.c_char",
    "signed char": "ctypes.c_byte",
    "unsigned char": "ctypes.c_ubyte",
    "short": "ctypes.c_short",
    "unsigned short": "ctypes.c_ushort",
    "int": "ctypes.c_int",
    "signed": "ctypes.c_int",
    "unsigned": "ctypes.c_uint",
    "unsigned int": "ctypes.c_uint",
    "long": "ctypes.c_long",
    "unsigned long": "ctypes.c_ulong",
    "long long": "ctypes.c_longlong",
    "unsigned long long": "ctypes.c_ulonglong",
    "float": "ctypes.c_float",
    "double": "ctypes.c_double",
    "size_t": "ctypes.c_size_t",
    "ptrdiff_t": "ctypes.c_ssize_t",
    "int8_t": "ctypes.c_int8",
    "int16_t": "ctypes.c_int16",
    "int32_t": "ctypes.c_int32",
    "int64_t": "ctypes.c_int64",
    "uint8_t": "ctypes.c_uint8",
    "uint16_t": "ctypes.c_uint16",
    "uint32_t": "ctypes.c_uint32",
    "uint64_t": "ctypes.c_uint64",
    "intptr_t": "ctypes.c_ssize_t",
    "uintptr_t": "ctypes.c_size_t",
}

# Symbolic values allowed in #define expressions.
KNOWN_VALUES = {
    "INT8_MAX": 2**7 - 1, "INT8_MIN": -(2**7),
    "INT16_MAX": 2**15 - 1, "INT16_MIN": -(2**15),
    "INT32_MAX": 2**31 - 1, "INT32_MIN": -(2**31),
    "INT64_MAX": 2**63 - 1, "INT64_MIN": -(2**63),
    "UINT8_MAX": 2**8 - 1, "UINT16_MAX": 2**16 - 1,
    "UINT32_MAX": 2**32 - 1, "UINT64_MAX": 2**64 - 1,
    "SIZE_MAX": 2**64 - 1,
}


class GenError(Exception):
    pass


@dataclass
class Model:
    status: list = field(default_factory=list)        # (name, value, text)
    lists: dict = field(default_factory=dict)         # EK_*_LIST -> [(name, value, text)]
    defines: list = field(default_factory=list)       # (name, value)
    enums: list = field(default_factory=list)         # (typename, [(name, value)])
    handles: list = field(default_factory=list)       # (typename, structtag)
    callbacks: list = field(default_factory=list)     # (typename, ret, [(ctype, name)])
    structs: list = field(default_factory=list)       # (typename, [(name, ctype)])
    opaque: list = field(default_factory=list)        # struct tags declared, not defined
    functions: list = field(default_factory=list)     # (name, ret, [(ctype, name)], doc)
    order: list = field(default_factory=list)         # ("enum"/"struct"/..., index) header order
    inline: list = field(default_factory=list)        # static inline helpers (not symbols)
    experimental: list = field(default_factory=list)  # (start, end) of #ifdef EK_EXPERIMENTAL
    sized: list = field(default_factory=list)         # structs whose first field is struct_size
    positions: dict = field(default_factory=dict)     # declared name -> offset in the text

    def is_experimental(self, pos: int) -> bool:
        return any(a <= pos < b for a, b in self.experimental)


# ------------------------------------------------------------------ lexing

def strip_comments(text: str) -> str:
    """Remove /* */ and // comments, keeping newlines (and string literals)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise GenError("unterminated comment")
            out.append("\n" * text.count("\n", i, j) + " ")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def join_continuations(text: str) -> str:
    return re.sub(r"\\\n", " ", text)


def squash(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.FloorDiv: operator.floordiv, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift, ast.BitOr: operator.or_,
           ast.BitAnd: operator.and_, ast.Div: operator.floordiv}


def eval_int(expr: str, names: dict) -> int | None:
    """Evaluate an integer constant expression (ints, known names, + - * / << >> | &).
    Returns None when the expression is not such an expression."""
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]+\b", r"\1", expr.strip())
    expr = re.sub(r"\(\s*(?:u?int\d+_t|size_t|unsigned|int|long)\s*\)", "", expr)
    if not expr:
        return None
    try:
        tree = ast.parse(expr.replace("/", "//").replace("////", "//"), mode="eval")
    except SyntaxError:
        return None

    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int) \
                and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in names:
                return names[node.id]
            raise KeyError(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Invert)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else (v if isinstance(node.op, ast.UAdd) else ~v)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        raise ValueError(ast.dump(node))

    try:
        return ev(tree.body)
    except (KeyError, ValueError):
        return None


# ------------------------------------------------------------------ preprocessing

# Conditionals the header may use, by their directive text. Both branches of a
# conditional are read (there is no preprocessor here), so only those whose
# branches declare nothing the binding needs, or that are to be included
# whole (EK_EXPERIMENTAL), are accepted.
KNOWN_CONDITIONALS = {
    "#ifndef EK_H": "guard",
    "#ifdef __cplusplus": "extern C",
    "#if defined(_WIN32)": "EK_API",
    "#if defined(EK_BUILDING)": "EK_API",
    "#elif defined(__GNUC__)": "EK_API",
    "#ifdef EK_EXPERIMENTAL": "experimental",
}


def parse_conditionals(text: str, model: Model) -> None:
    """Check every ``#if``/``#ifdef`` against KNOWN_CONDITIONALS and record the
    spans of ``#ifdef EK_EXPERIMENTAL`` sections (parsed like the rest; their
    declarations are listed in EXPERIMENTAL)."""
    stack = []
    for m in re.finditer(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$", text, re.M):
        word, rest = m.group(1), squash(m.group(2))
        directive = f"#{word} {rest}".strip()
        if word in ("if", "ifdef", "ifndef", "elif"):
            if directive not in KNOWN_CONDITIONALS:
                raise GenError(f"unknown conditional {directive!r}: the generator reads both "
                               "branches; add it to KNOWN_CONDITIONALS if that is right")
            if word != "elif":
                stack.append((KNOWN_CONDITIONALS[directive], m.end()))
        elif word == "endif":
            if not stack:
                raise GenError("#endif without #if")
            kind, start = stack.pop()
            if kind == "experimental":
                model.experimental.append((start, m.start()))
        elif stack and stack[-1][0] == "experimental":
            raise GenError("#else in an EK_EXPERIMENTAL section")
    if stack:
        raise GenError("unterminated #if")


def strip_inline(text: str, model: Model) -> str:
    """Remove ``static inline <ret> <name>(<params>) { ... }`` definitions
    (the ek_scalar constructors): header-only helpers, not library symbols.
    Newlines are kept so positions stay comparable."""
    out, pos = [], 0
    for m in re.finditer(r"\bstatic\s+inline\b", text):
        if m.start() < pos:
            continue
        hm = re.compile(r"static\s+inline\s+[\w\s\*]+?\b(\w+)\s*\([^;{)]*\)\s*\{").match(
            text, m.start())
        if not hm:
            raise GenError("cannot parse a static inline definition near "
                           f"{squash(text[m.start():m.start() + 80])!r}")
        depth, i = 1, hm.end()
        while depth:
            if i >= len(text):
                raise GenError(f"static inline {hm.group(1)}: unbalanced braces")
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        model.inline.append(hm.group(1))
        out.append(text[pos:m.start()])
        out.append("\n" * text.count("\n", m.start(), i))
        pos = i
    out.append(text[pos:])
    return "".join(out)


# ------------------------------------------------------------------ parsing

def parse_lists(text: str, model: Model) -> None:
    """``#define EK_<WHAT>_LIST(X) X(NAME, value, "text") ...`` (continued lines):
    the X-macro lists that enums expand. Every ``X(...)`` in a list must have
    that form; EK_STATUS_LIST also fills the status tables."""
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(EK_\w+_LIST)\s*\(\s*X\s*\)(.*)$", text, re.M):
        list_name, body = m.group(1), m.group(2)
        entry = r'X\(\s*(\w+)\s*,\s*(-?\d+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)'
        entries = [(n, int(v), d) for n, v, d in re.findall(entry, body)]
        if not entries or len(entries) != body.count("X("):
            raise GenError(f"{list_name}: cannot parse its X(NAME, value, \"text\") entries")
        model.lists[list_name] = entries
    if "EK_STATUS_LIST" not in model.lists:
        raise GenError("EK_STATUS_LIST not found")
    model.status = model.lists["EK_STATUS_LIST"]


def parse_defines(text: str, model: Model, names: dict) -> None:
    """``#define EK_NAME <integer constant expression>``; other macros are skipped."""
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(EK_\w+)(?![\w(])[ \t]*(.*)$", text, re.M):
        name, body = m.group(1), m.group(2).strip()
        if name in ("EK_API", "EK_H", "EK_BUILDING"):
            continue
        value = eval_int(body, names)
        if value is None:
            continue  # strings, initialisers, attributes: not constants
        names[name] = value
        model.defines.append((name, value))
        model.positions[name] = m.start()


def parse_enums(text: str, model: Model, names: dict) -> None:
    """``typedef enum { A = 0, B, EK_X_LIST(M) } name;`` (X-macro bodies expand)."""
    for m in re.finditer(r"typedef\s+enum\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        body, tname = m.group(1), m.group(2)
        body = "\n".join(l for l in body.splitlines() if not l.strip().startswith("#"))
        entries = []
        nxt = 0
        for item in (squash(x) for x in body.split(",")):
            if not item:
                continue
            xm = re.fullmatch(r"(EK_\w+_LIST)\s*\(\s*\w+\s*\)", item)
            if xm:
                if xm.group(1) not in model.lists:
                    raise GenError(f"enum {tname}: unknown X-macro {xm.group(1)}")
                for name, value, _ in model.lists[xm.group(1)]:
                    entries.append((name, value))
                    names[name] = value
                    nxt = value + 1
                continue
            em = re.fullmatch(r"(\w+)\s*(?:=\s*(.+))?", item)
            if not em:
                raise GenError(f"enum {tname}: cannot parse {item!r}")
            if em.group(2) is not None:
                v = eval_int(em.group(2), names)
                if v is None:
                    raise GenError(f"enum {tname}: cannot evaluate {em.group(2)!r}")
                nxt = v
            entries.append((em.group(1), nxt))
            names[em.group(1)] = nxt
            nxt += 1
        model.enums.append((tname, entries))
        model.order.append(("enum", tname, m.start()))


def parse_handles(text: str, model: Model) -> None:
    """``typedef struct ek_x_s *ek_x;``"""
    for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\*\s*(\w+)\s*;", text):
        model.handles.append((m.group(2), m.group(1)))
        model.order.append(("handle", m.group(2), m.start()))


def parse_callbacks(text: str, model: Model) -> None:
    """``typedef <ret> (*name)(<params>);`` (may span lines)."""
    for m in re.finditer(r"typedef\s+([\w\s\*]+?)\s*\(\s*\*\s*(\w+)\s*\)\s*\((.*?)\)\s*;", text, re.S):
        ret, name, params = squash(m.group(1)), m.group(2), m.group(3)
        model.callbacks.append((name, ret, split_params(params, name)))
        model.order.append(("callback", name, m.start()))


def parse_structs(text: str, model: Model) -> None:
    """``typedef struct { <type> <name>[<N>]; ... } name;``"""
    for m in re.finditer(r"typedef\s+struct\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        body, tname = m.group(1), m.group(2)
        fields = []
        for decl in (squash(d) for d in body.split(";")):
            if not decl:
                continue
            dm = re.fullmatch(r"(.*?)\s*\b(\w+)\s*((?:\[\s*[^\]]+\s*\]\s*)*)", decl)
            if not dm or not dm.group(1):
                raise GenError(f"struct {tname}: cannot parse field {decl!r}")
            ctype, fname, dims = dm.group(1), dm.group(2), dm.group(3)
            if "(" in ctype or "," in ctype:
                raise GenError(f"struct {tname}: unsupported field {decl!r}")
            arr = re.findall(r"\[\s*([^\]]+?)\s*\]", dims)
            fields.append((fname, ctype, arr))
        if any(f[0] == "struct_size" for f in fields):
            if fields[0][:2] != ("struct_size", "size_t") or fields[0][2]:
                raise GenError(f"struct {tname}: struct_size must be its first field, a size_t")
            model.sized.append(tname)
        model.structs.append((tname, fields))
        model.order.append(("struct", tname, m.start()))


def parse_opaque(text: str, model: Model) -> None:
    """``struct Tag;``: a type another header defines (DLPack's); pointers to it
    are ``c_void_p``."""
    model.opaque.extend(re.findall(r"^[ \t]*struct\s+(\w+)\s*;", text, re.M))


def split_params(params: str, where: str):
    params = squash(params)
    if params in ("", "void"):
        return []
    out = []
    for i, p in enumerate(x.strip() for x in params.split(",")):
        pm = re.fullmatch(r"(.*?[\s\*])\s*(\w+)", p)
        # A lone type ("int", "ek_tensor") has no name.
        if pm and squash(pm.group(1).replace("const", "")) not in ("", "unsigned", "signed", "long",
                                                                   "struct"):
            ctype, name = squash(pm.group(1)), pm.group(2)
        else:
            ctype, name = p, f"arg{i}"
        if "[" in p or "(" in p or "..." in p:
            raise GenError(f"{where}: unsupported parameter {p!r}")
        out.append((ctype, name))
    return out


def parse_functions(raw: str, text: str, model: Model) -> None:
    """``EK_API <ret> <name>(<params>);`` (may span lines); the doc comment that
    precedes it in the raw header becomes the Python docstring."""
    for m in re.finditer(r"\bEK_API\s+([\w\s\*]+?)\s*\b(ek_\w+)\s*\(([^;{]*?)\)\s*;", text, re.S):
        ret, name, params = squash(m.group(1)), m.group(2), m.group(3)
        model.functions.append((name, ret, split_params(params, name), docs_for(raw, name)))
        model.positions[name] = m.start()
    if not model.functions:
        raise GenError("no EK_API prototypes found")


def docs_for(raw: str, name: str) -> str:
    m = re.search(r"/\*\*((?:(?!\*/).)*?)\*/\s*EK_API\b[^;(]*?\b" + name + r"\s*\(", raw, re.S)
    if not m:
        return ""
    lines = [re.sub(r"^\s*\*?\s?", "", l).rstrip() for l in m.group(1).splitlines()]
    return squash(" ".join(lines))


# ------------------------------------------------------------------ type mapping

class TypeMap:
    def __init__(self, model: Model):
        self.enums = {t for t, _ in model.enums}
        self.handles = {t for t, _ in model.handles}
        self.structs = {t for t, _ in model.structs}
        self.callbacks = {t for t, _, _ in model.callbacks}
        self.opaque = set(model.opaque)

    def base(self, name: str, where: str) -> str:
        if name in SCALARS:
            return SCALARS[name]
        if name in self.enums or name in self.handles or name in self.structs \
                or name in self.callbacks:
            return name
        raise GenError(f"{where}: unknown C type {name!r}")

    def map(self, ctype: str, where: str) -> str:
        """C type text -> ctypes expression."""
        t = squash(ctype.replace("*", " * "))
        stars = t.count("*")
        t = squash(re.sub(r"\b(const|volatile|struct|enum)\b", " ", t.replace("*", " ")))
        if stars == 0:
            return self.base(t, where)
        if t == "char" and stars == 1:
            return "ctypes.c_char_p"
        if t == "void" or t in self.opaque:
            inner, stars = "ctypes.c_void_p", stars - 1
        else:
            inner = self.base(t, where)
            if inner == "None":
                raise GenError(f"{where}: bad type {ctype!r}")
        for _ in range(stars):
            inner = f"ctypes.POINTER({inner})"
        return inner


# ------------------------------------------------------------------ emitting

HEADER = '''\
# Generated by bindings/python/gen_ffi.py from include/ek.h. DO NOT EDIT.
# Regenerate with:  python3 bindings/python/gen_ffi.py
# CI checks it with: python3 bindings/python/gen_ffi.py --check
"""ctypes declarations of the libek C API (include/ek.h).

Constants, enums (as ``c_int`` aliases plus ``<enum>_values`` dicts), handle
types (``POINTER`` to opaque structs), callback types, ``Structure`` classes
and ``FUNCTIONS`` (name -> restype, argtypes, parameter names, doc).
``EXPERIMENTAL`` names what ek.h declares under ``#ifdef EK_EXPERIMENTAL``;
``new(cls)`` makes a struct with ``struct_size`` set (``SIZED_STRUCTS``).
``bind(lib)`` sets ``argtypes``/``restype`` on every function of a loaded CDLL.
"""

import ctypes

'''


def emit(model: Model) -> str:
    tm = TypeMap(model)
    o = [HEADER]
    o.append("# " + "-" * 66 + " status codes (EK_STATUS_LIST)\n\n")
    for name, value, _ in model.status:
        o.append(f"{name} = {value}\n")
    o.append("\nSTATUS_NAMES = {\n")
    for name, value, _ in model.status:
        o.append(f"    {value}: {name!r},\n")
    o.append("}\n\nSTATUS_DESCRIPTIONS = {\n")
    for name, value, desc in model.status:
        o.append(f"    {value}: {desc!r},\n")
    o.append("}\n\n")

    o.append("# " + "-" * 66 + " #define constants\n\n")
    for name, value in model.defines:
        o.append(f"{name} = {value}\n")
    o.append("\n")

    defines = dict(model.defines)
    for kind, name, _ in sorted(model.order, key=lambda x: x[2]):
        if kind == "enum":
            entries = dict(model.enums)[name]
            o.append(f"# enum {name}\n{name} = ctypes.c_int\n")
            if name != "ek_status":
                for en, ev in entries:
                    o.append(f"{en} = {ev}\n")
            o.append(f"{name}_values = {{\n")
            for en, ev in entries:
                o.append(f"    {en!r}: {ev},\n")
            o.append("}\n\n\n")
        elif kind == "handle":
            tag = dict(model.handles)[name]
            o.append(f"class {tag}(ctypes.Structure):\n    \"\"\"Opaque.\"\"\"\n\n\n"
                     f"{name} = ctypes.POINTER({tag})\n\n\n")
        elif kind == "callback":
            ret, params = next((r, p) for n, r, p in model.callbacks if n == name)
            args = ", ".join([tm.map(ret, name)] + [tm.map(c, name) for c, _ in params])
            o.append(f"{name} = ctypes.CFUNCTYPE({args})\n\n\n")
        elif kind == "struct":
            fields = dict(model.structs)[name]
            o.append(f"class {name}(ctypes.Structure):\n    _fields_ = [\n")
            for fname, ctype, arr in fields:
                t = tm.map(ctype, f"{name}.{fname}")
                for dim in reversed(arr):
                    n = eval_int(dim, defines)
                    if n is None:
                        raise GenError(f"{name}.{fname}: cannot evaluate array size {dim!r}")
                    t = f"{t} * {n}"
                o.append(f"        ({fname!r}, {t}),\n")
            o.append("    ]\n\n\n")

    o.append("# " + "-" * 66 + " functions\n\n")
    o.append("FUNCTIONS = {\n")
    for name, ret, params, doc in model.functions:
        if model.is_experimental(model.positions[name]):
            doc = "Experimental (EK_EXPERIMENTAL). " + doc
        r = tm.map(ret, name)
        args = ", ".join(tm.map(c, f"{name}({n})") for c, n in params)
        pnames = ", ".join(repr(n) for _, n in params)
        o.append(f"    {name!r}: (\n        {r},\n        [{args}],\n"
                 f"        ({pnames}{',' if len(params) == 1 else ''}),\n")
        o.append(f"        {doc!r},\n    ),\n")
    o.append("}\n\n")
    positions = dict(model.positions)
    positions.update((name, pos) for _, name, pos in model.order)
    exp = sorted(n for n, pos in positions.items() if model.is_experimental(pos))
    o.append("# Declared under #ifdef EK_EXPERIMENTAL: outside the ABI promise, bound all the same.\n")
    o.append("EXPERIMENTAL = frozenset({\n" + "".join(f"    {n!r},\n" for n in exp) + "})\n\n")
    o.append("# static inline helpers of ek.h: not library symbols (the binding builds its own).\n")
    o.append("INLINE_FUNCTIONS = (\n" + "".join(f"    {n!r},\n" for n in model.inline) + ")\n\n")
    o.append("# Structs the library fills: the caller sets struct_size (see new()).\n")
    o.append("SIZED_STRUCTS = (\n" + "".join(f"    {n},\n" for n in model.sized) + ")\n\n\n")
    o.append('''\
def new(cls, count=None):
    """A zeroed ``cls`` with ``struct_size`` set (the _INIT macros of ek.h), or
    an array of ``count`` (>= 1) of them whose first element has it: the
    library takes that as the stride and sets it in every element it writes."""
    if cls not in SIZED_STRUCTS:
        raise TypeError(f"{cls.__name__} has no struct_size")
    if count is None:
        return cls(struct_size=ctypes.sizeof(cls))
    arr = (cls * count)()
    arr[0].struct_size = ctypes.sizeof(cls)
    return arr


def bind(lib):
    """Set argtypes/restype (and __doc__) on every function of ``lib``.

    Returns the list of functions declared in ek.h that ``lib`` lacks (a
    library older than the header); those are left unbound.
    """
    missing = []
    for name, (restype, argtypes, _params, doc) in FUNCTIONS.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            missing.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
        if doc:
            fn.__doc__ = doc
    return missing
''')
    return "".join(o)


def generate(header_path: str) -> str:
    with open(header_path, encoding="utf-8") as f:
        raw = f.read()
    text = join_continuations(strip_comments(raw))
    model = Model()
    text = strip_inline(text, model)
    parse_conditionals(text, model)
    names = dict(KNOWN_VALUES)
    parse_lists(text, model)
    parse_defines(text, model, names)
    parse_enums(text, model, names)
    parse_handles(text, model)
    parse_callbacks(text, model)
    parse_structs(text, model)
    parse_opaque(text, model)
    parse_functions(raw, text, model)
    return emit(model)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--header", default=DEFAULT_HEADER)
    ap.add_argument("--output", default=DEFAULT_OUTPUT)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="exit 1 with a diff when the output file is not up to date")
    g.add_argument("--stdout", action="store_true", help="print instead of writing")
    args = ap.parse_args(argv)
    try:
        new = generate(args.header)
    except GenError as e:
        print(f"gen_ffi.py: {args.header}: {e}", file=sys.stderr)
        return 2
    if args.stdout:
        sys.stdout.write(new)
        return 0
    try:
        with open(args.output, encoding="utf-8") as f:
            old = f.read()
    except FileNotFoundError:
        old = ""
    if args.check:
        if old == new:
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True),
            fromfile=args.output + " (committed)", tofile=args.output + " (from ek.h)"))
        print(f"\n{args.output} is stale: run python3 bindings/python/gen_ffi.py", file=sys.stderr)
        return 1
    if old != new:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
