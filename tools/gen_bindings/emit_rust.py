"""Emits bindings/rust/ek/src/generated.rs, the uniform part of the safe crate
`ek`: Rust enums for ek.h's enums and X-macro lists, the status constants, and
every op of the uniform shape (fn.is_op, fn.is_view) as Tensor methods in the
crate's forms, with rustdoc from the header. The raw layer (ek-sys) stays
bindgen's; what cannot be generated (lifetimes, operators, sugar) is in
bindings/rust/ek/src/*.rs.

Forms of an op `x.f(args)` (p): `f_into(args, &out)` (i), in place `f_(args)`
(x, out = self), `f_on(args, &stream, out)` (o). Constructors on a context
(`Tensor::f(ctx, args)`) have p and `f_on(ctx, args, &stream)`; views have p.
"""

from __future__ import annotations

import re
import textwrap

import header

PATH = "bindings/rust/ek/src/generated.rs"

HAND = {"ek_meshgrid", "ek_view_split_sizes", "ek_reduce_with_indices", "ek_view_slice",
        "ek_sort", "ek_topk", "ek_unique", "ek_diff"}  # sort.rs: several or optional tensors
NAMES = {"ek_view_reshape": "view"}
PLAIN = {"ek_where": "where_"}  # the p form's name when not the base name
STATIC = {"ek_where", "ek_axpby", "ek_concat", "ek_stack"}  # no self
INPLACE = {"ek_unary", "ek_binary", "ek_binary_scalar", "ek_clamp", "ek_lerp", "ek_tril", "ek_triu",
           "ek_scatter", "ek_index_put", "ek_masked_fill", "ek_masked_scatter"}
ALIAS = {"ek_reshape", "ek_contiguous", "ek_index"}  # a result may be a view of self
ORDER = {"ek_full": ["shape", "value", "dtype"]}  # Rust parameter order, when not C's
FIXED = {("ek_binary_scalar", "scalar_first"): "false", ("ek_scatter", "accumulate"): "false"}
FIXED_FORMS = {"ek_binary_scalar": "pix", "ek_scatter": "px"}  # forms without the fixed flag
SUFFIX = {"ek_binary_scalar": "_scalar"}  # per-op methods: add (ek_binary), add_scalar
KIND_NAMES = {"ek_softmax": {"plain": "softmax", "log": "log_softmax"},  # no public enum:
              "ek_scan": {"sum": "cumsum", "prod": "cumprod"},         # one method per kind
              "ek_var": {"variance": "var", "std": "std"}}
BOOL_RESULT = {"logical_not", "isnan", "isinf", "isfinite", "signbit", "eq", "ne", "lt", "le", "gt",
               "ge", "logical_and", "logical_or", "logical_xor"}  # per-op methods without x
ENUMS = {"ek_unary_op": "UnaryOp", "ek_binary_op": "BinaryOp", "ek_reduce_op": "ReduceOp",
         "ek_meshgrid_indexing": "MeshgridIndexing", "ek_module_origin": "ModuleOrigin",
         "ek_log_level": "LogLevel", "ek_device_type": "DeviceType", "ek_index_check": "IndexCheck",
         "ek_fusion": "Fusion"}
VARIANTS = {"isnan": "IsNan", "isinf": "IsInf", "isfinite": "IsFinite"}
TYPES = {"int": "i32", "int64": "i64", "uint64": "u64", "size": "usize", "double": "f64"}
ELEMS = {"int64_t": "i64", "int": "i32", "ek_tensor": "&Tensor", "ek_index_item": "Index<'_>"}


def camel(s: str) -> str:
    return VARIANTS.get(s) or "".join(w.capitalize() for w in s.lower().split("_"))


def cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def esc(text: str) -> str:
    """Header prose in rustdoc: brackets are not links."""
    return text.replace("[", "\\[").replace("]", "\\]")


def doc(text: str, indent: str = "") -> list:
    return [f"{indent}///{' ' if l else ''}{l}" for l in textwrap.wrap(text, 96 - len(indent))] or []


# ------------------------------------------------------------------ enums

def emit_enum(model, ctype: str, rust: str, comments: dict) -> list:
    items = dict(model.enums)[ctype]
    lst = next((l for l in model.lists.values() if l[0][0] == items[0][0]), None)
    shorts = {n: t for n, _, t in lst} if lst else {}
    if lst:
        names = [camel(shorts[n]) for n, _ in items]
    else:
        words = [n.split("_") for n, _ in items]
        k = 0
        while all(len(w) > k + 1 and w[k] == words[0][k] for w in words):
            k += 1
        names = [camel("_".join(w[k:])) for w in words]
    out = [f"/// `{ctype}`" + (f" (the header's `{k}`)" if lst else "") + "."
           for k in [next((k for k, v in model.lists.items() if v is lst), "")]]
    out += ["#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]"] + (["#[non_exhaustive]"] if lst else [])
    out += ["#[repr(u32)]", f"pub enum {rust} {{"]
    for (n, v), r in zip(items, names):
        out += doc(esc(cap(comments[n])) + ".", "    ") if n in comments else []
        out.append(f"    {r} = {v},")
    out += ["}", "", f"impl {rust} {{", "    /// Every value, in the order of `ek.h`.",
            f"    pub const ALL: [{rust}; {len(items)}] = [{', '.join(f'{rust}::{r}' for r in names)}];",
            "    /// The C constant.",
            f"    pub fn to_raw(self) -> sys::{ctype} {{", f"        sys::{ctype}(self as u32)", "    }",
            "    /// The value of a C constant; `None` for one this binding does not know.",
            f"    pub fn from_raw(raw: sys::{ctype}) -> Option<{rust}> {{",
            "        Self::ALL.into_iter().find(|v| v.to_raw() == raw)", "    }"]
    if lst:
        out += ["    /// The op's name in `ek.h` (`\"" + lst[0][2] + "\"`).",
                "    pub fn name(self) -> &'static str {", "        match self {"]
        out += [f"            {rust}::{r} => \"{shorts[n]}\"," for (n, _), r in zip(items, names)]
        out += ["        }", "    }"]
    return out + ["}", ""]


def emit_status(model) -> list:
    out = ["impl Status {"]
    for n, _, text in model.status:
        out += [f"    /// {cap(text)} (`{n}`).",
                f"    pub const {re.sub(r'^EK_(ERROR_)?', '', n)}: Status = Status(sys::ek_status::{n}.0);"]
    return out + ["}", ""]


# ------------------------------------------------------------------ ops

class Op:
    """One generated function family: its Rust parameters and the C call."""

    def __init__(self, fn, kind_item=None):
        self.fn, self.kind_item = fn, kind_item
        sig = fn.sig
        self.ctx = any(p.kind == "ctx" for p in sig)
        self.view = fn.is_view
        self.static = fn.name in STATIC or self.ctx
        tensors = [p.name for p in sig if p.kind == "tensor"]
        self.self_name = None if self.static else tensors[0]
        firsts = [p for p in sig if p.kind in ("tensor", "array")]
        self.source = "self" if self.self_name else None if self.ctx else (
            "src" if firsts and firsts[0].kind == "array" else (firsts[0].name if firsts else None))

    def params(self, form: str):
        """[(name, type)], generics, prelude lines, C arguments."""
        fn, params, gen, pre, args, primary = self.fn, [], [], [], [], {}
        for p in fn.sig:
            fixed = FIXED.get((fn.name, p.name)) if form in FIXED_FORMS.get(fn.name, "") else None
            k = p.kind
            if k == "stream":
                args.append("stream.as_raw()" if form == "o" else "std::ptr::null_mut()")
            elif k in ("out", "array_out"):
                args.append("o")
            elif k == "ctx":
                params.append(("ctx", "&Context"))
                args.append("ctx.inner.raw")
            elif k == "count":
                arr = next(q for q in fn.sig if q.kind == "array" and q.count == p.name)
                pre.append(f"let {p.name} = len_i32({arr.name}.len())?;")
                args.append(p.name)
            elif k == "array":
                params.append((p.name, f"&[{ELEMS[p.elem]}]"))
                if p.count in primary:
                    pre.append(f'same_len("{fn.name}", "{p.name}", {p.name}.len(), {primary[p.count]}.len())?;')
                primary.setdefault(p.count, p.name)
                if p.elem in ("ek_tensor", "ek_index_item"):
                    conv = "t.as_raw()" if p.elem == "ek_tensor" else "t.to_raw()"
                    pre.append(f"let {p.name}: Vec<_> = {p.name}.iter().map(|t| {conv}).collect();")
                args.append(f"ptr(&{p.name})")
            elif k == "tensor" and p.name == self.self_name:
                args.append("self.as_raw()")
            elif k == "tensor":
                params.append((p.name, "&Tensor"))
                args.append(f"{p.name}.as_raw()")
            elif k == "scalar":
                params.append((p.name, "impl Into<Scalar>"))
                pre.append(f"let {p.name} = {p.name}.into().to_raw();")
                args.append(p.name)
            elif k == "opt_scalar":
                g = p.name[0].upper()
                gen.append(f"{g}: Into<Scalar>")
                params.append((p.name, f"Option<{g}>"))
                pre.append(f"let {p.name} = {p.name}.map(|v| v.into().to_raw());")
                args.append(f"opt_ptr(&{p.name})")
            elif k == "dtype":
                params.append((p.name, "DType"))
                args.append(f"{p.name}.to_raw()")
            elif k == "enum" and self.kind_item:
                args.append(f"sys::{p.ctype}::{self.kind_item}")
            elif k == "enum":
                params.append((p.name, ENUMS[p.ctype]))
                args.append(f"{p.name}.to_raw()")
            elif k == "flag":
                if not fixed:
                    params.append((p.name, "bool"))
                args.append(f"{fixed or p.name} as i32")
            elif k in TYPES:
                params.append((p.name, TYPES[k]))
                args.append(p.name)
            else:
                raise header.GenError(f"emit_rust: {fn.name}: parameter {p.name} of kind {k}")
        if self.source == "src":
            arr = next(p.name for p in fn.sig if p.kind == "array")
            pre.append(f'let src = first({arr}, "{fn.name}")?;')
        order = ORDER.get(fn.name)
        if order:
            params.sort(key=lambda np: order.index(np[0]) if np[0] in order else -1)
        # Slices of tensors become raw vectors in the prelude: convert them last.
        pre.sort(key=lambda l: ("Vec<_>" in l) * 2 + ("let src" in l))
        return params, gen, pre, args

    def form(self, name: str, form: str, docs: list) -> list:
        params, gen, pre, args = self.params(form)
        call = f"unsafe {{ sys::{self.fn.name}({', '.join(args)}) }}"
        recv = [] if self.static else ["&self"]
        extra, ret = [], "Result<Tensor>"
        if self.ctx:
            extra = ["stream: &Stream"] if form == "o" else []
            body = f"Tensor::make(&ctx.inner, |o| {call})"
        elif self.view:
            body = f"self.view_of(|o| {call})"
        elif form in "ix":
            extra, ret = (["out: &Tensor"] if form == "i" else []), "Result<()>"
            body = f"Tensor::write_into({'out' if form == 'i' else 'self'}, |o| {call})"
        else:
            extra = ["stream: &Stream", "out: Option<&Tensor>"] if form == "o" else []
            prod = "produce_view" if self.fn.name in ALIAS else "produce"
            body = f"{self.source}.{prod}({'out' if form == 'o' else 'None'}, |o| {call})"
        pre = [l for l in pre if "src." in body or "let src" not in l]
        g = f"<{', '.join(gen)}>" if gen else ""
        ps = ", ".join(recv + [f"{n}: {t}" for n, t in params] + extra)
        return docs + [f"    pub fn {name}{g}({ps}) -> {ret} {{"] + \
            [f"        {l}" for l in pre] + [f"        {body}", "    }"]


def forms(fn) -> str:
    if fn.is_view:
        return "p"
    if any(p.kind == "ctx" for p in fn.sig):
        return "po"
    return "pixo" if fn.name in INPLACE else "pio"


def emit_family(op: Op, base: str, plain: str, main_doc: str) -> list:
    out = []
    for f in forms(op.fn):
        name = {"p": plain, "i": base + "_into", "x": base + "_", "o": base + "_on"}[f]
        link = f"[`Tensor::{plain}`]"
        d = {"p": main_doc,
             "i": f"{link} written into `out` (its shape and dtype are checked).",
             "x": f"{link} in place: `self` is the output.",
             "o": f"{link}, ordered on `stream`" + ("." if op.ctx else ", into `out` when given.")}[f]
        out += op.form(name, f, doc(d, "    ")) + [""]
    return out


def emit_named(op: Op, lst: list, comments: dict) -> list:
    """x.exp(), a.add(&b), a.add_scalar(2), x.sum(&[1], false), and in place."""
    fn, rust = op.fn, ENUMS[[p.ctype for p in op.fn.sig if p.kind == "enum"][0]]
    base = fn.name[3:]
    params, gen, _, _ = op.params("p")
    params = [(n, t) for n, t in params if t != rust]
    ps = ", ".join(["&self"] + [f"{n}: {t}" for n, t in params])
    out = []
    for item, _, short in lst:
        v, args = f"{rust}::{camel(short)}", ", ".join([f"{rust}::{camel(short)}"] + [n for n, _ in params])
        note = f" {esc(cap(comments[item]))}." if item in comments else ""
        name = short + SUFFIX.get(fn.name, "")
        out += [f"    /// [`{v}`] (see [`Tensor::{base}`]).{note}",
                f"    pub fn {name}({ps}) -> Result<Tensor> {{", f"        self.{base}({args})", "    }"]
        if fn.name in INPLACE and short not in BOOL_RESULT:
            out += [f"    /// [`{v}`] in place (see [`Tensor::{base}_`]).",
                    f"    pub fn {name}_({ps}) -> Result<()> {{", f"        self.{base}_({args})", "    }"]
    return out + [""]


def rust_name(fn) -> str:
    return NAMES.get(fn.name) or re.sub(r"^ek_(view_|tensor_)?", "", fn.name)


def emit(model) -> str:
    comments = model.list_comments
    out = ["// Generated by tools/gen_bindings from include/ek.h. DO NOT EDIT.",
           "// Regenerate with:  python3 tools/gen_bindings/gen.py",
           "// CI checks it with: python3 tools/gen_bindings/gen.py --check",
           "//! Enums, status codes and the uniform op forms of `ek.h` (see tools/gen_bindings/emit_rust.py).",
           "//! SAFETY of every call below: the handles are live (borrowed from `&Tensor`, `&Context`,",
           "//! `&Stream`), arrays point at `len` values that outlive the call, and `o` is the",
           "//! out-parameter of `make`/`produce`/`write_into`/`view_of` (NULL, or a live handle).",
           "#![allow(clippy::too_many_arguments, clippy::missing_safety_doc)]",
           "use ek_sys as sys;", "",
           "use crate::context::Context;", "use crate::dtype::DType;", "use crate::error::{Result, Status};",
           "use crate::indexing::Index;", "use crate::scalar::Scalar;", "use crate::stream::Stream;",
           "use crate::tensor::{first, len_i32, opt_ptr, ptr, same_len, Tensor};", ""]
    for ctype, rust in ENUMS.items():
        out += emit_enum(model, ctype, rust, comments)
    out += emit_status(model)
    out.append("impl Tensor {")
    for fn in model.functions:
        if not (fn.is_op or fn.is_view) or fn.name in HAND or fn.experimental:
            continue
        base = rust_name(fn)
        if fn.name in KIND_NAMES:
            enum = [p.ctype for p in fn.sig if p.kind == "enum"][0]
            for item, _ in dict(model.enums)[enum]:
                short = next(t for l in model.lists.values() for n, _, t in l if n == item)
                name = KIND_NAMES[fn.name][short]
                out += emit_family(Op(fn, item), name, name, f"{esc(fn.doc).rstrip('.')} (`{fn.name}` with `{item}`).")
            continue
        op = Op(fn)
        out += emit_family(op, base, PLAIN.get(fn.name, base), f"{esc(fn.doc).rstrip('.') or 'See ek.h'} (`{fn.name}`).")
        lst = next((l for p in fn.sig if p.kind == "enum" and p.ctype in ENUMS
                    for l in model.lists.values() if l[0][0] == dict(model.enums)[p.ctype][0][0]), None)
        if lst:
            out += emit_named(op, lst, comments)
    if out[-1] == "":
        out.pop()
    return "\n".join(out + ["}", ""])


def outputs(model) -> dict:
    return {PATH: emit(model)}
