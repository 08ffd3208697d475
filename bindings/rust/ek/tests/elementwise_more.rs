//! Issue 18's elementwise ops (asin ... signbit, logaddexp, hypot, copysign,
//! nextafter) and the floor_div / remainder / sign fixes, on the CPU against
//! Rust's f64 math (NumPy's values where they differ), and their errors.
use ek::{BinaryOp, Context, DType, Device, Element, Status, Tensor, UnaryOp};

fn cpu() -> Context {
    Context::new(Device::Cpu).unwrap()
}

fn t<T: Element>(ctx: &Context, data: &[T]) -> Tensor {
    Tensor::from_slice(ctx, &[data.len() as i64], data).unwrap()
}

fn v64(t: &Tensor) -> Vec<f64> {
    t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// Equal, NaN matching NaN and zeros matching in sign.
fn same(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        let ok = if w.is_nan() { g.is_nan() } else { g.to_bits() == w.to_bits() };
        assert!(ok, "got {got:?}\nwant {want:?}");
    }
}

fn close(got: &[f64], want: &[f64], tol: f64) {
    for (g, w) in got.iter().zip(want) {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * w.abs().max(1.0);
        assert!(ok, "got {got:?}\nwant {want:?}");
    }
}

#[test]
fn unary_ops_match_f64_math() {
    let ctx = cpu();
    let xs = [-3.5f64, -0.75, -0.0, 0.2, 0.5, 0.99, 1.0, 1.5, 8.5, f64::INFINITY, f64::NAN];
    let x = t(&ctx, &xs);
    let cases: [(UnaryOp, fn(f64) -> f64); 9] = [
        (UnaryOp::Asin, f64::asin),
        (UnaryOp::Acos, f64::acos),
        (UnaryOp::Atan, f64::atan),
        (UnaryOp::Sinh, f64::sinh),
        (UnaryOp::Cosh, f64::cosh),
        (UnaryOp::Asinh, f64::asinh),
        (UnaryOp::Acosh, f64::acosh),
        (UnaryOp::Atanh, f64::atanh),
        (UnaryOp::Log10, f64::log10),
    ];
    for (op, f) in cases {
        let want: Vec<f64> = xs.iter().map(|&x| f(x)).collect();
        close(&x.unary(op).unwrap().to_vec::<f64>().unwrap(), &want, 1e-14);
        // float32, and integers computing in float32
        let x32 = x.cast(DType::F32).unwrap();
        close(&v64(&x32.unary(op).unwrap()), &want, 2e-6);
    }
    let i = t(&ctx, &[1i32, 2, 3]);
    let y = i.unary(UnaryOp::Log10).unwrap();
    assert_eq!(y.dtype(), DType::F32);
    close(&v64(&y), &[0.0, 2f64.log10(), 3f64.log10()], 1e-7);
    // The named methods.
    close(&x.asin().unwrap().to_vec::<f64>().unwrap()[..1], &[f64::NAN], 0.0);
    close(&t(&ctx, &[0.5f64]).atanh().unwrap().to_vec::<f64>().unwrap(), &[0.5f64.atanh()], 1e-15);
    let z = t(&ctx, &[100.0f64]);
    z.log10_().unwrap();
    assert_eq!(z.to_vec::<f64>().unwrap(), [2.0]);
}

#[test]
fn signbit_and_sign_of_nan() {
    let ctx = cpu();
    let x = t(&ctx, &[-0.0f32, 0.0, -f32::NAN, f32::NAN, -1.0, 2.0]);
    let s = x.signbit().unwrap();
    assert_eq!(s.dtype(), DType::Bool);
    assert_eq!(s.to_vec::<bool>().unwrap(), [true, false, true, false, true, false]);
    assert_eq!(t(&ctx, &[-3i64, 0, 4]).signbit().unwrap().to_vec::<bool>().unwrap(), [true, false, false]);
    let sign = x.sign().unwrap().to_vec::<f32>().unwrap();
    assert!(sign[2].is_nan() && sign[3].is_nan(), "{sign:?}");
    assert_eq!(sign[4..], [-1.0, 1.0]);
}

#[test]
fn binary_ops_match_f64_math() {
    let ctx = cpu();
    let inf = f64::INFINITY;
    let av = [1.0f64, -2.0, 3.0, -0.0, 1000.0, inf, -inf, inf, f64::NAN, 1e-3];
    let bv = [2.0f64, 0.5, -4.0, 0.0, 1000.0, inf, -inf, -inf, 1.0, -7.0];
    let (a, b) = (t(&ctx, &av), t(&ctx, &bv));
    // NumPy's logaddexp: infinities of one sign give themselves.
    let lae = |x: f64, y: f64| {
        if x == y && x.is_infinite() {
            x
        } else {
            x.max(y) + (-(x - y).abs()).exp().ln_1p()
        }
    };
    let cases: [(BinaryOp, &dyn Fn(f64, f64) -> f64); 4] = [
        (BinaryOp::Logaddexp, &lae),
        (BinaryOp::Hypot, &f64::hypot),
        (BinaryOp::Copysign, &f64::copysign),
        (BinaryOp::Nextafter, &|x: f64, y: f64| {
            // C's nextafter for these finite, nonzero or equal operands.
            if x.is_nan() || y.is_nan() {
                f64::NAN
            } else if x == y {
                y
            } else if (y > x) == (x > 0.0) {
                f64::from_bits(x.to_bits() + 1)
            } else {
                f64::from_bits(x.to_bits() - 1)
            }
        }),
    ];
    for (op, f) in cases {
        let want: Vec<f64> = av.iter().zip(&bv).map(|(&x, &y)| f(x, y)).collect();
        let got = a.binary(op, &b).unwrap().to_vec::<f64>().unwrap();
        if op == BinaryOp::Logaddexp || op == BinaryOp::Hypot {
            close(&got, &want, 1e-15);
        } else {
            same(&got, &want);
        }
    }
    assert_eq!(a.hypot(&b).unwrap().to_vec::<f64>().unwrap()[0], 5f64.sqrt());
    assert_eq!(a.copysign_scalar(-1.0).unwrap().to_vec::<f64>().unwrap()[0], -1.0);
    let i = t(&ctx, &[1i32, -2]);
    assert_eq!(i.logaddexp(&i).unwrap().dtype(), DType::F32);
}

#[test]
fn nextafter_of_float16_steps_its_ulp() {
    let ctx = cpu();
    let a = t(&ctx, &[1.0f32, 1.0, 0.0]).cast(DType::F16).unwrap();
    let b = t(&ctx, &[2.0f32, 0.0, -1.0]).cast(DType::F16).unwrap();
    let y = a.nextafter(&b).unwrap();
    assert_eq!(y.dtype(), DType::F16);
    // np.nextafter(np.float16(a), np.float16(b))
    assert_eq!(v64(&y), [1.0009765625, 0.99951171875, -5.960464477539063e-08]);
}

#[test]
fn floor_div_and_remainder_signs() {
    let ctx = cpu();
    let inf = f64::INFINITY;
    // The cases: floor_div with an infinite operand is a / b (the
    // array API standard); a zero remainder has the divisor's sign (NumPy).
    same(&v64(&t(&ctx, &[inf]).floor_div_scalar(1.0).unwrap()), &[inf]);
    same(&v64(&t(&ctx, &[1.0f64]).floor_div_scalar(-inf).unwrap()), &[-0.0]);
    same(&v64(&t(&ctx, &[-0.0f64]).remainder_scalar(1.0).unwrap()), &[0.0]);
    same(&v64(&t(&ctx, &[0.0f64]).remainder_scalar(-1.0).unwrap()), &[-0.0]);
    // np.remainder([-7, 7, -0.0, 7], [inf, -inf, -2, 2])
    let r = t(&ctx, &[-7.0f64, 7.0, -0.0, 7.0]).remainder(&t(&ctx, &[inf, -inf, -2.0, 2.0])).unwrap();
    same(&v64(&r), &[inf, -inf, -0.0, 1.0]);
}

#[test]
fn empty_non_contiguous_and_errors() {
    let ctx = cpu();
    let e = Tensor::empty(&ctx, &[0, 3], DType::F32).unwrap();
    assert_eq!(e.cosh().unwrap().shape(), [0, 3]);
    assert_eq!(e.hypot(&t(&ctx, &[1.0f32, 2.0, 3.0])).unwrap().shape(), [0, 3]);
    let m = Tensor::from_slice(&ctx, &[2, 3], &[0.1f64, 0.2, 0.3, 0.4, 0.5, 0.6]).unwrap();
    let tr = m.transpose(0, 1).unwrap();
    assert!(!tr.is_contiguous());
    let got = tr.asin().unwrap().to_vec::<f64>().unwrap();
    let want: Vec<f64> = [0.1f64, 0.4, 0.2, 0.5, 0.3, 0.6].iter().map(|x| x.asin()).collect();
    close(&got, &want, 1e-15);
    let err = t(&ctx, &[1.0f32, 2.0, 3.0]).logaddexp(&t(&ctx, &[1.0f32, 2.0])).unwrap_err();
    assert_eq!(err.status, Status::SHAPE);
    assert!(err.message.contains("ek_binary"), "{err}");
}
