"""Reads include/ek.h into a Model: status codes, X-macro lists, #define
constants, enums, handles, callbacks, structs, functions with their parameter
names and doc comments, and which declarations are experimental or
header-only. Every binding generator (tools/gen_bindings/emit_*.py) works from
this one model.

The header is parsed with regular expressions; it follows a small set of forms
(see the docstrings of the ``parse_*`` functions). ``static inline`` helpers
(the ek_scalar and ek_index_item constructors) are recorded, not bound;
``#ifdef EK_EXPERIMENTAL`` sections are parsed like the rest and marked; any
other conditional not in KNOWN_CONDITIONALS is an error. Anything the parser
does not understand inside those forms is an error, never silently skipped, so
that a header change cannot produce a binding with a wrong signature.
"""

from __future__ import annotations

import ast
import operator
import os
import re
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_HEADER = os.path.join(ROOT, "include", "ek.h")

# C scalar types the header may use.
C_SCALARS = frozenset({
    "void", "char", "signed char", "unsigned char", "short", "unsigned short", "int", "signed",
    "unsigned", "unsigned int", "long", "unsigned long", "long long", "unsigned long long",
    "float", "double", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t", "int64_t",
    "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t",
})

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
class Param:
    """One parameter, with what it means to a binding (``kind``):

    ``stream``, ``ctx``; ``tensor`` (an input handle); ``out`` (``ek_tensor *``:
    the op's result, NULL to allocate); ``scalar`` (``ek_scalar``),
    ``opt_scalar`` (``const ek_scalar *``, NULL for none); ``dtype``; ``enum``
    (any other enum type, in ``ctype``); ``flag`` (an ``int`` used as a bool,
    see FLAGS); ``count`` (the length of the ``array`` parameters that name it
    in ``count``); ``array`` (``const T *`` of ``elem`` T, ``count`` long);
    ``int`` / ``int64`` / ``uint64`` / ``size`` / ``double``; ``string``; and
    ``raw`` for the rest (pointers the binding marshals by hand)."""
    name: str
    ctype: str
    kind: str = "raw"
    elem: str | None = None
    count: str | None = None


@dataclass
class Function:
    name: str
    ret: str
    params: list          # [(ctype, name)] as declared
    doc: str
    experimental: bool = False
    sig: list = field(default_factory=list)  # [Param], see classify()

    @property
    def is_op(self) -> bool:
        """Enqueues work on a stream and returns tensors through ``ek_tensor *``
        outputs, every parameter of a kind a generator can marshal: the
        uniform shape each binding offers in its generated op forms."""
        kinds = [p.kind for p in self.sig]
        return bool(kinds) and kinds[0] == "stream" and "raw" not in kinds \
            and ("out" in kinds or "array_out" in kinds)

    @property
    def is_view(self) -> bool:
        """An ek_view_* function: a tensor in, views out, no stream."""
        return self.name.startswith("ek_view_") and "raw" not in [p.kind for p in self.sig]

    def __iter__(self):  # name, ret, params, doc = f
        return iter((self.name, self.ret, self.params, self.doc))


# int parameters that are booleans (nonzero = true).
FLAGS = frozenset({"keepdim", "accumulate", "scalar_first", "endpoint", "flags_bool", "descending", "stable",
                   "largest", "sorted", "right"})
# Integer parameters that give the length of the array parameters after them.
COUNT_NAMES = re.compile(r"n|ndims?|nshifts|n_\w+")
INTS = {"int": "int", "int64_t": "int64", "uint64_t": "uint64", "size_t": "size",
        "double": "double", "unsigned": "uint", "int32_t": "int"}


def classify(fn: Function, model: "Model") -> list:
    """The Param list of fn (see Param)."""
    enums = {t for t, _ in model.enums}
    params = fn.params
    out = []
    count = last_count = None
    for i, (ctype, name) in enumerate(params):
        t = squash(ctype)
        base = squash(re.sub(r"\b(const|struct)\b|\*", " ", t))
        stars = t.count("*")
        const = t.startswith("const")
        nxt = params[i + 1][0] if i + 1 < len(params) else ""
        p = Param(name, t)
        if stars == 0 and COUNT_NAMES.fullmatch(name) and base in ("int", "int64_t") \
                and "*" in nxt:
            p.kind, count = "count", name
            last_count = name
        elif stars == 1 and const and count and base not in ("char", "void", "ek_scalar"):
            p.kind, p.elem, p.count = "array", base, count
        elif stars == 1 and base == "ek_tensor" and not const:
            if last_count and name == "outs":
                p.kind, p.elem, p.count = "array_out", base, last_count
            else:
                p.kind = "out"
        else:
            count = None
            if stars == 0 and base == "ek_stream":
                p.kind = "stream"
            elif stars == 0 and base == "ek_context":
                p.kind = "ctx"
            elif stars == 0 and base == "ek_tensor":
                p.kind = "tensor"
            elif stars == 0 and base == "ek_scalar":
                p.kind = "scalar"
            elif stars == 1 and const and base == "ek_scalar":
                p.kind = "opt_scalar"
            elif stars == 0 and base == "ek_dtype":
                p.kind = "dtype"
            elif stars == 0 and base in enums:
                p.kind = "enum"
            elif stars == 0 and base == "int" and name in FLAGS:
                p.kind = "flag"
            elif stars == 0 and base in INTS:
                p.kind = INTS[base]
            elif stars == 1 and const and base == "char":
                p.kind = "string"
        out.append(p)
    return out


@dataclass
class Model:
    status: list = field(default_factory=list)        # (name, value, text)
    lists: dict = field(default_factory=dict)         # EK_*_LIST -> [(name, value, text)]
    list_comments: dict = field(default_factory=dict)  # list entry -> its /* comment */
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


def parse_list_comments(raw: str, model: Model) -> None:
    """The /* comment */ after an X-macro entry on its line
    (``X(EK_UNARY_SIGN, 2, "sign") /* sign(NaN) = NaN */``): the entry's doc."""
    pattern = r'X\(\s*(EK_\w+)\s*,\s*-?\d+\s*,\s*"[^"]*"\s*\)\s*/\*\s*(.*?)\s*\*/'
    model.list_comments = {name: squash(text) for name, text in re.findall(pattern, raw)}


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
        model.functions.append(Function(name, ret, split_params(params, name),
                                        docs_for(raw, name)))
        model.positions[name] = m.start()
    if not model.functions:
        raise GenError("no EK_API prototypes found")


def docs_for(raw: str, name: str) -> str:
    m = re.search(r"/\*\*((?:(?!\*/).)*?)\*/\s*EK_API\b[^;(]*?\b" + name + r"\s*\(", raw, re.S)
    if not m:
        return ""
    lines = [re.sub(r"^\s*\*?\s?", "", l).rstrip() for l in m.group(1).splitlines()]
    return squash(" ".join(lines))


def parse(header_path: str = DEFAULT_HEADER) -> Model:
    with open(header_path, encoding="utf-8") as f:
        raw = f.read()
    text = join_continuations(strip_comments(raw))
    model = Model()
    text = strip_inline(text, model)
    parse_conditionals(text, model)
    names = dict(KNOWN_VALUES)
    parse_lists(text, model)
    parse_list_comments(raw, model)
    parse_defines(text, model, names)
    parse_enums(text, model, names)
    parse_handles(text, model)
    parse_callbacks(text, model)
    parse_structs(text, model)
    parse_opaque(text, model)
    parse_functions(raw, text, model)
    for fn in model.functions:
        fn.experimental = model.is_experimental(model.positions[fn.name])
        fn.sig = classify(fn, model)
    return model
