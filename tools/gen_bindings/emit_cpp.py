"""Emits include/ek.hpp: libek for C++17, header-only, over ek.h.

Generated from the model: enum classes (from the enums and X-macro lists),
aliases of the sized structs, the handles' retain/release/destroy traits, the
uniform op and view forms (free functions in namespace ek and Tensor methods,
docs from ek.h), one function and method per op name of the op lists, and the
operators. The idiomatic core (RAII handles, ek::Error, ek::Scalar, indexing
keys, host copies, kernels) is the template CORE at the end of this file.
"""

from __future__ import annotations

import re
import textwrap

from header import Model

OUT = "include/ek.hpp"

# C parameter kind -> C++ parameter type.
TYPES = {"tensor": "const Tensor &", "scalar": "const Scalar &",
         "opt_scalar": "const std::optional<Scalar> &", "dtype": "DType", "flag": "bool",
         "int": "int", "int64": "int64_t", "uint64": "uint64_t", "size": "size_t",
         "double": "double", "string": "const std::string &", "ctx": "const Context &"}
ELEMS = {"int64_t": "int64_t", "int": "int", "ek_tensor": "Tensor", "ek_index_item": "Index"}
# Defaults, by kind then by parameter name (only a trailing run of them is kept).
KIND_DEFAULTS = {"flag": "false", "opt_scalar": "std::nullopt"}
NAME_DEFAULTS = {"correction": "1.0", "k": "0", "start_dim": "0", "end_dim": "-1"}
# C function -> C++ name where stripping "ek_" (and "tensor_" / "view_") is not it.
RENAME = {"ek_view_reshape": "view"}
# Per-op-name forms: the C function whose enum parameter a list fixes, and
# short names renamed for C++ (ek::cumsum rather than ek::sum of a scan).
PER_OP = {"ek_unary": {}, "ek_binary": {}, "ek_binary_scalar": {}, "ek_reduce": {},
          "ek_var": {"variance": "var"}, "ek_softmax": {"plain": "softmax", "log": "log_softmax"},
          "ek_scan": {"sum": "cumsum", "prod": "cumprod"}}
# Binary op short name -> C++ operator (the compound form is op + "=").
OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "remainder": "%",
             "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^", "shift_left": "<<",
             "shift_right": ">>", "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">",
             "ge": ">="}
COMPOUND = {"add", "sub", "mul", "div", "remainder", "bitwise_and", "bitwise_or",
            "bitwise_xor", "shift_left", "shift_right"}
TYPE_NAMES = {"ek_dtype": "DType"}


def camel(words: str) -> str:
    return "".join(w[:1].upper() + w[1:].lower() for w in words.split("_") if w)


def type_name(ctype: str) -> str:
    return TYPE_NAMES.get(ctype, camel(ctype[3:]))


def enum_members(entries) -> list:
    """[(C name, C++ member)]: the names less their common prefix, in CamelCase."""
    parts = [n.split("_") for n, _ in entries]
    k = 0
    while all(len(p) > k + 1 and p[k] == parts[0][k] for p in parts):
        k += 1
    return [(n, camel("_".join(p[k:]))) for (n, _), p in zip(entries, parts)]


def doc(text: str, indent: str = "") -> str:
    if not text:
        return ""
    return "".join(f"{indent}/// {l}\n" for l in textwrap.wrap(text, 92 - len(indent)))


def guard(experimental: bool, text: str) -> str:
    return f"#ifdef EK_EXPERIMENTAL\n{text}#endif\n" if experimental and text else text


class Emitter:
    def __init__(self, model: Model):
        self.model = model
        self.functions = {f.name: f for f in model.functions}
        self.member = {}    # C enum value -> "Type::Member"
        self.short = {}     # C enum value -> short name from its X-macro list
        for lst in model.lists.values():
            self.short.update((n, s) for n, _, s in lst)
        for t, entries in model.enums:
            self.member.update((n, f"{type_name(t)}::{m}") for n, m in enum_members(entries))

    # ------------------------------------------------------------ model parts

    def enums(self) -> str:
        out = []
        for t, entries in self.model.enums:
            items = "".join(f"  {m} = {n},\n" for n, m in enum_members(entries))
            out.append(f"/// {t}.\nenum class {type_name(t)} : int {{\n{items}}};\n")
        return "\n".join(out)

    def aliases(self) -> str:
        pos = {name: p for kind, name, p in self.model.order if kind == "struct"}
        return "".join(guard(self.model.is_experimental(pos[s]),
                             f"using {camel(s[3:])} = {s};\n") for s in self.model.sized)

    def handle_ops(self) -> str:
        out = []
        for h, _ in self.model.handles:
            obj = h[3:]
            body = []
            for verb, role in (("retain", "retain"), ("release", "destroy"), ("destroy", "destroy")):
                fn = self.functions.get(f"ek_{obj}_{verb}")
                if fn:
                    body.append(f"  static ek_status {role}({h} h) noexcept {{ return {fn.name}(h); }}\n")
            exp = any(self.functions[f"ek_{obj}_{v}"].experimental for v in ("release", "destroy")
                      if f"ek_{obj}_{v}" in self.functions)
            out.append(guard(exp, f"template <>\nstruct handle_ops<{h}> {{\n{''.join(body)}}};\n"))
        return "".join(out)

    # ------------------------------------------------------------ op forms

    def name(self, fn) -> str:
        return RENAME.get(fn.name, re.sub(r"^ek_(tensor_|view_)?", "", fn.name))

    def params(self, fn, drop=()) -> list:
        """C++ parameters [(type, name, default)]: inputs, outputs, stream."""
        ins, outs, stream = [], [], []
        for p in fn.sig:
            if p.name in drop or p.kind == "count":
                continue
            if p.kind == "stream":
                stream = [("StreamArg", p.name, "{}")]
            elif p.kind in ("out", "array_out"):
                if not fn.is_view:
                    t = "Tensor *" if p.kind == "out" else "std::vector<Tensor> *"
                    outs.append((t, p.name, "nullptr"))
            elif p.kind == "array":
                ins.append((f"Span<{ELEMS[p.elem]}>", p.name, "{}" if p.count == "ndims" else None))
            elif p.kind == "enum":
                ins.append((type_name(p.ctype), p.name, None))
            else:
                ins.append((TYPES[p.kind], p.name, NAME_DEFAULTS.get(p.name, KIND_DEFAULTS.get(p.kind))))
        params = ins + outs + stream
        for i in range(len(params) - 1, -1, -1):  # only a trailing run keeps its defaults
            if params[i][2] is None:
                params[:i] = [(t, n, None) for t, n, _ in params[:i]]
                break
        return params

    @staticmethod
    def ret(fn) -> str:
        outs = [p for p in fn.sig if p.kind in ("out", "array_out")]
        if outs[0].kind == "array_out":
            return "std::vector<Tensor>"
        if len(outs) > 2:  # ek_unique's values, inverse, counts
            return "std::tuple<" + ", ".join(["Tensor"] * len(outs)) + ">"
        return "Tensor" if len(outs) == 1 else "std::pair<Tensor, Tensor>"

    @staticmethod
    def plist(params, defaults: bool) -> str:
        return ", ".join(f"{t}{'' if t.endswith('*') or t.endswith('&') else ' '}{n}"
                         + (f" = {d}" if defaults and d is not None else "") for t, n, d in params)

    def body(self, fn) -> str:
        pre, args, post = [], [], []
        counts = {}
        for p in fn.sig:
            if p.kind == "array":
                pre.append(f"  const auto c_{p.name} = detail::c_array({p.name});\n")
                counts.setdefault(p.count, []).append(p.name)
        for c, arrays in counts.items():
            ctype = next(p.ctype for p in fn.sig if p.name == c)
            sizes = ", ".join(f"c_{a}.size()" for a in arrays)
            pre.append(f'  const auto {c} = detail::count<{ctype}>("{fn.name}", "{" ".join(arrays)}", '
                       f"{{{sizes}}});\n")
        results = []
        for p in fn.sig:
            k, n = p.kind, p.name
            if k == "out":
                pre.append(f"  ek_tensor o_{n} = {'nullptr' if fn.is_view else f'detail::out_of({n})'};\n")
                args.append(f"&o_{n}")
                results.append(f"Tensor::adopt(o_{n})" if fn.is_view else f"detail::result({n}, o_{n})")
            elif k == "array_out":
                src = "nullptr" if fn.is_view else n
                pre.append(f"  std::vector<ek_tensor> o_{n} = detail::outs_of({src}, static_cast<size_t>({p.count}));\n")
                args.append(f"o_{n}.data()")
                results.append(f"detail::results({src}, o_{n})")
            else:
                args.append({"stream": f"{n}.c", "ctx": f"{n}.get()", "tensor": f"{n}.get()",
                             "scalar": f"{n}.c()", "opt_scalar": f"detail::opt({n})",
                             "dtype": f"static_cast<ek_dtype>({n})",
                             "enum": f"static_cast<{p.ctype}>({n})", "flag": f"{n} ? 1 : 0",
                             "array": f"c_{n}.data()", "string": f"{n}.c_str()"}.get(k, n))
        res = results[0] if len(results) == 1 else "{" + ", ".join(results) + "}"
        return (f"{''.join(pre)}  detail::check({fn.name}({', '.join(args)}));\n"
                f"  return {res};\n")

    def self_param(self, fn):
        return next((p.name for p in fn.sig if p.kind == "tensor"), None)

    def uniform(self):
        """(declarations, Tensor methods, definitions) of every op and view."""
        decls, methods, defs = [], [], []
        for fn in self.model.functions:
            if not (fn.is_op or fn.is_view):
                continue
            name, params, ret = self.name(fn), self.params(fn), self.ret(fn)
            decls.append(guard(fn.experimental, doc(fn.doc) +
                               f"{ret} {name}({self.plist(params, True)});\n"))
            defs.append(guard(fn.experimental, f"inline {ret} {name}({self.plist(params, False)}) {{\n"
                              f"{self.body(fn)}}}\n"))
            self_name = self.self_param(fn)
            if self_name:
                methods.append(self.method(name, ret, params, self_name))
        return decls, methods, defs

    def method(self, name, ret, params, self_name, call=None) -> str:
        rest = [p for p in params if p[1] != self_name]
        call = call or [("*this" if n == self_name else n) for _, n, _ in params]
        return (f"  {ret} {name}({self.plist(rest, True)}) const {{ "
                f"return ek::{name}({', '.join(call)}); }}\n")

    def per_op(self):
        """ek::exp(x), x.exp(), ek::add(a, b), ek::add(a, 2), ek::sum(x, dims) ..."""
        decls, methods, defs, lists = [], [], [], []
        for cname, renames in PER_OP.items():
            fn = self.functions[cname]
            enum_p = next(p for p in fn.sig if p.kind == "enum")
            entries = dict(self.model.enums)[enum_p.ctype]
            uname, ret = self.name(fn), self.ret(fn)
            flag = next((p.name for p in fn.sig if p.name == "scalar_first"), None)
            params = self.params(fn, drop={enum_p.name, flag})
            self_name = self.self_param(fn)
            variants = [(params, "false")]
            if flag:  # scalar op tensor: the scalar comes first
                scalar = next(p for p in params if p[1] == "scalar")
                variants.append(([scalar] + [p for p in params if p is not scalar], "true"))
            names = [(renames.get(self.short[v], self.short[v]), v) for v, _ in entries]
            lists.append(f"/// X(name, op) for each ek::name that {cname} gives (smoke tests, tables).\n"
                         f"#define EK_HPP_{cname[3:].upper()}_NAMES(X)"
                         + "".join(f" \\\n  X({n}, {self.member[v]})" for n, v in names) + "\n")
            for name, value in names:
                for i, (ps, first) in enumerate(variants):
                    call = [self.member[value] if n == enum_p.name else first if n == flag else n
                            for _, n, _ in self.params(fn)]
                    decls.append(f"/// {cname}({value}{', scalar_first' if i else ''}), "
                                 f"see ek::{uname}.\n{ret} {name}({self.plist(ps, True)});\n")
                    defs.append(f"inline {ret} {name}({self.plist(ps, False)}) {{ "
                                f"return {uname}({', '.join(call)}); }}\n")
                    if i == 0 and self_name:
                        methods.append(self.method(name, ret, ps, self_name))
        return decls + lists, methods, defs

    def operators(self) -> str:
        out = []
        for value, _, short in self.model.lists["EK_BINARY_OP_LIST"]:
            op = OPERATORS.get(short)
            if not op:
                continue
            for a, b in (("Tensor", "Tensor"), ("Tensor", "Scalar"), ("Scalar", "Tensor")):
                out.append(f"inline Tensor operator{op}(const {a} &a, const {b} &b) "
                           f"{{ return {short}(a, b); }}\n")
            if short in COMPOUND:  # straight to C: no reference counting on the way
                for b, call in (("Tensor", f"ek_binary(nullptr, {value}, a.get(), b.get(), &h)"),
                                ("Scalar", f"ek_binary_scalar(nullptr, {value}, a.get(), b.c(), 0, &h)")):
                    out.append(f"inline Tensor &operator{op}=(Tensor &a, const {b} &b) {{\n"
                               f"  ek_tensor h = a.get();\n  detail::check({call});\n"
                               f"  return detail::assign(a, h);\n}}\n")
        return "".join(out)

    def emit(self) -> str:
        u_decls, u_methods, u_defs = self.uniform()
        p_decls, p_methods, p_defs = self.per_op()
        parts = {"@ENUMS@": self.enums(), "@ALIASES@": self.aliases(),
                 "@HANDLE_OPS@": self.handle_ops(), "@DECLS@": "\n".join(u_decls + p_decls),
                 "@METHODS@": "".join(u_methods + p_methods), "@DEFS@": "".join(u_defs + p_defs),
                 "@OPERATORS@": self.operators()}
        text = CORE
        for k, v in parts.items():
            text = text.replace(k, v.rstrip("\n"))
        return text


def outputs(model: Model) -> dict:
    return {OUT: Emitter(model).emit()}


CORE = r"""// Generated by tools/gen_bindings (emit_cpp.py) from include/ek.h. DO NOT EDIT.
/*
 * ek.hpp: libek for C++17, header-only, over the C API of ek.h (link -lek,
 * `pkg-config --cflags --libs ek`). Everything of ek.h is reachable from here,
 * and a C++ program never releases a handle by hand:
 *  - ek::Context, ek::Stream, ek::Event (and, under EK_EXPERIMENTAL,
 *    ek::ElementwiseKernel) own what they create and destroy it; they move and
 *    do not copy. ek::Tensor, ek::Module and ek::Kernel are references: a copy
 *    retains, the destructor releases. Destroy a context after its tensors
 *    (declare it first); close() destroys now and throws on failure.
 *  - Every failing call throws ek::Error: status() and what(), the message
 *    ek_last_error() gave on the failing thread.
 *  - Values are ek::Scalar, made from any integer, float or bool type with its
 *    kind (64-bit integers stay exact).
 *  - Every op has the form ek::<op>(inputs..., Tensor *out = nullptr,
 *    StreamArg stream = {}) and a Tensor method; *out given (an empty Tensor
 *    receives a new one) is written, as ek.h's op-output rule says. The
 *    operators + - * / % & | ^ << >> and comparisons work on tensors and
 *    scalars, and += etc. write in place by ek.h's in-place dtype rule.
 *  - x.index({1, ek::Slice(std::nullopt, std::nullopt, -2), idx, ek::Ellipsis,
 *    ek::NewAxis}) and x.index_assign(key, value) index as NumPy (ek_index).
 */
#ifndef EK_HPP
#define EK_HPP

#include "ek.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ek {

// ---------------------------------------------------------------- enums

@ENUMS@

// ---------------------------------------------------------------- errors

/// What every failing call throws: the status and ek_last_error()'s message.
class Error : public std::exception {
 public:
  Error(Status status, std::string message) : status_(status), message_(std::move(message)) {}
  Status status() const noexcept { return status_; }
  const char *what() const noexcept override { return message_.c_str(); }

 private:
  Status status_;
  std::string message_;
};

namespace detail {
inline void check(ek_status s) {
  if (s != EK_SUCCESS) throw Error(static_cast<Status>(s), ek_last_error());
}
[[noreturn]] inline void fail(ek_status s, const std::string &message) {
  throw Error(static_cast<Status>(s), message);
}
}  // namespace detail

inline unsigned version() { return ek_version(); }
inline std::string version_string() { return ek_version_string(); }
inline std::string status_string(Status s) { return ek_status_string(static_cast<ek_status>(s)); }
inline std::string status_description(Status s) {
  return ek_status_description(static_cast<ek_status>(s));
}
/// This thread's last error message ("" when none); ek::Error carries it already.
inline std::string last_error() { return ek_last_error(); }
inline void clear_error() { ek_clear_error(); }
/// Live handles of the process (contexts, streams, events, tensors, ...), for leak checks.
inline int64_t live_handles() {
  int64_t n = 0;
  detail::check(ek_live_handles(&n));
  return n;
}
inline size_t dtype_size(DType d) { return ek_dtype_size(static_cast<ek_dtype>(d)); }
inline std::string dtype_name(DType d) { return ek_dtype_name(static_cast<ek_dtype>(d)); }

/// The dtype of a C++ type: bool, uint8_t, int8_t ... int64_t, float, double.
template <class T>
constexpr DType dtype_of() {
  static_assert(std::is_arithmetic_v<T>, "ek::dtype_of: not an arithmetic type");
  if constexpr (std::is_same_v<T, bool>) {
    return DType(EK_BOOL);
  } else if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "ek::dtype_of: float32 or float64 only");
    return DType(sizeof(T) == 4 ? EK_FLOAT32 : EK_FLOAT64);
  } else if constexpr (std::is_unsigned_v<T>) {
    static_assert(sizeof(T) == 1, "ek::dtype_of: libek's unsigned dtype is uint8");
    return DType(EK_UINT8);
  } else {
    return DType(sizeof(T) == 1 ? EK_INT8 : sizeof(T) == 2 ? EK_INT16 : sizeof(T) == 4 ? EK_INT32
                                                                                      : EK_INT64);
  }
}

// ---------------------------------------------------------------- values

/// A value with its kind (ek_scalar): bool, signed integers (int64), unsigned
/// integers (uint64) and floats (float64) keep theirs, so 2^60 stays exact.
class Scalar {
 public:
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Scalar(T v) : s_(make(v)) {}  // NOLINT: implicit, as a number in an expression
  Scalar(const ek_scalar &s) : s_(s) {}
  const ek_scalar &c() const noexcept { return s_; }
  ScalarKind kind() const noexcept { return static_cast<ScalarKind>(s_.kind); }

 private:
  template <class T>
  static ek_scalar make(T v) {
    if constexpr (std::is_same_v<T, bool>) return ek_scalar_bool(v ? 1 : 0);
    else if constexpr (std::is_floating_point_v<T>) return ek_scalar_float(static_cast<double>(v));
    else if constexpr (std::is_signed_v<T>) return ek_scalar_int(static_cast<int64_t>(v));
    else return ek_scalar_uint(static_cast<uint64_t>(v));
  }
  ek_scalar s_;
};

/// A borrowed array argument: {1, 2}, a std::vector, a std::array, one value or
/// (pointer, size). Valid for the call it is passed to.
template <class T>
class Span {
  static constexpr bool number = std::is_arithmetic_v<T>;

 public:
  Span() noexcept = default;
  // The list's array lives until the end of the full expression of the call.
  Span(std::initializer_list<T> l) noexcept : p_(std::data(l)), n_(l.size()) {}
  Span(const std::vector<T> &v) noexcept : p_(v.data()), n_(v.size()) {}
  template <size_t N>
  Span(const std::array<T, N> &a) noexcept : p_(a.data()), n_(N) {}
  Span(const T *p, size_t n) noexcept : p_(p), n_(n) {}
  /// One value; an integer for an array of another integer type is converted.
  template <class U, std::enable_if_t<std::is_same_v<U, T> || (number && std::is_integral_v<U> &&
                                                               std::is_integral_v<T>), int> = 0>
  Span(const U &one) noexcept : n_(1) {
    if constexpr (number) {
      one_ = static_cast<T>(one);
      p_ = &one_;
    } else {
      p_ = &one;
    }
  }
  Span(const Span &o) noexcept : one_(o.one_), p_(o.p_), n_(o.n_) {
    if constexpr (number) p_ = o.p_ == &o.one_ ? &one_ : o.p_;
  }
  Span &operator=(const Span &) = delete;
  const T *data() const noexcept { return n_ ? p_ : nullptr; }
  size_t size() const noexcept { return n_; }
  const T *begin() const noexcept { return p_; }
  const T *end() const noexcept { return p_ + n_; }

 private:
  std::conditional_t<number, T, char> one_{};
  const T *p_ = nullptr;
  size_t n_ = 0;
};

// ---------------------------------------------------------------- devices

struct Device {
  DeviceType type = DeviceType(EK_CPU);
  int index = 0;
  static Device cpu() { return {}; }
  static Device cuda(int index = 0) { return {DeviceType(EK_CUDA), index}; }
  static Device of(ek_device d) { return {static_cast<DeviceType>(d.type), d.index}; }
  ek_device c() const { return {static_cast<ek_device_type>(type), index}; }
  bool operator==(const Device &o) const { return type == o.type && index == o.index; }
  bool operator!=(const Device &o) const { return !(*this == o); }
};

// The structs the library fills, struct_size set by ek::sized<T>().
@ALIASES@
template <class T>
T sized() {
  T v{};
  v.struct_size = sizeof(T);
  return v;
}

/// Devices of a type (CPU: 1; CUDA: 0 without a driver or GPU).
inline int device_count(DeviceType type) {
  int n = 0;
  detail::check(ek_device_get_count(static_cast<ek_device_type>(type), &n));
  return n;
}
inline DeviceInfo device_info(Device d) {
  DeviceInfo info = sized<DeviceInfo>();
  detail::check(ek_device_get_info(d.c(), &info));
  return info;
}

// ---------------------------------------------------------------- handles

namespace detail {
template <class H>
struct handle_ops;
@HANDLE_OPS@

// Created and destroyed (contexts, streams, events): moves, never copies; a
// borrowed one (a context's default stream, a tensor's context) is not destroyed.
template <class H>
class Unique {
 public:
  Unique() noexcept = default;
  Unique(Unique &&o) noexcept : h_(std::exchange(o.h_, nullptr)), owned_(o.owned_) {}
  Unique &operator=(Unique &&o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
      owned_ = o.owned_;
    }
    return *this;
  }
  ~Unique() { reset(); }
  H get() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != nullptr; }
  bool owned() const noexcept { return owned_; }
  /// Destroys now; ek::Error (and the handle kept) when the library refuses.
  void close() {
    if (h_ && owned_) check(handle_ops<H>::destroy(h_));
    h_ = nullptr;
  }
  /// Gives up ownership: the caller destroys the handle.
  H detach() noexcept { return std::exchange(h_, nullptr); }

 protected:
  Unique(H h, bool owned) noexcept : h_(h), owned_(owned) {}
  void reset() noexcept {
    if (h_ && owned_) handle_ops<H>::destroy(h_);
    h_ = nullptr;
  }
  H h_ = nullptr;
  bool owned_ = true;
};

// Reference-counted (tensors, modules, kernels): a copy retains, the destructor releases.
template <class H>
class Shared {
 public:
  Shared() noexcept = default;
  Shared(const Shared &o) : h_(o.h_) {
    if (h_) check(handle_ops<H>::retain(h_));
  }
  Shared(Shared &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Shared &operator=(const Shared &o) {
    if (h_ != o.h_) {
      Shared copy(o);
      std::swap(h_, copy.h_);
    }
    return *this;
  }
  Shared &operator=(Shared &&o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  ~Shared() { reset(); }
  H get() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != nullptr; }
  /// Gives up this reference: the caller releases the handle.
  H detach() noexcept { return std::exchange(h_, nullptr); }
  void reset() noexcept {
    if (h_) handle_ops<H>::destroy(h_);
    h_ = nullptr;
  }

 protected:
  H h_ = nullptr;
};
}  // namespace detail

class Stream;

/// A context on one device: its memory pool, default stream, caches, generator.
class Context : public detail::Unique<ek_context> {
 public:
  Context() noexcept = default;
  explicit Context(Device device, const ContextConfig *config = nullptr) {
    detail::check(ek_context_create(device.c(), config, &h_));
  }
  Context(Context &&) noexcept = default;
  Context &operator=(Context &&o) noexcept {
    if (this != &o) {
      reset();
      Unique::operator=(std::move(o));
      memory_callback_ = std::move(o.memory_callback_);
    }
    return *this;
  }
  ~Context() { reset(); }  // before memory_callback_ goes
  /// A context owned elsewhere: not destroyed by this object.
  static Context borrow(ek_context c) noexcept { return Context(c, false); }
  /// A config with every field "not set" (ek_context_config_init).
  static ContextConfig default_config() {
    ContextConfig config;
    detail::check(ek_context_config_init(&config));
    return config;
  }
  Device device() const {
    ek_device d;
    detail::check(ek_context_get_device(h_, &d));
    return Device::of(d);
  }
  ContextConfig config() const {
    ContextConfig config = sized<ContextConfig>();
    detail::check(ek_context_get_config(h_, &config));
    return config;
  }
  void synchronize() const { detail::check(ek_context_synchronize(h_)); }
  inline Stream default_stream() const;
  /// Fusion counters since creation (ek.h, the fusion section).
  FusionStats fusion_stats() const {
    FusionStats stats = sized<FusionStats>();
    detail::check(ek_context_get_fusion_stats(h_, &stats));
    return stats;
  }

  MemoryStats memory_stats() const {
    MemoryStats stats = sized<MemoryStats>();
    detail::check(ek_memory_get_stats(h_, &stats));
    return stats;
  }
  void reset_peaks() const { detail::check(ek_memory_reset_peaks(h_)); }
  void empty_cache() const { detail::check(ek_memory_empty_cache(h_)); }
  void set_memory_limit(uint64_t bytes) const { detail::check(ek_memory_set_limit(h_, bytes)); }
  void set_memory_fraction(double f) const { detail::check(ek_memory_set_fraction(h_, f)); }
  std::vector<MemoryBlock> memory_snapshot() const {
    size_t count = 0;
    detail::check(ek_memory_get_snapshot(h_, nullptr, 0, &count));
    std::vector<MemoryBlock> blocks(count + 16, sized<MemoryBlock>());  // it may grow
    detail::check(ek_memory_get_snapshot(h_, blocks.data(), blocks.size(), &count));
    blocks.resize(std::min(count, blocks.size()));
    return blocks;
  }
  std::string memory_snapshot_json() const {
    size_t length = 0;
    std::string text;
    do {
      text.resize(length + 1);
      detail::check(ek_memory_get_snapshot_json(h_, &text[0], text.size(), &length));
    } while (length >= text.size());
    text.resize(length);
    return text;
  }
  void write_memory_snapshot_json(const std::string &path) const {
    detail::check(ek_memory_write_snapshot_json(h_, path.c_str()));
  }
  using MemoryCallback = std::function<void(MemoryEvent event, uint64_t bytes)>;
  /// ek_memory_set_callback; the function lives as long as this (owning) Context.
  void set_memory_callback(MemoryCallback callback, uint64_t threshold_bytes = 0) {
    if (!owned_) detail::fail(EK_ERROR_INVALID_ARGUMENT, "ek::Context::set_memory_callback: a borrowed context");
    auto next = callback ? std::make_unique<MemoryCallback>(std::move(callback)) : nullptr;
    auto trampoline = [](ek_context, ek_memory_event e, uint64_t bytes, void *user) {
      try {
        (*static_cast<MemoryCallback *>(user))(static_cast<MemoryEvent>(e), bytes);
      } catch (...) {  // nothing may unwind through the C library
      }
    };
    detail::check(ek_memory_set_callback(h_, next ? +trampoline : nullptr, next.get(), threshold_bytes));
    memory_callback_ = std::move(next);
  }
  /// Seeds the context's random generator (offset back to 0).
  void seed(uint64_t seed) const { detail::check(ek_random_set_seed(h_, seed)); }
  PhiloxState random_state() const {
    PhiloxState state = sized<PhiloxState>();
    detail::check(ek_random_get_state(h_, &state));
    return state;
  }
  void clear_kernel_cache() const { detail::check(ek_kernel_cache_clear(h_)); }
#ifdef EK_EXPERIMENTAL
  void profiler_start() const { detail::check(ek_profiler_start(h_)); }
  void profiler_stop() const { detail::check(ek_profiler_stop(h_)); }
  std::vector<ProfileRecord> profiler_records() const {
    size_t count = 0;
    detail::check(ek_profiler_get_records(h_, nullptr, 0, &count));
    std::vector<ProfileRecord> records(count, sized<ProfileRecord>());
    detail::check(ek_profiler_get_records(h_, records.data(), records.size(), &count));
    records.resize(std::min(count, records.size()));
    return records;
  }
  std::string profiler_summary() const {
    size_t length = 0;
    detail::check(ek_profiler_get_summary(h_, nullptr, 0, &length));
    std::string text(length + 1, '\0');
    detail::check(ek_profiler_get_summary(h_, &text[0], text.size(), &length));
    text.resize(std::min(length, text.size() - 1));
    return text;
  }
  void write_chrome_trace(const std::string &path) const {
    detail::check(ek_profiler_write_chrome_trace(h_, path.c_str()));
  }
#endif

 private:
  Context(ek_context c, bool owned) noexcept : Unique(c, owned) {}
  std::unique_ptr<MemoryCallback> memory_callback_;
};

class Event;
class Graph;
class GraphPool;

/// A stream of a context (a non-blocking cudaStream_t on CUDA).
class Stream : public detail::Unique<ek_stream> {
 public:
  Stream() noexcept = default;
  explicit Stream(const Context &ctx) { detail::check(ek_stream_create(ctx.get(), &h_)); }
  /// Wraps a cudaStream_t without owning it (CUDA contexts).
  static Stream wrap(const Context &ctx, void *native) {
    Stream s;
    detail::check(ek_stream_wrap(ctx.get(), native, &s.h_));
    return s;
  }
  static Stream borrow(ek_stream s) noexcept { return Stream(s, false); }
  void synchronize() const { detail::check(ek_stream_synchronize(h_)); }
  /// Fusion override: EK_FUSION_OFF, _ON, _ROUNDED, or 0 to follow the context.
  void set_fusion(ek_fusion f) const { detail::check(ek_stream_set_fusion(h_, f)); }
  ek_fusion fusion() const {
    ek_fusion f = ek_fusion(0);
    detail::check(ek_stream_get_fusion(h_, &f));
    return f;
  }
  /// Evaluates the stream's pending fusion group now.
  void flush() const { detail::check(ek_stream_flush(h_)); }
  /// True when all work submitted so far has completed.
  bool query() const {
    int done = 0;
    detail::check(ek_stream_query(h_, &done));
    return done != 0;
  }
  inline void wait(const Event &event) const;
  void *native() const {
    void *n = nullptr;
    detail::check(ek_stream_get_native(h_, &n));
    return n;
  }
  Context context() const {
    ek_context c = nullptr;
    detail::check(ek_stream_get_context(h_, &c));
    return Context::borrow(c);
  }
  /// CUDA graphs: capture the work enqueued on this stream (pool nullptr: a
  /// pool of the graph's own), then capture_end() gives the graph.
  inline void capture_begin(const GraphPool *pool = nullptr,
                            CaptureMode mode = CaptureMode::Global) const;
  inline Graph capture_end() const;
  bool is_capturing() const {
    int c = 0;
    detail::check(ek_stream_is_capturing(h_, &c));
    return c != 0;
  }

 private:
  Stream(ek_stream s, bool owned) noexcept : Unique(s, owned) {}
};

inline Stream Context::default_stream() const {
  ek_stream s = nullptr;
  detail::check(ek_context_get_default_stream(h_, &s));
  return Stream::borrow(s);
}

/// The stream argument of a call: a Stream, a raw ek_stream, or {} for the
/// default stream of the context involved.
struct StreamArg {
  StreamArg() noexcept = default;
  StreamArg(const Stream &s) noexcept : c(s.get()) {}
  StreamArg(ek_stream s) noexcept : c(s) {}
  ek_stream c = nullptr;
};

/// An event with timing (ek_event_*).
class Event : public detail::Unique<ek_event> {
 public:
  Event() noexcept = default;
  explicit Event(const Context &ctx) { detail::check(ek_event_create(ctx.get(), &h_)); }
  void record(StreamArg stream = {}) const { detail::check(ek_event_record(stream.c, h_)); }
  void synchronize() const { detail::check(ek_event_synchronize(h_)); }
  bool query() const {
    int done = 0;
    detail::check(ek_event_query(h_, &done));
    return done != 0;
  }
  /// Milliseconds from start to end (both recorded and completed).
  static float elapsed_ms(const Event &start, const Event &end) {
    float ms = 0;
    detail::check(ek_event_get_elapsed_ms(start.get(), end.get(), &ms));
    return ms;
  }
};

inline void Stream::wait(const Event &event) const {
  detail::check(ek_stream_wait_event(h_, event.get()));
}

/// A pool that graph captures may share (ek_graph_pool_*; CUDA contexts).
class GraphPool : public detail::Unique<ek_graph_pool> {
 public:
  GraphPool() noexcept = default;
  explicit GraphPool(const Context &ctx) { detail::check(ek_graph_pool_create(ctx.get(), &h_)); }
  MemoryStats stats() const {
    MemoryStats st = sized<MemoryStats>();
    detail::check(ek_graph_pool_get_stats(h_, &st));
    return st;
  }
};

/// A captured CUDA graph (ek_graph_*): launch() replays it.
class Graph : public detail::Unique<ek_graph> {
 public:
  Graph() noexcept = default;
  void launch(StreamArg stream = {}) const { detail::check(ek_graph_launch(stream.c, h_)); }
  void upload(StreamArg stream = {}) const { detail::check(ek_graph_upload(stream.c, h_)); }

 private:
  friend class Stream;
};

inline void Stream::capture_begin(const GraphPool *pool, CaptureMode mode) const {
  detail::check(ek_graph_capture_begin(h_, pool ? pool->get() : nullptr,
                                       static_cast<ek_capture_mode>(mode)));
}
inline Graph Stream::capture_end() const {
  Graph g;
  detail::check(ek_graph_capture_end(h_, &g.h_));
  return g;
}

/// Sends the library's log to callback (process-wide; an empty function restores stderr).
inline void set_log_callback(std::function<void(LogLevel, const char *)> callback) {
  using Fn = std::function<void(LogLevel, const char *)>;
  static std::mutex lock;
  static std::unique_ptr<Fn> current;
  std::lock_guard<std::mutex> guard(lock);
  auto next = callback ? std::make_unique<Fn>(std::move(callback)) : nullptr;
  auto trampoline = [](ek_log_level level, const char *message, void *user) {
    try {
      (*static_cast<Fn *>(user))(static_cast<LogLevel>(level), message);
    } catch (...) {  // nothing may unwind through the C library
    }
  };
  detail::check(ek_log_set_callback(next ? +trampoline : nullptr, next.get()));
  current = std::move(next);  // no call to the previous one runs any more
}

// ---------------------------------------------------------------- raw memory

/// Stream-ordered bytes from ctx's pool (ek_malloc); give them back with ek::free.
inline void *malloc(const Context &ctx, size_t bytes, StreamArg stream = {}) {
  void *p = nullptr;
  detail::check(ek_malloc(stream.c, ctx.get(), bytes, &p));
  return p;
}
inline void free(const Context &ctx, void *ptr, StreamArg stream = {}) {
  detail::check(ek_free(stream.c, ctx.get(), ptr));
}
inline void record_stream(const Context &ctx, void *ptr, StreamArg stream) {
  detail::check(ek_record_stream(stream.c, ctx.get(), ptr));
}
/// Copies bytes from src to dst (ek.h's order: output last).
inline void memcpy(const Context &ctx, const void *src, void *dst, size_t bytes, StreamArg stream = {}) {
  detail::check(ek_memcpy(stream.c, ctx.get(), src, dst, bytes));
}

// ---------------------------------------------------------------- indexing keys

class Tensor;

/// start:stop:step; an empty bound is Python's None.
struct Slice {
  Slice(std::optional<int64_t> start_ = std::nullopt, std::optional<int64_t> stop_ = std::nullopt,
        std::optional<int64_t> step_ = std::nullopt)
      : start(start_), stop(stop_), step(step_) {}
  std::optional<int64_t> start, stop, step;
};
struct EllipsisType {};
struct NewAxisType {};
/// ... in a key.
inline constexpr EllipsisType Ellipsis{};
/// None (numpy.newaxis) in a key: a new dim of size 1.
inline constexpr NewAxisType NewAxis{};

/// One item of an indexing key (ek_index_item): an integer, a Slice, ek::Ellipsis,
/// ek::NewAxis, or an index tensor / bool mask (borrowed for the call).
class Index {
 public:
  Index(int64_t i) noexcept : item_(ek_index_item_int(i)) {}
  Index(const Slice &s) noexcept
      : item_(ek_index_item_slice(s.start.value_or(EK_SLICE_MIN), s.stop.value_or(EK_SLICE_MAX),
                                  s.step.value_or(1))) {}
  Index(EllipsisType) noexcept : item_(ek_index_item_ellipsis()) {}
  Index(NewAxisType) noexcept : item_(ek_index_item_none()) {}
  inline Index(const Tensor &t) noexcept;
  const ek_index_item &c() const noexcept { return item_; }

 private:
  ek_index_item item_;
};

namespace detail {
template <class T>
struct CArray {
  const T *p;
  size_t n;
  const T *data() const noexcept { return p; }
  size_t size() const noexcept { return n; }
};
template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
CArray<T> c_array(const Span<T> &s) noexcept {  // by reference: s may hold the one value
  return {s.data(), s.size()};
}
inline std::vector<ek_index_item> c_array(const Span<Index> &s) {
  std::vector<ek_index_item> v;
  v.reserve(s.size());
  for (const Index &i : s) v.push_back(i.c());
  return v;
}
inline std::vector<ek_tensor> c_array(const Span<Tensor> &s);
// The count of arrays that share it: the first's size; the others have it or are empty.
template <class I>
I count(const char *fn, const char *names, std::initializer_list<size_t> sizes) {
  size_t n = *sizes.begin();
  for (size_t s : sizes)
    if (s != n && s != 0)
      fail(EK_ERROR_INVALID_ARGUMENT, std::string(fn) + ": the arrays " + names + " differ in length");
  if (n > static_cast<size_t>(std::numeric_limits<I>::max()))
    fail(EK_ERROR_OVERFLOW, std::string(fn) + ": too many entries in " + names);
  return static_cast<I>(n);
}
inline const ek_scalar *opt(const std::optional<Scalar> &s) noexcept { return s ? &s->c() : nullptr; }
inline ek_tensor out_of(const Tensor *out) noexcept;
inline Tensor result(Tensor *out, ek_tensor h);
inline std::vector<ek_tensor> outs_of(const std::vector<Tensor> *outs, size_t n);
inline std::vector<Tensor> results(std::vector<Tensor> *outs, const std::vector<ek_tensor> &hs);
}  // namespace detail

// ---------------------------------------------------------------- ops (declarations)

@DECLS@

// ---------------------------------------------------------------- tensors

/// A reference to a tensor (a view of reference-counted storage).
class Tensor : public detail::Shared<ek_tensor> {
 public:
  Tensor() noexcept = default;
  /// Takes over a reference the caller owned (an ek_tensor an op returned).
  static Tensor adopt(ek_tensor t) noexcept {
    Tensor x;
    x.h_ = t;
    return x;
  }
  /// A new reference to t (retained).
  static Tensor borrow(ek_tensor t) {
    if (t) detail::check(ek_tensor_retain(t));
    return adopt(t);
  }
  /// Memory owned elsewhere (ek_tensor_wrap): deleter(data, user_data) runs with the last view.
  static Tensor wrap(const Context &ctx, void *data, Span<int64_t> shape, DType dtype,
                     Span<int64_t> strides = {}, ek_deleter deleter = nullptr, void *user_data = nullptr) {
    const int n = detail::count<int>("ek_tensor_wrap", "shape strides", {shape.size(), strides.size()});
    Tensor t;
    detail::check(ek_tensor_wrap(ctx.get(), data, n, shape.data(), strides.data(),
                                 static_cast<ek_dtype>(dtype), deleter, user_data, &t.h_));
    return t;
  }
  /// Consumes src on success (ek_tensor_from_dlpack); flags EK_DLPACK_COPY / _NO_COPY.
  static Tensor from_dlpack(const Context &ctx, DLManagedTensorVersioned *src, int flags = 0) {
    Tensor t;
    detail::check(ek_tensor_from_dlpack(ctx.get(), src, flags, &t.h_));
    return t;
  }
  /// A DLPack view; its owner calls (*out)->deleter(*out) once.
  DLManagedTensorVersioned *to_dlpack() const {
    DLManagedTensorVersioned *out = nullptr;
    detail::check(ek_tensor_to_dlpack(h_, &out));
    return out;
  }

  TensorInfo info() const {
    TensorInfo i = sized<TensorInfo>();
    detail::check(ek_tensor_get_info(h_, &i));
    return i;
  }
  DType dtype() const { return static_cast<DType>(info().dtype); }
  int ndim() const { return info().ndim; }
  std::vector<int64_t> shape() const {
    TensorInfo i = info();
    return std::vector<int64_t>(i.shape, i.shape + i.ndim);
  }
  std::vector<int64_t> strides() const {
    TensorInfo i = info();
    return std::vector<int64_t>(i.strides, i.strides + i.ndim);
  }
  int64_t numel() const { return info().numel; }
  uint64_t nbytes() const { return info().nbytes; }
  bool is_contiguous() const { return info().is_contiguous != 0; }
  Device device() const { return Device::of(info().device); }
  /// Produces the contents now if a fusion group holds them pending.
  void eval() const { detail::check(ek_tensor_eval(h_)); }
  /// Element 0 (device memory on CUDA); borrowed.
  void *data() const {
    void *p = nullptr;
    detail::check(ek_tensor_get_data(h_, &p));
    return p;
  }
  /// The tensor's context, borrowed.
  Context context() const {
    ek_context c = nullptr;
    detail::check(ek_tensor_get_context(h_, &c));
    return Context::borrow(c);
  }
  void record_stream(StreamArg stream) const { detail::check(ek_tensor_record_stream(stream.c, h_)); }

  /// Copies to host memory (C order, bytes = numel * dtype size). Synchronous.
  void to_host(void *dst, size_t bytes, StreamArg stream = {}) const {
    detail::check(ek_tensor_to_host(stream.c, h_, dst, bytes));
  }
  /// The values in C order as T (converted by ek_cast first when the dtype differs).
  template <class T>
  std::vector<T> to_vector(StreamArg stream = {}) const {
    constexpr DType want = dtype_of<T>();
    if (dtype() != want) return cast(want, nullptr, stream).template to_vector<T>(stream);
    if constexpr (std::is_same_v<T, bool>) {
      std::vector<uint8_t> bytes(static_cast<size_t>(numel()));
      to_host(bytes.data(), bytes.size(), stream);
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> v(static_cast<size_t>(numel()));
      to_host(v.data(), v.size() * sizeof(T), stream);
      return v;
    }
  }
  /// The one value of a one-element tensor.
  template <class T>
  T item(StreamArg stream = {}) const {
    if (numel() != 1) detail::fail(EK_ERROR_SHAPE, "ek::Tensor::item: the tensor has " + std::to_string(numel()) + " elements, not 1");
    return to_vector<T>(stream)[0];
  }
  Tensor &fill(const Scalar &value, StreamArg stream = {}) {
    detail::check(ek_fill(stream.c, value.c(), h_));
    return *this;
  }
  /// dst[...] = this, broadcast and cast (ek_copy).
  void copy_to(const Tensor &dst, StreamArg stream = {}) const {
    detail::check(ek_copy(stream.c, h_, dst.get()));
  }
  Tensor &copy_from(const Tensor &src, StreamArg stream = {}) {
    src.copy_to(*this, stream);
    return *this;
  }
  /// this[key] = value (ek_index_assign), in place; accumulate adds.
  Tensor &index_assign(Span<Index> key, const Tensor &value, bool accumulate = false, StreamArg stream = {}) {
    const auto c_key = detail::c_array(key);
    const int n = detail::count<int>("ek_index_assign", "key", {c_key.size()});
    detail::check(ek_index_assign(stream.c, value.get(), accumulate ? 1 : 0, h_, n, c_key.data()));
    return *this;
  }
  Tensor &index_assign(Span<Index> key, const Scalar &value, bool accumulate = false, StreamArg stream = {}) {
    return index_assign(key, ek::full(context(), {}, dtype(), value, nullptr, stream), accumulate, stream);
  }
  /// Fills this with random numbers of dist (ek_random); state nullptr: the context's generator.
  Tensor &random(RandomDist dist, const Scalar &a, const Scalar &b, const PhiloxState *state = nullptr,
                 StreamArg stream = {}) {
    detail::check(ek_random(stream.c, static_cast<ek_random_dist>(dist), a.c(), b.c(), state, h_));
    return *this;
  }
  /// Views of split_size along dim (the last may be smaller), as torch.split.
  std::vector<Tensor> split(int dim, int64_t split_size) const {
    int64_t n = 0;
    detail::check(ek_view_split(h_, dim, split_size, 0, nullptr, &n));
    std::vector<ek_tensor> hs(static_cast<size_t>(n), nullptr);
    detail::check(ek_view_split(h_, dim, split_size, n, hs.data(), &n));
    return detail::results(nullptr, hs);
  }
  /// torch.chunk: at most chunks views along dim.
  std::vector<Tensor> chunk(int dim, int64_t chunks) const {
    int64_t n = 0;
    detail::check(ek_view_chunk(h_, dim, chunks, 0, nullptr, &n));
    std::vector<ek_tensor> hs(static_cast<size_t>(n), nullptr);
    detail::check(ek_view_chunk(h_, dim, chunks, n, hs.data(), &n));
    return detail::results(nullptr, hs);
  }

  // The op and view forms, generated from ek.h.
@METHODS@
};

inline Index::Index(const Tensor &t) noexcept : item_(ek_index_item_tensor(t.get())) {}

namespace detail {
inline std::vector<ek_tensor> c_array(const Span<Tensor> &s) {
  std::vector<ek_tensor> v;
  v.reserve(s.size());
  for (const Tensor &t : s) v.push_back(t.get());
  return v;
}
inline ek_tensor out_of(const Tensor *out) noexcept { return out ? out->get() : nullptr; }
// An op's result: *out when it was written into, else the new tensor (also stored in *out).
inline Tensor result(Tensor *out, ek_tensor h) {
  if (!out) return Tensor::adopt(h);
  if (out->get() != h) *out = Tensor::adopt(h);
  return *out;
}
// An in-place result: a itself, or the tensor allocated for an empty a.
inline Tensor &assign(Tensor &a, ek_tensor h) {
  if (a.get() != h) a = Tensor::adopt(h);
  return a;
}
inline std::vector<ek_tensor> outs_of(const std::vector<Tensor> *outs, size_t n) {
  std::vector<ek_tensor> v(n, nullptr);
  for (size_t i = 0; outs && i < n && i < outs->size(); ++i) v[i] = (*outs)[i].get();
  return v;
}
inline std::vector<Tensor> results(std::vector<Tensor> *outs, const std::vector<ek_tensor> &hs) {
  std::vector<Tensor> r;
  r.reserve(hs.size());
  for (size_t i = 0; i < hs.size(); ++i) {
    bool given = outs && i < outs->size() && (*outs)[i].get() == hs[i];
    r.push_back(given ? (*outs)[i] : Tensor::adopt(hs[i]));
  }
  if (outs) *outs = r;
  return r;
}
}  // namespace detail

// ---------------------------------------------------------------- ops (definitions)

@DEFS@

// ---------------------------------------------------------------- operators

inline Tensor operator-(const Tensor &x) { return neg(x); }
@OPERATORS@

// ---------------------------------------------------------------- more tensor functions

/// A new tensor of shape and dtype holding a copy of data (C order, numel * dtype size bytes).
inline Tensor from_host(const Context &ctx, Span<int64_t> shape, DType dtype, const void *data,
                        StreamArg stream = {}) {
  const int n = detail::count<int>("ek_tensor_from_host", "shape", {shape.size()});
  ek_tensor h = nullptr;
  detail::check(ek_tensor_from_host(stream.c, ctx.get(), n, shape.data(), static_cast<ek_dtype>(dtype), data, &h));
  return Tensor::adopt(h);
}
/// A tensor of values' dtype (dtype_of<T>) and the given shape (C order).
template <class T>
Tensor from_vector(const Context &ctx, const std::vector<T> &values, Span<int64_t> shape,
                   StreamArg stream = {}) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(values.begin(), values.end());
    return from_vector(ctx, bytes, shape, stream).cast(DType(EK_BOOL), nullptr, stream);
  } else {
    return from_host(ctx, shape, dtype_of<T>(), values.data(), stream);
  }
}
/// A 1-D tensor of values.
template <class T>
Tensor from_vector(const Context &ctx, const std::vector<T> &values, StreamArg stream = {}) {
  const int64_t n = static_cast<int64_t>(values.size());
  return from_vector(ctx, values, Span<int64_t>(n), stream);
}
inline Tensor zeros(const Context &ctx, Span<int64_t> shape, DType dtype, StreamArg stream = {}) {
  return full(ctx, shape, dtype, 0, nullptr, stream);
}
inline Tensor ones(const Context &ctx, Span<int64_t> shape, DType dtype, StreamArg stream = {}) {
  return full(ctx, shape, dtype, 1, nullptr, stream);
}
/// dst[...] = src, broadcast and cast (ek_copy).
inline void copy(const Tensor &src, const Tensor &dst, StreamArg stream = {}) { src.copy_to(dst, stream); }
/// Fills t from dist (ek_random); state nullptr: the context's generator.
inline Tensor random(RandomDist dist, const Scalar &a, const Scalar &b, Tensor t,
                     const PhiloxState *state = nullptr, StreamArg stream = {}) {
  t.random(dist, a, b, state, stream);
  return t;
}
/// c = alpha * a @ b + beta * c, in place on c (ek_gemm).
inline void gemm(const Scalar &alpha, const Tensor &a, const Tensor &b, const Scalar &beta, const Tensor &c,
                 StreamArg stream = {}) {
  detail::check(ek_gemm(stream.c, alpha.c(), a.get(), b.get(), beta.c(), c.get()));
}
/// xs expanded to their broadcast shape (views).
inline std::vector<Tensor> broadcast_tensors(Span<Tensor> xs) {
  const auto c_xs = detail::c_array(xs);
  const int n = detail::count<int>("ek_broadcast_tensors", "xs", {c_xs.size()});
  std::vector<ek_tensor> outs(c_xs.size(), nullptr);
  detail::check(ek_broadcast_tensors(n, c_xs.data(), outs.data()));
  return detail::results(nullptr, outs);
}

// ---------------------------------------------------------------- custom kernels

/// Grid and block sizes: ek::Dim3(x, y = 1, z = 1), or just a number.
struct Dim3 {
  Dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : v{x, y, z} {}
  unsigned v[3];
};

/// One typed kernel argument (ek_kernel_value): a tensor (its data pointer), a
/// number as its C type (int: int32, float: float32, int64_t: int64, ...), a
/// Scalar as a named dtype, or bytes (a struct).
class KernelArg {
 public:
  KernelArg(const Tensor &t) noexcept {
    v_.kind = EK_KERNEL_VALUE_TENSOR;
    v_.tensor = t.get();
  }
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  KernelArg(T v) : KernelArg(dtype_of<T>(), Scalar(v)) {}
  KernelArg(DType dtype, const Scalar &value) noexcept {
    v_.kind = EK_KERNEL_VALUE_SCALAR;
    v_.dtype = static_cast<ek_dtype>(dtype);
    v_.scalar = value.c();
  }
  static KernelArg bytes(const void *p, size_t size) noexcept {
    KernelArg a;
    a.v_.kind = EK_KERNEL_VALUE_BYTES;
    a.v_.bytes = p;
    a.v_.size = size;
    return a;
  }
  /// The bytes of a trivially copyable value (a struct parameter); v must outlive the launch call.
  template <class T>
  static KernelArg value_of(const T &v) noexcept {
    static_assert(std::is_trivially_copyable_v<T>, "ek::KernelArg::value_of: not trivially copyable");
    return bytes(&v, sizeof v);
  }
  const ek_kernel_value &c() const noexcept { return v_; }

 private:
  KernelArg() noexcept = default;
  ek_kernel_value v_{};
};

class Kernel;

/// CUDA C++ compiled at run time, or an image (CUDA contexts; a CPU one throws NotSupported).
class Module : public detail::Shared<ek_module> {
 public:
  static Module from_source(const Context &ctx, const std::string &source, const std::string &name = "",
                            const std::vector<std::string> &options = {}) {
    std::vector<const char *> opts;
    for (const std::string &o : options) opts.push_back(o.c_str());
    const int n = detail::count<int>("ek_module_from_source", "options", {opts.size()});
    Module m;
    detail::check(ek_module_from_source(ctx.get(), source.c_str(), name.empty() ? nullptr : name.c_str(),
                                        opts.empty() ? nullptr : opts.data(), n, &m.h_));
    return m;
  }
  static Module from_image(const Context &ctx, const void *image, size_t size) {
    Module m;
    detail::check(ek_module_from_image(ctx.get(), image, size, &m.h_));
    return m;
  }
  void compile() const { detail::check(ek_module_compile(h_)); }
  ModuleOrigin origin() const {
    ek_module_origin o;
    detail::check(ek_module_get_origin(h_, &o));
    return static_cast<ModuleOrigin>(o);
  }
  inline Kernel kernel(const std::string &name) const;
};

class Kernel : public detail::Shared<ek_kernel> {
 public:
  KernelAttributes attributes() const {
    KernelAttributes a = sized<KernelAttributes>();
    detail::check(ek_kernel_get_attributes(h_, &a));
    return a;
  }
  /// Launches with typed arguments (ek_kernel_launch_values). Asynchronous.
  void launch(Dim3 grid, Dim3 block, Span<KernelArg> args, size_t shared_bytes = 0, StreamArg stream = {}) const {
    const auto c = values(args);
    detail::check(ek_kernel_launch_values(stream.c, h_, grid.v, block.v, shared_bytes, c.data(),
                                          detail::count<int>("ek_kernel_launch_values", "args", {c.size()})));
  }
  /// Launches with (address, size) arguments (ek_kernel_launch).
  void launch_raw(Dim3 grid, Dim3 block, Span<ek_kernel_arg> args, size_t shared_bytes = 0,
                  StreamArg stream = {}) const {
    detail::check(ek_kernel_launch(stream.c, h_, grid.v, block.v, shared_bytes, args.data(),
                                   detail::count<int>("ek_kernel_launch", "args", {args.size()})));
  }
#ifdef EK_EXPERIMENTAL
  /// Autotuned 1-D launch over n items (ek_kernel_launch_auto); returns the block size used.
  unsigned launch_auto(uint64_t n, Span<KernelArg> args, size_t shared_bytes = 0, StreamArg stream = {}) const {
    const auto c = values(args);
    unsigned block = 0;
    detail::check(ek_kernel_launch_auto(stream.c, h_, n, shared_bytes, c.data(),
                                        detail::count<int>("ek_kernel_launch_auto", "args", {c.size()}), &block));
    return block;
  }
#endif

 private:
  friend class Module;
  static std::vector<ek_kernel_value> values(Span<KernelArg> args) {
    std::vector<ek_kernel_value> v;
    for (const KernelArg &a : args) v.push_back(a.c());
    return v;
  }
};

inline Kernel Module::kernel(const std::string &name) const {
  Kernel k;
  ek_kernel h = nullptr;
  detail::check(ek_module_get_kernel(h_, name.c_str(), &h));
  k.h_ = h;
  return k;
}

// ---------------------------------------------------------------- multi-GPU (NCCL)

/// NCCL's unique id: 128 plain bytes rank 0 makes and sends to every rank.
inline ek_comm_unique_id comm_unique_id() {
  ek_comm_unique_id id{};
  detail::check(ek_comm_get_unique_id(&id));
  return id;
}

/// One rank of an NCCL communicator on a CUDA context (ek_comm_*); timeout_ms
/// 0: EK_COMM_TIMEOUT_MS or 10 minutes.
class Comm : public detail::Unique<ek_comm> {
 public:
  Comm() noexcept = default;
  Comm(const Context &ctx, int nranks, const ek_comm_unique_id &id, int rank, int64_t timeout_ms = 0) {
    const ek_comm_config config = config_of(timeout_ms);
    detail::check(ek_comm_init_rank(ctx.get(), nranks, &id, rank, &config, &h_));
  }
  /// One communicator over ctxs (distinct CUDA devices) in this process: element i is rank i.
  static std::vector<Comm> init_all(Span<Context> ctxs, int64_t timeout_ms = 0) {
    std::vector<ek_context> raw;
    for (const Context &c : ctxs) raw.push_back(c.get());
    std::vector<ek_comm> out(raw.size(), nullptr);
    const ek_comm_config config = config_of(timeout_ms);
    const int n = detail::count<int>("ek_comm_init_all", "ctxs", {raw.size()});
    detail::check(ek_comm_init_all(n, raw.data(), &config, out.data()));
    std::vector<Comm> comms;
    for (ek_comm h : out) comms.push_back(Comm(h));
    return comms;
  }
  /// The ranks passing the same color, ordered by key; an empty Comm for EK_COMM_SPLIT_NOCOLOR.
  Comm split(int color, int key = 0) const {
    ek_comm h = nullptr;
    detail::check(ek_comm_split(h_, color, key, nullptr, &h));
    return Comm(h);
  }
  int rank() const {
    int v = 0;
    detail::check(ek_comm_get_rank(h_, &v));
    return v;
  }
  int size() const {
    int v = 0;
    detail::check(ek_comm_get_size(h_, &v));
    return v;
  }
  Context context() const {
    ek_context c = nullptr;
    detail::check(ek_comm_get_context(h_, &c));
    return Context::borrow(c);
  }
  /// Throws NCCL's asynchronous error, if any.
  void check_async() const { detail::check(ek_comm_get_async_error(h_)); }
  void abort() const { detail::check(ek_comm_abort(h_)); }
  void synchronize(StreamArg stream = {}) const { detail::check(ek_comm_synchronize(stream.c, h_)); }
  Tensor all_reduce(ReduceOp op, const Tensor &x, Tensor *out = nullptr, StreamArg stream = {}) const {
    ek_tensor o = detail::out_of(out);
    detail::check(ek_comm_all_reduce(stream.c, h_, static_cast<ek_reduce_op>(op), x.get(), &o));
    return detail::result(out, o);
  }
  Tensor broadcast(int root, const Tensor &x, Tensor *out = nullptr, StreamArg stream = {}) const {
    ek_tensor o = detail::out_of(out);
    detail::check(ek_comm_broadcast(stream.c, h_, root, x.get(), &o));
    return detail::result(out, o);
  }
  /// An empty Tensor on ranks other than root given no out.
  Tensor reduce(ReduceOp op, int root, const Tensor &x, Tensor *out = nullptr, StreamArg stream = {}) const {
    ek_tensor o = detail::out_of(out);
    detail::check(ek_comm_reduce(stream.c, h_, static_cast<ek_reduce_op>(op), root, x.get(), &o));
    return detail::result(out, o);
  }
  Tensor all_gather(const Tensor &x, Tensor *out = nullptr, StreamArg stream = {}) const {
    ek_tensor o = detail::out_of(out);
    detail::check(ek_comm_all_gather(stream.c, h_, x.get(), &o));
    return detail::result(out, o);
  }
  Tensor reduce_scatter(ReduceOp op, const Tensor &x, Tensor *out = nullptr, StreamArg stream = {}) const {
    ek_tensor o = detail::out_of(out);
    detail::check(ek_comm_reduce_scatter(stream.c, h_, static_cast<ek_reduce_op>(op), x.get(), &o));
    return detail::result(out, o);
  }
  Tensor all_to_all(const Tensor &x, Tensor *out = nullptr, StreamArg stream = {}) const {
    ek_tensor o = detail::out_of(out);
    detail::check(ek_comm_all_to_all(stream.c, h_, x.get(), &o));
    return detail::result(out, o);
  }
  void send(const Tensor &x, int peer, StreamArg stream = {}) const {
    detail::check(ek_comm_send(stream.c, h_, x.get(), peer));
  }
  void recv(int peer, const Tensor &t, StreamArg stream = {}) const {
    detail::check(ek_comm_recv(stream.c, h_, peer, t.get()));
  }

 private:
  explicit Comm(ek_comm h) noexcept : Unique(h, true) {}
  static ek_comm_config config_of(int64_t timeout_ms) {
    ek_comm_config c = EK_COMM_CONFIG_INIT;
    c.timeout_ms = timeout_ms;
    return c;
  }
};

/// ek_comm_group_start/_end around a scope: its collectives are fused into one launch.
class CommGroup {
 public:
  CommGroup() { detail::check(ek_comm_group_start()); }
  /// Launches the group (the destructor does it too, silently, if not called).
  void end() {
    if (open_) {
      open_ = false;
      detail::check(ek_comm_group_end());
    }
  }
  ~CommGroup() {
    if (open_) ek_comm_group_end();
  }
  CommGroup(const CommGroup &) = delete;
  CommGroup &operator=(const CommGroup &) = delete;

 private:
  bool open_ = true;
};

#ifdef EK_EXPERIMENTAL
/// An elementwise kernel from an expression (experimental; CUDA contexts).
class ElementwiseKernel : public detail::Unique<ek_elementwise> {
 public:
  ElementwiseKernel(const Context &ctx, const std::string &in_params, const std::string &out_params,
                    const std::string &body, const std::string &name = "")
      : n_outputs_(1 + static_cast<int>(std::count(out_params.begin(), out_params.end(), ','))) {
    detail::check(ek_elementwise_create(ctx.get(), in_params.c_str(), out_params.c_str(), body.c_str(),
                                        name.empty() ? nullptr : name.c_str(), &h_));
  }
  /// Runs over inputs; outputs given in *outputs are written, missing ones allocated.
  std::vector<Tensor> operator()(Span<Tensor> inputs, std::vector<Tensor> *outputs = nullptr,
                                 StreamArg stream = {}) const {
    const auto c_in = detail::c_array(inputs);
    auto c_out = detail::outs_of(outputs, static_cast<size_t>(n_outputs_));
    detail::check(ek_elementwise_launch(stream.c, h_, c_in.data(), static_cast<int>(c_in.size()),
                                        c_out.data(), n_outputs_));
    return detail::results(outputs, c_out);
  }

 private:
  int n_outputs_;
};
#endif

}  // namespace ek

#endif  // EK_HPP
"""
