//! The op forms through the binding: one generated smoke call per op, every
//! form (new, `_into`, in place, `_on`), operators, and errors with their
//! messages. The ops' semantics are tested once, in C (tests/*.cpp).
use ek::{BinaryOp, Context, DType, Device, Element, PhiloxState, RandomDist, ReduceOp, Status, Stream, Tensor, UnaryOp};

fn cpu() -> Context {
    Context::new(Device::Cpu).unwrap()
}

fn t<T: Element>(ctx: &Context, shape: &[i64], data: &[T]) -> Tensor {
    Tensor::from_slice(ctx, shape, data).unwrap()
}

fn v<T: Element>(t: &Tensor) -> Vec<T> {
    t.to_vec::<T>().unwrap()
}

// ---------------------------------------------------------------- unary

fn close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        let ok = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * w.abs().max(1.0);
        assert!(ok, "got {got:?}\nwant {want:?}");
    }
}

fn close32(got: &[f32], want: &[f64], tol: f64) {
    close(&got.iter().map(|&x| x as f64).collect::<Vec<_>>(), want, tol)
}

/// erf by its Taylor series (enough terms for |x| <= 3 in f64).

#[test]
fn every_op_once_through_its_generated_method() {
    let ctx = cpu();
    let f = t(&ctx, &[2], &[0.5f32, 2.0]);
    let i = t(&ctx, &[2], &[6i64, 3]);
    for op in UnaryOp::ALL {
        let r = f.unary(op).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
        assert_eq!(r.shape(), [2], "{}", op.name());
    }
    for op in BinaryOp::ALL {
        // bitwise ops and shifts take integers only: the library says so, the binding passes it on
        let r = f.binary(op, &f).or_else(|e| if e.status == Status::DTYPE { i.binary(op, &i) } else { Err(e) });
        assert_eq!(r.unwrap_or_else(|e| panic!("{}: {e}", op.name())).shape(), [2], "{}", op.name());
        let r = f.binary_scalar(op, 2.0).or_else(|_| i.binary_scalar(op, 2));
        assert_eq!(r.unwrap_or_else(|e| panic!("{}: {e}", op.name())).shape(), [2], "{}", op.name());
    }
    for op in ReduceOp::ALL {
        let r = f.reduce(op, &[0], true).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
        assert_eq!(r.shape(), [1], "{}", op.name());
    }
    // the per-op methods are the generic op with the enum filled in
    assert_eq!(v::<f32>(&f.sqrt().unwrap()), v::<f32>(&f.unary(UnaryOp::Sqrt).unwrap()));
    assert_eq!(v::<i64>(&i.floor_div(&i.sub_scalar(1).unwrap()).unwrap()), [1, 1]);
    assert_eq!(v::<f32>(&f.norm_inf(&[], false).unwrap()), [2.0]);
    for (name, r) in [
        ("softmax", f.softmax(0)),
        ("log_softmax", f.log_softmax(-1)),
        ("cumsum", f.cumsum(0)),
        ("cumprod", f.cumprod(0)),
        ("var", f.var(&[], 1.0, false)),
        ("std", f.std(&[0], 0.0, true)),
        ("tril", f.view(&[1, 2]).unwrap().tril(0)),
        ("flip", f.flip(&[0])),
        ("roll", f.roll(&[1], &[])),
        ("repeat", f.repeat(&[2])),
        ("concat", Tensor::concat(&[&f, &f], 0)),
        ("stack", Tensor::stack(&[&f, &f], 1)),
        ("nonzero", f.nonzero()),
        ("eye", Tensor::eye(&ctx, 2, 2, 0, DType::F32)),
        ("linspace", Tensor::linspace(&ctx, 0, 1, 2, true, DType::F32)),
        ("moveaxis", f.view(&[1, 2]).unwrap().moveaxis(&[0], &[1])),
    ] {
        r.unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn every_form_marshals_out_and_stream() {
    let ctx = cpu();
    let s = Stream::new(&ctx).unwrap();
    let x = t(&ctx, &[2, 2], &[1.0f32, -2.0, 3.0, -4.0]);
    let out = Tensor::empty(&ctx, &[2, 2], DType::F32).unwrap();
    x.tril_into(0, &out).unwrap();
    assert_eq!(v::<f32>(&out), [1.0, 0.0, 3.0, -4.0]);
    let r = x.triu_on(0, &s, Some(&out)).unwrap(); // a new reference to out
    assert_eq!(r.as_raw(), out.as_raw());
    let n = x.clamp_on(Some(0), None::<f64>, &s, None).unwrap();
    s.synchronize().unwrap();
    assert_eq!(v::<f32>(&out), [1.0, -2.0, 0.0, -4.0]);
    assert_eq!(v::<f32>(&n), [1.0, 0.0, 3.0, 0.0]);
    let y = x.copy().unwrap();
    y.abs_().unwrap();
    y.clamp_(None::<i64>, Some(2)).unwrap();
    assert_eq!(v::<f32>(&y), [1.0, 2.0, 2.0, 2.0]);
    let e = Tensor::empty_on(&ctx, &[2], DType::I32, &s).unwrap();
    assert_eq!(e.shape(), [2]);
    // arrays: counts from the slice lengths; a second array of another length is refused
    assert_eq!(x.permute(&[1, 0]).unwrap().strides(), [1, 2]);
    let err = x.moveaxis(&[0, 1], &[1]).unwrap_err();
    assert_eq!(err.status, Status::INVALID_ARGUMENT);
    assert!(err.message.contains("ek_view_moveaxis"), "{err}");
    let err = Tensor::concat(&[], 0).unwrap_err();
    assert!(err.message.contains("ek_concat"), "{err}");
}

#[test]
fn binary_scalars_operators_and_in_place() {
    let ctx = cpu();
    let a = t(&ctx, &[3], &[1.0f32, 2.0, 3.0]);
    let b = t(&ctx, &[3], &[4.0f32, 5.0, 6.0]);
    assert_eq!(v::<f32>(&(&a + &b).unwrap()), [5.0, 7.0, 9.0]);
    assert_eq!(v::<f32>(&(a.clone() - &b).unwrap()), [-3.0, -3.0, -3.0]);
    assert_eq!(v::<f32>(&(&a * b.clone()).unwrap()), [4.0, 10.0, 18.0]);
    assert_eq!(v::<f32>(&(&b / &a).unwrap()), [4.0, 2.5, 2.0]);
    assert_eq!(v::<f32>(&(&b % &a).unwrap()), [0.0, 1.0, 0.0]);
    assert_eq!(v::<f32>(&(-&a).unwrap()), [-1.0, -2.0, -3.0]);
    assert_eq!(v::<f32>(&(-a.clone()).unwrap()), [-1.0, -2.0, -3.0]);
    assert_eq!(v::<f32>(&(&a + 0.5).unwrap()), [1.5, 2.5, 3.5]);
    assert_eq!(v::<f32>(&(10.0 - &a).unwrap()), [9.0, 8.0, 7.0]);
    assert_eq!(v::<f32>(&(6 / &a).unwrap()), [6.0, 3.0, 2.0]);
    assert_eq!(v::<f32>(&(2 * a.clone()).unwrap()), [2.0, 4.0, 6.0]);
    assert_eq!(v::<f32>(&(-7.0 % &a).unwrap()), [0.0, 1.0, 2.0]); // divisor's sign
    assert_eq!(v::<f32>(&a.pow_scalar(2.0).unwrap()), [1.0, 4.0, 9.0]);
    assert_eq!(v::<f32>(&a.rbinary_scalar(BinaryOp::Sub, 1.0).unwrap()), [0.0, -1.0, -2.0]);
    assert_eq!(v::<bool>(&a.ge_scalar(2.0).unwrap()), [false, true, true]);
    assert_eq!(v::<f32>(&a.maximum_scalar(2.5).unwrap()), [2.5, 2.5, 3.0]);

    // the scalar counts as a Python number: its Rust type gives its kind
    let i = t(&ctx, &[2], &[3i16, -4]);
    assert_eq!(i.add_scalar(2).unwrap().dtype(), DType::I16);
    assert_eq!(v::<f32>(&i.add_scalar(2.0).unwrap()), [5.0, -2.0]); // a float raises to float32
    assert_eq!(v::<f32>(&i.add_scalar(0.5).unwrap()), [3.5, -3.5]);
    assert_eq!(v::<i16>(&(&i & 6).unwrap()), [2, 4]);
    let bo = t(&ctx, &[2], &[true, false]);
    assert_eq!(v::<i64>(&bo.add_scalar(2).unwrap()), [3, 2]);
    assert_eq!(v::<i64>(&bo.add_scalar(2u8).unwrap()), [3, 2]);
    assert_eq!(bo.add_scalar(true).unwrap().dtype(), DType::Bool);
    // broadcasting
    let col = t(&ctx, &[2, 1], &[10.0f32, 20.0]);
    let m = (&col + &a).unwrap();
    assert_eq!(m.shape(), [2, 3]);
    assert_eq!(v::<f32>(&m), [11.0, 12.0, 13.0, 21.0, 22.0, 23.0]);

    // in place and into
    let c = a.contiguous().unwrap().cast(DType::F32).unwrap();
    let c = c.mul_scalar(1.0).unwrap(); // a fresh tensor
    c.add_(&b).unwrap();
    c.mul_scalar_(2.0).unwrap();
    assert_eq!(v::<f32>(&c), [10.0, 14.0, 18.0]);
    c.binary_scalar_(BinaryOp::Sub, 10.0).unwrap();
    assert_eq!(v::<f32>(&c), [0.0, 4.0, 8.0]);
    m.binary_(BinaryOp::Sub, &a).unwrap(); // [2,3] -= [3]
    assert_eq!(v::<f32>(&m), [10.0, 10.0, 10.0, 20.0, 20.0, 20.0]);
    let out = Tensor::empty(&ctx, &[3], DType::F32).unwrap();
    a.binary_into(BinaryOp::Add, &b, &out).unwrap();
    assert_eq!(v::<f32>(&out), [5.0, 7.0, 9.0]);
    a.rbinary_scalar_into(BinaryOp::Div, 12.0, &out).unwrap();
    assert_eq!(v::<f32>(&out), [12.0, 6.0, 4.0]);
    a.binary_scalar_into(BinaryOp::Mul, 3.0, &out).unwrap();
    assert_eq!(v::<f32>(&out), [3.0, 6.0, 9.0]);

    // on a stream, into an existing tensor: the result is a new reference to it
    let s = Stream::new(&ctx).unwrap();
    let r = a.binary_on(BinaryOp::Sub, &b, &s, Some(&out)).unwrap();
    assert_eq!(r.as_raw(), out.as_raw());
    let r2 = a.binary_scalar_on(BinaryOp::Sub, 1.0, true, &s, None).unwrap();
    let r3 = a.unary_on(UnaryOp::Square, &s, None).unwrap();
    s.synchronize().unwrap();
    assert_eq!(v::<f32>(&out), [-3.0, -3.0, -3.0]);
    assert_eq!(v::<f32>(&r2), [0.0, -1.0, -2.0]);
    assert_eq!(v::<f32>(&r3), [1.0, 4.0, 9.0]);
}

#[test]
fn binary_errors() {
    let ctx = cpu();
    let a = t(&ctx, &[3], &[1.0f32, 2.0, 3.0]);
    let b = t(&ctx, &[2], &[1.0f32, 2.0]);
    let e = (&a + &b).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_binary"), "{e}");
    assert!(e.message.contains('3') && e.message.contains('2'), "names both shapes: {e}");
    let e = (&a & &a).unwrap_err();
    assert_eq!(e.status, Status::DTYPE, "{e}");
    let e = a.bitwise_or_scalar(1.0).unwrap_err();
    assert_eq!(e.status, Status::DTYPE, "{e}");
    assert!(e.message.contains("ek_binary_scalar"), "{e}");
    // a given out of another dtype takes the result when its category is not
    // below the result's (the C rule), else DTYPE; of the wrong shape, SHAPE
    let o = Tensor::empty(&ctx, &[3], DType::F64).unwrap();
    a.binary_into(BinaryOp::Add, &a, &o).unwrap();
    assert_eq!(v::<f64>(&o), [2.0, 4.0, 6.0]);
    let o = Tensor::empty(&ctx, &[3], DType::I64).unwrap();
    let e = a.binary_into(BinaryOp::Add, &a, &o).unwrap_err();
    assert_eq!(e.status, Status::DTYPE, "{e}");
    assert!(e.message.contains("ek_binary"), "{e}");
    let o = Tensor::empty(&ctx, &[1, 3], DType::F32).unwrap();
    assert_eq!(a.binary_into(BinaryOp::Add, &a, &o).unwrap_err().status, Status::SHAPE);
    // in place where the result does not fit self
    let i = t(&ctx, &[3], &[1i32, 2, 3]);
    assert_eq!(i.binary_(BinaryOp::Div, &i).unwrap_err().status, Status::DTYPE);
    assert_eq!(b.add_(&a).unwrap_err().status, Status::SHAPE);
    // operands of two contexts
    let other = cpu();
    let c = t(&other, &[3], &[1.0f32, 2.0, 3.0]);
    let e = (&a + &c).unwrap_err();
    assert_ne!(e.status, Status::SUCCESS);
    assert!(e.message.contains("ek_binary"), "{e}");
}

// ---------------------------------------------------------------- selection and fused updates

#[test]
fn where_clamp_lerp_axpby() {
    let ctx = cpu();
    let cond = t(&ctx, &[2, 1], &[true, false]);
    let a = t(&ctx, &[3], &[1i32, 2, 3]);
    let b = t(&ctx, &[], &[0.5f32]);
    let w = Tensor::where_(&cond, &a, &b).unwrap();
    assert_eq!((w.shape(), w.dtype()), (vec![2, 3], DType::F32));
    assert_eq!(v::<f32>(&w), [1.0, 2.0, 3.0, 0.5, 0.5, 0.5]);
    // cond of any dtype: nonzero is true; in place on a
    let x = t(&ctx, &[3], &[4.0f64, 5.0, 6.0]);
    let z = Tensor::zeros(&ctx, &[3], DType::F64).unwrap();
    Tensor::where_into(&t(&ctx, &[3], &[0i64, 7, 0]), &x, &z, &x).unwrap();
    assert_eq!(v::<f64>(&x), [0.0, 5.0, 0.0]);
    let e = Tensor::where_(&t(&ctx, &[2], &[true, false]), &a, &b).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_where"), "{e}");

    let f = t(&ctx, &[5], &[-2.0f32, -0.5, f32::NAN, 0.5, 9.0]);
    let c = v::<f32>(&f.clamp(Some(-1.0), Some(1.0)).unwrap());
    assert_eq!([c[0], c[1], c[3], c[4]], [-1.0, -0.5, 0.5, 1.0]);
    assert!(c[2].is_nan());
    assert_eq!(v::<f32>(&f.clamp(Some(3.0), Some(1.0)).unwrap())[0], 1.0); // lo > hi: hi
    let u = v::<f32>(&f.clamp(Some(0.0), None::<f64>).unwrap());
    assert_eq!((u[0], u[4]), (0.0, 9.0));
    assert_eq!(v::<f32>(&f.clamp_min(0).unwrap())[0], 0.0);
    assert_eq!(v::<f32>(&f.clamp_max(1).unwrap())[4], 1.0);
    let i = t(&ctx, &[3], &[-5i32, 0, 5]);
    i.clamp_(Some(-2.9), Some(2.9)).unwrap(); // bounds truncated to -2, 2
    assert_eq!(v::<i32>(&i), [-2, 0, 2]);
    let s = Stream::new(&ctx).unwrap();
    let o = Tensor::empty(&ctx, &[3], DType::I32).unwrap();
    i.clamp_on(None::<f64>, Some(1.0), &s, Some(&o)).unwrap();
    s.synchronize().unwrap();
    assert_eq!(v::<i32>(&o), [-2, 0, 1]);

    let start = t(&ctx, &[2], &[0.0f64, 10.0]);
    let end = t(&ctx, &[2, 1], &[1.0f64, 20.0]);
    assert_eq!(v::<f64>(&start.lerp(&end, 0.5).unwrap()), [0.5, 5.5, 10.0, 15.0]);
    start.lerp_(&t(&ctx, &[2], &[4.0f64, 14.0]), 0.25).unwrap();
    assert_eq!(v::<f64>(&start), [1.0, 11.0]);
    let e = i.lerp(&i, 0.5).unwrap_err();
    assert_eq!(e.status, Status::DTYPE);
    assert!(e.message.contains("ek_lerp"), "{e}");

    let x = t(&ctx, &[3], &[1.0f32, 2.0, 3.0]);
    let y = t(&ctx, &[3], &[10.0f32, 20.0, 30.0]);
    assert_eq!(v::<f32>(&Tensor::axpby(2.0, &x, -1.0, &y).unwrap()), [-8.0, -16.0, -24.0]);
    y.axpby_(0.5, &x, 2.0).unwrap();
    assert_eq!(v::<f32>(&y), [20.5, 41.0, 61.5]);
    let o = Tensor::empty(&ctx, &[3], DType::F32).unwrap();
    Tensor::axpby_into(1.0, &x, 1.0, &x, &o).unwrap();
    assert_eq!(v::<f32>(&o), [2.0, 4.0, 6.0]);
    let e = Tensor::axpby(1.0, &x, 1.0, &t(&ctx, &[2], &[1.0f32, 2.0])).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_axpby"), "{e}");
}

// ---------------------------------------------------------------- reductions

#[test]
fn var_std_and_max_dim() {
    let ctx = cpu();
    let x = t(&ctx, &[2, 4], &[1.0f64, 2.0, 3.0, 4.0, 2.0, 2.0, 2.0, 2.0]);
    close(&v::<f64>(&x.var(&[1], 1.0, false).unwrap()), &[5.0 / 3.0, 0.0], 1e-15);
    close(&v::<f64>(&x.std(&[1], 0.0, true).unwrap()), &[1.25f64.sqrt(), 0.0], 1e-15);
    assert_eq!(x.std(&[1], 0.0, true).unwrap().shape(), [2, 1]);
    close(&[x.var(&[], 0.0, false).unwrap().item::<f64>().unwrap()], &[(30.0 + 16.0) / 8.0 - 2.25f64.powi(2)], 1e-15);
    let o = Tensor::empty(&ctx, &[4], DType::F64).unwrap();
    x.std_into(&[0], 0.0, false, &o).unwrap();
    assert_eq!(v::<f64>(&o), [0.5, 0.0, 0.5, 1.0]);
    assert!(x.var(&[1], 4.0, false).unwrap().to_vec::<f64>().unwrap()[0].is_infinite()); // divisor 0
    let e = t(&ctx, &[2], &[1i32, 2]).var(&[], 1.0, false).unwrap_err();
    assert_eq!(e.status, Status::DTYPE);
    assert!(e.message.contains("ek_var"), "{e}");

    let m = t(&ctx, &[2, 3], &[3i32, 9, 9, -1, -5, 0]);
    let (vals, idx) = m.max_dim(1, false).unwrap();
    assert_eq!((v::<i32>(&vals), v::<i64>(&idx)), (vec![9, 0], vec![1, 2]));
    let (vals, idx) = m.min_dim(-1, true).unwrap();
    assert_eq!((vals.shape(), v::<i32>(&vals), v::<i64>(&idx)), (vec![2, 1], vec![3, -5], vec![0, 1]));
    let (vo, io) = (Tensor::empty(&ctx, &[3], DType::I32).unwrap(), Tensor::empty(&ctx, &[3], DType::I64).unwrap());
    m.max_dim_into(0, false, false, &vo, &io).unwrap();
    assert_eq!((v::<i32>(&vo), v::<i64>(&io)), (vec![3, 9, 9], vec![0, 0, 0]));
    let s = Stream::new(&ctx).unwrap();
    let (vals, idx) = m.max_dim_on(0, false, true, &s, None).unwrap();
    s.synchronize().unwrap();
    assert_eq!((v::<i32>(&vals), v::<i64>(&idx)), (vec![-1, -5, 0], vec![1, 1, 1]));
    let f = t(&ctx, &[3], &[1.0f32, f32::NAN, 2.0]);
    assert_eq!(v::<i64>(&f.max_dim(0, false).unwrap().1), [1]); // NaN wins
    let e = m.max_dim(2, false).unwrap_err();
    assert!(e.message.contains("ek_reduce_with_indices"), "{e}");
    let e = Tensor::zeros(&ctx, &[2, 0], DType::F32).unwrap().max_dim(1, false).unwrap_err();
    assert_eq!(e.status, Status::SHAPE, "{e}");
}

// ---------------------------------------------------------------- softmax and scans

#[test]
fn matmul_and_gemm() {
    let ctx = cpu();
    let a = t(&ctx, &[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = t(&ctx, &[3, 2], &[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0]);
    assert_eq!(v::<f32>(&a.matmul(&b).unwrap()), [4.0, 5.0, 10.0, 11.0]);
    // transposed views, 1-D operands, a dot product
    assert_eq!(v::<f32>(&b.transpose(0, 1).unwrap().matmul(&a.transpose(0, 1).unwrap()).unwrap()), [4.0, 10.0, 5.0, 11.0]);
    let u = t(&ctx, &[3], &[1.0f32, 1.0, 1.0]);
    assert_eq!(v::<f32>(&a.matmul(&u).unwrap()), [6.0, 15.0]);
    let r = u.matmul(&b).unwrap();
    assert_eq!((r.shape(), v::<f32>(&r)), (vec![2], vec![2.0, 2.0]));
    let d = u.matmul(&u).unwrap();
    assert_eq!((d.ndim(), d.item::<f32>().unwrap()), (0, 3.0));
    // batch dims broadcast
    let batch = t(&ctx, &[2, 1, 3], &[1.0f64, 0.0, 0.0, 0.0, 0.0, 2.0]);
    let rhs = t(&ctx, &[3, 2], &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let p = batch.matmul(&rhs).unwrap();
    assert_eq!((p.shape(), v::<f64>(&p)), (vec![2, 1, 2], vec![1.0, 2.0, 10.0, 12.0]));
    let o = Tensor::empty(&ctx, &[2, 2], DType::F32).unwrap();
    a.matmul_into(&b, &o).unwrap();
    assert_eq!(v::<f32>(&o), [4.0, 5.0, 10.0, 11.0]);
    let s = Stream::new(&ctx).unwrap();
    let q = a.matmul_on(&b, &s, None).unwrap();
    s.synchronize().unwrap();
    assert_eq!(v::<f32>(&q), [4.0, 5.0, 10.0, 11.0]);

    // gemm: c = alpha a b + beta c, in place; beta 0 ignores NaN
    let c = t(&ctx, &[2, 2], &[f32::NAN, 1.0, 1.0, 1.0]);
    c.gemm(1.0, &a, &b, 0.0).unwrap();
    assert_eq!(v::<f32>(&c), [4.0, 5.0, 10.0, 11.0]);
    c.gemm(-1.0, &a, &b, 2.0).unwrap();
    assert_eq!(v::<f32>(&c), [4.0, 5.0, 10.0, 11.0]);
    c.gemm_on(0.5, &a, &b, 0.0, &s).unwrap();
    s.synchronize().unwrap();
    assert_eq!(v::<f32>(&c), [2.0, 2.5, 5.0, 5.5]);
    let cb = Tensor::zeros(&ctx, &[2, 2, 2], DType::F32).unwrap();
    cb.gemm(1.0, &a.unsqueeze(0).unwrap(), &b.unsqueeze(0).unwrap().expand(&[2, 3, 2]).unwrap(), 0.0).unwrap();
    assert_eq!(v::<f32>(&cb), [4.0, 5.0, 10.0, 11.0, 4.0, 5.0, 10.0, 11.0]);

    // errors
    let e = a.matmul(&a).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_matmul") && e.message.contains("[2,3]"), "{e}");
    assert_eq!(a.matmul(&rhs).unwrap().dtype(), DType::F64, "mixed dtypes promote");
    let i = t(&ctx, &[2, 2], &[1i32, 2, 3, 4]);
    assert_eq!(v::<i32>(&i.matmul(&i).unwrap()), [7, 10, 15, 22]);
    let bits = t(&ctx, &[2, 2], &[true, false, true, true]);
    assert_eq!(bits.matmul(&bits).unwrap_err().status, Status::DTYPE);
    let e = c.gemm(1.0, &a, &a, 0.0).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_gemm"), "{e}");
    let e = a.matmul_into(&b, &a).unwrap_err();
    assert_ne!(e.status, Status::SUCCESS);
}

// ---------------------------------------------------------------- indexing

#[test]
fn indexing_ops() {
    let ctx = cpu();
    let x = t(&ctx, &[3, 2], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let i32idx = t(&ctx, &[2], &[-1i32, 0]);
    assert_eq!(v::<f32>(&x.index_select(0, &i32idx).unwrap()), [5.0, 6.0, 1.0, 2.0]);
    assert_eq!(v::<f32>(&x.index_select(-1, &t(&ctx, &[3], &[1i64, 1, 0])).unwrap()), [2.0, 2.0, 1.0, 4.0, 4.0, 3.0, 6.0, 6.0, 5.0]);
    let o = Tensor::empty(&ctx, &[2, 2], DType::F32).unwrap();
    x.index_select_into(0, &i32idx, &o).unwrap();
    assert_eq!(v::<f32>(&o), [5.0, 6.0, 1.0, 2.0]);
    let e = x.index_select(0, &t(&ctx, &[1], &[5i64])).unwrap_err();
    assert_eq!(e.status, Status::INDEX);
    assert!(e.message.contains('5') && e.message.contains('3'), "names the value and the size: {e}");
    let e = x.index_select(0, &t(&ctx, &[1], &[0.0f32])).unwrap_err();
    assert_eq!(e.status, Status::DTYPE, "{e}");

    let g = x.gather(0, &t(&ctx, &[2, 2], &[2i64, 0, 1, 2])).unwrap();
    assert_eq!(v::<f32>(&g), [5.0, 2.0, 3.0, 6.0]);
    let e = x.gather(0, &t(&ctx, &[2], &[0i64, 1])).unwrap_err();
    assert!(e.message.contains("ek_gather"), "{e}");

    let z = Tensor::zeros(&ctx, &[2, 3], DType::F32).unwrap();
    let idx = t(&ctx, &[2, 2], &[2i64, 0, 0, 0]);
    let src = t(&ctx, &[2, 2], &[1.0f32, 2.0, 3.0, 4.0]);
    assert_eq!(v::<f32>(&z.scatter_add(1, &idx, &src).unwrap()), [2.0, 0.0, 1.0, 7.0, 0.0, 0.0]);
    let one = t(&ctx, &[2, 1], &[1i64, 2]);
    assert_eq!(v::<f32>(&z.scatter(1, &one, &src).unwrap()), [0.0, 1.0, 0.0, 0.0, 0.0, 3.0]);
    z.scatter_add_(1, &one, &src).unwrap();
    z.scatter_add_(1, &one, &src).unwrap();
    assert_eq!(v::<f32>(&z), [0.0, 2.0, 0.0, 0.0, 0.0, 6.0]);
    z.scatter_(1, &one, &src.mul_scalar(0.0).unwrap()).unwrap();
    assert_eq!(v::<f32>(&z), [0.0; 6]);
    let o = Tensor::empty(&ctx, &[2, 3], DType::F32).unwrap();
    z.scatter_into(1, &one, &src, false, &o).unwrap();
    assert_eq!(v::<f32>(&o), [0.0, 1.0, 0.0, 0.0, 0.0, 3.0]);
    let e = z.scatter(1, &t(&ctx, &[2, 1], &[3i64, 0]), &src).unwrap_err();
    assert_eq!(e.status, Status::INDEX);
    assert!(e.message.contains("ek_scatter"), "{e}");
    let e = z.scatter(1, &one, &src.cast(DType::F64).unwrap()).unwrap_err();
    assert_eq!(e.status, Status::DTYPE, "{e}");

    let m = Tensor::zeros(&ctx, &[3, 2], DType::I64).unwrap();
    let rows = t(&ctx, &[3], &[0i32, 2, 0]);
    let vals = t(&ctx, &[2], &[1i64, 10]);
    let acc = m.index_put(&[&rows], &vals, true).unwrap();
    assert_eq!(v::<i64>(&acc), [2, 20, 0, 0, 1, 10]);
    m.index_put_(&[&t(&ctx, &[1], &[-1i64]), &t(&ctx, &[1], &[1i64])], &t(&ctx, &[], &[9i64]), false).unwrap();
    assert_eq!(v::<i64>(&m), [0, 0, 0, 0, 0, 9]);
    let o = Tensor::empty(&ctx, &[3, 2], DType::I64).unwrap();
    m.index_put_into(&[&rows], &vals, false, &o).unwrap();
    assert_eq!(v::<i64>(&o), [1, 10, 0, 0, 1, 10]);
    let e = m.index_put(&[&t(&ctx, &[1], &[3i64])], &vals, false).unwrap_err();
    assert_eq!(e.status, Status::INDEX);
    assert!(e.message.contains("ek_index_put"), "{e}");

    let mask = t(&ctx, &[2], &[true, false]); // broadcast to [3, 2]
    assert_eq!(v::<f32>(&x.masked_select(&mask).unwrap()), [1.0, 3.0, 5.0]);
    assert_eq!(v::<f32>(&x.masked_fill(&mask, -1.0).unwrap()), [-1.0, 2.0, -1.0, 4.0, -1.0, 6.0]);
    let y = x.contiguous().unwrap().mul_scalar(1.0).unwrap();
    y.masked_fill_(&mask, 0.0).unwrap();
    assert_eq!(v::<f32>(&y), [0.0, 2.0, 0.0, 4.0, 0.0, 6.0]);
    let o = Tensor::empty(&ctx, &[3, 2], DType::F32).unwrap();
    x.masked_fill_into(&mask.logical_not().unwrap(), 7.0, &o).unwrap();
    assert_eq!(v::<f32>(&o), [1.0, 7.0, 3.0, 7.0, 5.0, 7.0]);
    let source = t(&ctx, &[4], &[10.0f32, 20.0, 30.0, 40.0]);
    assert_eq!(v::<f32>(&x.masked_scatter(&mask, &source).unwrap()), [10.0, 2.0, 20.0, 4.0, 30.0, 6.0]);
    y.masked_scatter_(&mask, &source).unwrap();
    assert_eq!(v::<f32>(&y), [10.0, 2.0, 20.0, 4.0, 30.0, 6.0]);
    x.masked_scatter_into(&mask, &source, &o).unwrap();
    assert_eq!(v::<f32>(&o), [10.0, 2.0, 20.0, 4.0, 30.0, 6.0]);
    let e = x.masked_scatter(&mask, &t(&ctx, &[2], &[1.0f32, 2.0])).unwrap_err();
    assert_ne!(e.status, Status::SUCCESS);
    assert!(e.message.contains("ek_masked_scatter"), "{e}");
    let e = x.masked_fill(&t(&ctx, &[2], &[1u8, 0]), 0.0).unwrap_err();
    assert_eq!(e.status, Status::DTYPE, "{e}");
    let e = x.masked_select(&t(&ctx, &[4], &[true; 4])).unwrap_err();
    assert_eq!(e.status, Status::SHAPE, "{e}");

    let nz = t(&ctx, &[2, 3], &[0i32, 5, 0, -1, 0, 2]).nonzero().unwrap();
    assert_eq!((nz.shape(), v::<i64>(&nz)), (vec![3, 2], vec![0, 1, 1, 0, 1, 2]));
    assert_eq!(Tensor::zeros(&ctx, &[4], DType::F32).unwrap().nonzero().unwrap().shape(), [0, 1]);

    let s = Stream::new(&ctx).unwrap();
    let a = x.index_select_on(1, &t(&ctx, &[1], &[1i64]), &s, None).unwrap();
    let b = x.gather_on(1, &t(&ctx, &[3, 1], &[0i64, 1, 0]), &s, None).unwrap();
    let c = x.scatter_on(0, &t(&ctx, &[1, 2], &[0i64, 0]), &t(&ctx, &[1, 2], &[0.0f32, 0.0]), true, &s, None).unwrap();
    let d = x.index_put_on(&[&t(&ctx, &[1], &[0i64])], &t(&ctx, &[], &[0.0f32]), false, &s, None).unwrap();
    let e = x.masked_select_on(&mask, &s, None).unwrap();
    let f = x.masked_fill_on(&mask, 1.0, &s, None).unwrap();
    let g = x.masked_scatter_on(&mask, &source, &s, None).unwrap();
    let h = x.nonzero_on(&s, None).unwrap();
    s.synchronize().unwrap();
    assert_eq!(v::<f32>(&a), [2.0, 4.0, 6.0]);
    assert_eq!(v::<f32>(&b), [1.0, 4.0, 5.0]);
    assert_eq!(v::<f32>(&c), v::<f32>(&x));
    assert_eq!(v::<f32>(&d)[..2], [0.0, 0.0]);
    assert_eq!(e.numel(), 3);
    assert_eq!(v::<f32>(&f)[0], 1.0);
    assert_eq!(v::<f32>(&g)[0], 10.0);
    assert_eq!(h.shape(), [6, 2]);
}

// ---------------------------------------------------------------- random

#[test]
fn random_generator_and_distributions() {
    let ctx = cpu();
    ctx.manual_seed(42).unwrap();
    assert_eq!(ctx.random_state().unwrap(), PhiloxState { seed: 42, offset: 0 });
    let a = Tensor::randn(&ctx, &[1000], DType::F64).unwrap();
    assert_eq!(ctx.random_state().unwrap().offset, 1000);
    let b = Tensor::randn(&ctx, &[1000], DType::F64).unwrap();
    assert_ne!(v::<f64>(&a), v::<f64>(&b));
    ctx.manual_seed(42).unwrap();
    let a2 = Tensor::randn(&ctx, &[1000], DType::F64).unwrap();
    assert_eq!(v::<f64>(&a), v::<f64>(&a2));
    // an explicit state: the element i uses counter offset + i, the generator stays
    let before = ctx.random_state().unwrap();
    let c = Tensor::empty(&ctx, &[500], DType::F64).unwrap();
    c.random_with(RandomDist::Normal { mean: 0.0, std: 1.0 }, Some(PhiloxState { seed: 42, offset: 500 }), None).unwrap();
    assert_eq!(ctx.random_state().unwrap(), before);
    assert_eq!(v::<f64>(&c), v::<f64>(&a)[500..]);
    // moments
    let n = Tensor::random(&ctx, &[200_000], DType::F32, RandomDist::Normal { mean: 2.0, std: 0.5 }).unwrap();
    let mean = n.mean(&[], false).unwrap().item::<f32>().unwrap();
    let std = n.std(&[], 1.0, false).unwrap().item::<f32>().unwrap();
    assert!((mean - 2.0).abs() < 0.01 && (std - 0.5).abs() < 0.01, "{mean} {std}");
    let u = Tensor::random(&ctx, &[100_000], DType::F64, RandomDist::Uniform { low: -1.0, high: 3.0 }).unwrap();
    let uv = v::<f64>(&u);
    assert!(uv.iter().all(|x| (-1.0..3.0).contains(x)));
    assert!((uv.iter().sum::<f64>() / uv.len() as f64 - 1.0).abs() < 0.02);
    let r = Tensor::random(&ctx, &[10_000], DType::I64, RandomDist::Randint { low: -2, high: 3 }).unwrap();
    let rv = v::<i64>(&r);
    for k in -2..3 {
        assert!(rv.contains(&k), "{k} never drawn");
    }
    assert!(rv.iter().all(|x| (-2..3).contains(x)));
    let bern = Tensor::empty(&ctx, &[1000], DType::Bool).unwrap();
    bern.random_(RandomDist::Bernoulli { p: 0.0 }).unwrap();
    assert!(v::<bool>(&bern).iter().all(|b| !b));
    bern.random_(RandomDist::Bernoulli { p: 1.0 }).unwrap();
    assert!(v::<bool>(&bern).iter().all(|&b| b));
    let bf = Tensor::random(&ctx, &[10_000], DType::F32, RandomDist::Bernoulli { p: 0.25 }).unwrap();
    let frac = bf.mean(&[], false).unwrap().item::<f32>().unwrap();
    assert!((frac - 0.25).abs() < 0.02, "{frac}");
    let r01 = v::<f32>(&Tensor::rand(&ctx, &[1000], DType::F32).unwrap());
    assert!(r01.iter().all(|x| (0.0..1.0).contains(x)));
    // on a stream
    let s = Stream::new(&ctx).unwrap();
    let w = Tensor::empty(&ctx, &[8], DType::F32).unwrap();
    w.random_with(RandomDist::Uniform { low: 5.0, high: 6.0 }, None, Some(&s)).unwrap();
    s.synchronize().unwrap();
    assert!(v::<f32>(&w).iter().all(|x| (5.0..6.0).contains(x)));
    // errors
    let f = Tensor::empty(&ctx, &[4], DType::F32).unwrap();
    for bad in [
        RandomDist::Uniform { low: 1.0, high: 1.0 },
        RandomDist::Normal { mean: 0.0, std: -1.0 },
        RandomDist::Bernoulli { p: 1.5 },
        RandomDist::Randint { low: 3, high: 2 },
    ] {
        let e = f.random_(bad).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{bad:?}: {e}");
        assert!(e.message.contains("ek_random"), "{e}");
    }
    let i = Tensor::empty(&ctx, &[4], DType::I32).unwrap();
    assert_eq!(i.random_(RandomDist::Normal { mean: 0.0, std: 1.0 }).unwrap_err().status, Status::DTYPE);
    let b = Tensor::empty(&ctx, &[4], DType::Bool).unwrap();
    assert_eq!(b.random_(RandomDist::Randint { low: 0, high: 2 }).unwrap_err().status, Status::DTYPE);
}

#[test]
fn mlp_forward_pass_matches_quickstart() {
    // The quickstart's workload, checked for shapes and row sums.
    let ctx = cpu();
    ctx.manual_seed(0).unwrap();
    let n = RandomDist::Normal { mean: 0.0, std: 0.1 };
    let x = Tensor::random(&ctx, &[64, 128], DType::F32, n).unwrap();
    let w1 = Tensor::random(&ctx, &[128, 256], DType::F32, n).unwrap();
    let b1 = Tensor::random(&ctx, &[256], DType::F32, n).unwrap();
    let w2 = Tensor::random(&ctx, &[256, 10], DType::F32, n).unwrap();
    let b2 = Tensor::random(&ctx, &[10], DType::F32, n).unwrap();
    let h = (&x.matmul(&w1).unwrap() + &b1).unwrap().relu().unwrap();
    let y = (&h.matmul(&w2).unwrap() + &b2).unwrap().softmax(-1).unwrap();
    assert_eq!(y.shape(), [64, 10]);
    close32(&v::<f32>(&y.sum(&[1], false).unwrap()), &[1.0; 64], 1e-5);
    assert!(v::<bool>(&h.ge_scalar(0.0).unwrap().all(&[], false).unwrap())[0]);
}
