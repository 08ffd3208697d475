//! Values passed as `ek_scalar`: integers beyond 2^53 (where an `f64` would
//! round them) stay exact through clamp bounds, axpby coefficients, binary
//! ops with a scalar, arange, randint bounds and fills; lerp weights and gemm
//! coefficients take any kind. On the CPU, and on CUDA device 0 when
//! EK_TEST_DEVICE selects it.
mod common;

use ek::{Context, DType, Device, RandomDist, Scalar, Status, Tensor};

const P53: i64 = 1 << 53;

/// The CPU, and CUDA device 0 when selected (else a visible SKIPPED line).
fn devices(test: &str) -> Vec<Context> {
    let mut v = vec![Context::new(Device::Cpu).unwrap()];
    if common::cuda_selected(test) {
        v.push(Context::new(Device::Cuda(0)).unwrap());
    }
    v
}

fn i64s(ctx: &Context, data: &[i64]) -> Tensor {
    Tensor::from_slice(ctx, &[data.len() as i64], data).unwrap()
}

#[test]
fn scalar_kinds_come_from_the_rust_type() {
    use ek::sys::ek_scalar_kind as K;
    let r = Scalar::from(u64::MAX).to_raw();
    assert_eq!((r.kind, r.u, r.i, r.f, r.imag, r.reserved_), (K::EK_SCALAR_UINT64, u64::MAX, 0, 0.0, 0.0, 0));
    let r = Scalar::from(P53 + 1).to_raw();
    assert_eq!((r.kind, r.i), (K::EK_SCALAR_INT64, P53 + 1));
    let r = Scalar::from(-3i8).to_raw();
    assert_eq!((r.kind, r.i), (K::EK_SCALAR_INT64, -3));
    let r = Scalar::from(true).to_raw();
    assert_eq!((r.kind, r.i), (K::EK_SCALAR_BOOL, 1));
    let r = Scalar::from(2.5f32).to_raw();
    assert_eq!((r.kind, r.f), (K::EK_SCALAR_FLOAT64, 2.5));
}

#[test]
fn binary_scalar_integers_are_exact() {
    for ctx in devices("binary_scalar_integers_are_exact") {
        let x = i64s(&ctx, &[1 << 62, -(1 << 62), 0]);
        // 2^53 + 1 is not an f64: a double operand would add 2^53
        let want = [(1 << 62) + P53 + 1, -(1 << 62) + P53 + 1, P53 + 1];
        assert_eq!(x.add_scalar(P53 + 1).unwrap().to_vec::<i64>().unwrap(), want);
        assert_eq!((&x + (P53 + 1)).unwrap().to_vec::<i64>().unwrap(), want);
        assert_eq!(((P53 + 1) + &x).unwrap().to_vec::<i64>().unwrap(), want);
        assert_eq!(x.rbinary_scalar(ek::BinaryOp::Sub, P53 + 1).unwrap().to_vec::<i64>().unwrap()[2], P53 + 1);
        let y = i64s(&ctx, &[P53 + 3]);
        assert!(y.eq_scalar(P53 + 3).unwrap().item::<bool>().unwrap());
        assert!(!y.eq_scalar(P53 + 2).unwrap().item::<bool>().unwrap());
        assert_eq!(y.bitwise_xor_scalar(1u64 << 60).unwrap().item::<i64>().unwrap(), (P53 + 3) ^ (1 << 60));
        y.sub_scalar_(i64::MAX).unwrap(); // in place, exact
        assert_eq!(y.item::<i64>().unwrap(), P53 + 3 - i64::MAX);
        // a float scalar raises an integer tensor to float32 (its kind, not its value)
        assert_eq!(i64s(&ctx, &[1]).add_scalar(2.0).unwrap().dtype(), DType::F32);
    }
}

#[test]
fn clamp_bounds_are_exact() {
    for ctx in devices("clamp_bounds_are_exact") {
        let x = i64s(&ctx, &[P53, P53 + 1, P53 + 2, P53 + 3, P53 + 4]);
        let c = x.clamp(Some(P53 + 1), Some(P53 + 3)).unwrap();
        assert_eq!(c.to_vec::<i64>().unwrap(), [P53 + 1, P53 + 1, P53 + 2, P53 + 3, P53 + 3]);
        assert_eq!(x.clamp_min(P53 + 3).unwrap().to_vec::<i64>().unwrap()[..2], [P53 + 3, P53 + 3]);
        assert_eq!(x.clamp_max(P53 + 1).unwrap().to_vec::<i64>().unwrap()[4], P53 + 1);
        // a u64 bound beyond int64 saturates: no bound in effect
        assert_eq!(x.clamp(None::<i64>, Some(u64::MAX)).unwrap().to_vec::<i64>().unwrap(), x.to_vec::<i64>().unwrap());
        x.clamp_(Some(P53 + 2), None::<i64>).unwrap();
        assert_eq!(x.to_vec::<i64>().unwrap()[0], P53 + 2);
        // a NaN bound with an integer tensor is refused
        let e = x.clamp(Some(f64::NAN), None::<f64>).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        assert!(e.message.contains("ek_clamp"), "{e}");
    }
}

#[test]
fn axpby_integer_coefficients_are_exact() {
    for ctx in devices("axpby_integer_coefficients_are_exact") {
        let x = i64s(&ctx, &[1, 2]);
        let y = i64s(&ctx, &[1 << 60, 0]);
        let alpha = P53 + 1;
        let r = Tensor::axpby(alpha, &x, 3, &y).unwrap();
        assert_eq!(r.to_vec::<i64>().unwrap(), [alpha + 3 * (1 << 60), 2 * alpha]);
        y.axpby_(1u64 << 61, &x, 1).unwrap(); // in place; u64 kind
        assert_eq!(y.to_vec::<i64>().unwrap(), [(1 << 60) + (1 << 61), 1 << 62]);
        // integer operands need integer coefficients
        let e = Tensor::axpby(0.5, &x, 1, &y).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        assert!(e.message.contains("ek_axpby"), "{e}");
    }
}

#[test]
fn arange_integer_bounds_are_exact() {
    for ctx in devices("arange_integer_bounds_are_exact") {
        let big = (1i64 << 62) + 1;
        let t = Tensor::arange(&ctx, big, big + 7, 3, DType::I64).unwrap();
        assert_eq!(t.to_vec::<i64>().unwrap(), [big, big + 3, big + 6]);
        let t = Tensor::arange(&ctx, i64::MAX, i64::MAX - 3, -1, DType::I64).unwrap();
        assert_eq!(t.to_vec::<i64>().unwrap(), [i64::MAX, i64::MAX - 1, i64::MAX - 2]);
        // integral floats are accepted for an integer dtype; fractional ones are not
        assert_eq!(Tensor::arange(&ctx, 0.0, 3.0, 1.0, DType::I8).unwrap().to_vec::<i8>().unwrap(), [0, 1, 2]);
        let e = Tensor::arange(&ctx, 0.5, 3.0, 1.0, DType::I32).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        // elements that do not fit the dtype
        let e = Tensor::arange(&ctx, 0, 300, 1, DType::I8).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        assert!(e.message.contains("ek_arange"), "{e}");
    }
}

#[test]
fn randint_bounds_are_exact() {
    for ctx in devices("randint_bounds_are_exact") {
        // [2^62 + 1, 2^62 + 4): as doubles both bounds would be 2^62 (empty)
        let low = (1i64 << 62) + 1;
        let t = Tensor::random(&ctx, &[4096], DType::I64, RandomDist::Randint { low, high: low + 3 }).unwrap();
        let vals = t.to_vec::<i64>().unwrap();
        assert!(vals.iter().all(|v| (low..low + 3).contains(v)), "{:?}", &vals[..8]);
        for k in 0..3 {
            assert!(vals.contains(&(low + k)), "{} never drawn", low + k);
        }
        // the top of int64
        let t = Tensor::random(&ctx, &[256], DType::I64, RandomDist::Randint { low: i64::MAX - 1, high: i64::MAX }).unwrap();
        assert!(t.to_vec::<i64>().unwrap().iter().all(|&v| v == i64::MAX - 1));
    }
}

#[test]
fn fill_and_masked_fill_are_exact() {
    for ctx in devices("fill_and_masked_fill_are_exact") {
        let t = Tensor::zeros(&ctx, &[2], DType::I64).unwrap();
        t.fill(P53 + 1).unwrap();
        assert_eq!(t.to_vec::<i64>().unwrap(), [P53 + 1; 2]);
        let mask = Tensor::from_slice(&ctx, &[2], &[true, false]).unwrap();
        let m = t.masked_fill(&mask, i64::MIN + 1).unwrap();
        assert_eq!(m.to_vec::<i64>().unwrap(), [i64::MIN + 1, P53 + 1]);
        assert_eq!(t.fill(u64::MAX).unwrap_err().status, Status::INVALID_ARGUMENT);
    }
}

#[test]
fn lerp_and_gemm_take_any_kind() {
    for ctx in devices("lerp_and_gemm_take_any_kind") {
        let a = Tensor::from_slice(&ctx, &[2], &[1.0f64, -3.0]).unwrap();
        let b = Tensor::from_slice(&ctx, &[2], &[0.1f64, 7.0]).unwrap();
        // an integer weight 1 gives end exactly (PyTorch's formula)
        assert_eq!(a.lerp(&b, 1).unwrap().to_vec::<f64>().unwrap(), [0.1, 7.0]);
        assert_eq!(a.lerp(&b, 0u8).unwrap().to_vec::<f64>().unwrap(), [1.0, -3.0]);

        let m = Tensor::from_slice(&ctx, &[1, 2], &[1.0f64, 2.0]).unwrap();
        let n = Tensor::from_slice(&ctx, &[2, 1], &[3.0f64, 4.0]).unwrap();
        let c = Tensor::full(&ctx, &[1, 1], 10.0, DType::F64).unwrap();
        c.gemm(3i64, &m, &n, 2u64).unwrap(); // 3 * 11 + 2 * 10
        assert_eq!(c.item::<f64>().unwrap(), 53.0);
        c.gemm(P53 + 1, &m, &n, 0).unwrap(); // beta 0: c's old values ignored
        assert_eq!(c.item::<f64>().unwrap(), (P53 + 1) as f64 * 11.0);
    }
}
