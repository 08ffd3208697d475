//! Issue 18 through the Rust binding: integer matmul (wrapping), tensordot
//! (both forms), vecdot, outer, an integer sum into a narrower out, and the
//! bad-input messages. Semantics are tested in C (tests/test_linalg_ext.cpp).
use ek::{Context, DType, Device, ReduceOp, Status, Tensor};

fn cpu() -> Context {
    Context::new(Device::Cpu).unwrap()
}

#[test]
fn integer_matmul_wraps() {
    let ctx = cpu();
    let a = Tensor::from_slice(&ctx, &[1, 2], &[100i8, 100]).unwrap();
    let b = Tensor::from_slice(&ctx, &[2, 1], &[2i8, 1]).unwrap();
    let c = a.matmul(&b).unwrap();
    assert_eq!(c.dtype(), DType::I8);
    assert_eq!(c.to_vec::<i8>().unwrap(), [(300i32 as i8)]); // 300 wraps to 44
    let big = Tensor::from_slice(&ctx, &[2], &[i64::MAX, 2]).unwrap();
    assert_eq!(big.matmul(&big).unwrap().item::<i64>().unwrap(), 5); // MAX^2 + 4 wraps to 5
}

#[test]
fn tensordot_vecdot_outer() {
    let ctx = cpu();
    let a = Tensor::from_slice(&ctx, &[2, 3], &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    assert_eq!(a.tensordot_n(&a, 2).unwrap().item::<f64>().unwrap(), 91.0);
    let g = a.tensordot(&a, &[1], &[1]).unwrap(); // a @ a^T
    assert_eq!(g.to_vec::<f64>().unwrap(), [14.0, 32.0, 32.0, 77.0]);
    assert_eq!(a.tensordot_n(&a, 0).unwrap().shape(), vec![2, 3, 2, 3]);
    let w = Tensor::from_slice(&ctx, &[3], &[1.0f64, 0.0, -1.0]).unwrap();
    assert_eq!(a.vecdot(&w, -1).unwrap().to_vec::<f64>().unwrap(), [-2.0, -2.0]);
    let copy = a.clamp(None::<f64>, None::<f64>).unwrap(); // no bound: a copy
    assert_eq!(copy.to_vec::<f64>().unwrap(), a.to_vec::<f64>().unwrap());
    let u = Tensor::from_slice(&ctx, &[2], &[1i32, 2]).unwrap();
    let o = u.outer(&u).unwrap();
    assert_eq!((o.shape(), o.to_vec::<i32>().unwrap()), (vec![2, 2], vec![1, 2, 2, 4]));
}

#[test]
fn integer_sum_into_a_narrower_out_wraps() {
    let ctx = cpu();
    let x = Tensor::from_slice(&ctx, &[3], &[100i8, 100, 100]).unwrap();
    let out = Tensor::empty(&ctx, &[], DType::I8).unwrap();
    x.reduce_into(ReduceOp::Sum, &[], false, &out).unwrap();
    assert_eq!(out.item::<i8>().unwrap(), 300i32 as i8);
}

#[test]
fn bad_inputs_name_the_function() {
    let ctx = cpu();
    let a = Tensor::from_slice(&ctx, &[2, 3], &[1.0f32; 6]).unwrap();
    let e = a.tensordot(&a, &[0], &[1]).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_tensordot: a's dim 0 (size 2) and b's dim 1 (size 3) differ"), "{e}");
    let e = a.tensordot_n(&a, 3).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT);
    assert!(e.message.contains("ndims = 3"), "{e}");
    let e = a.outer(&a).unwrap_err();
    assert!(e.message.contains("ek_outer") && e.message.contains("1-D"), "{e}");
    let e = a.vecdot(&a, 2).unwrap_err();
    assert_eq!(e.status, Status::INDEX, "{e}");
}
