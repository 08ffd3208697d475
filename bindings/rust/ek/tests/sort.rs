//! Sorting and searching against hand-computed values (CPU): sort/argsort
//! (stable, descending, NaN), topk, searchsorted, unique with inverse and
//! counts, count_nonzero, diff, and a bad k's message.
use ek::{Context, DType, Device, Status, Tensor};

fn ctx() -> Context {
    Context::new(Device::Cpu).unwrap()
}

#[test]
fn sort_argsort_topk() {
    let ctx = ctx();
    let x = Tensor::from_slice(&ctx, &[2, 3], &[3.0f32, f32::NAN, 1.0, 2.0, 2.0, -0.0]).unwrap();
    let (v, i) = x.sort(1, false, true).unwrap();
    assert_eq!(i.to_vec::<i64>().unwrap(), [2, 0, 1, 2, 0, 1]);
    let vv = v.to_vec::<f32>().unwrap();
    assert_eq!(&vv[..2], [1.0, 3.0]);
    assert!(vv[2].is_nan());
    let (_, di) = x.sort(-1, true, true).unwrap();
    assert_eq!(di.to_vec::<i64>().unwrap(), [1, 0, 2, 0, 1, 2]);
    assert_eq!(x.argsort(0, false, true).unwrap().to_vec::<i64>().unwrap(), [1, 1, 1, 0, 0, 0]);
    let y = Tensor::from_slice(&ctx, &[5], &[4i32, 9, 1, 7, 3]).unwrap();
    let (tv, ti) = y.topk(2, 0, true, true).unwrap();
    assert_eq!(tv.to_vec::<i32>().unwrap(), [9, 7]);
    assert_eq!(ti.to_vec::<i64>().unwrap(), [1, 3]);
    let (sv, _) = y.topk(2, 0, false, true).unwrap();
    assert_eq!(sv.to_vec::<i32>().unwrap(), [1, 3]);
}

#[test]
fn searchsorted_unique_count_nonzero_diff() {
    let ctx = ctx();
    let seq = Tensor::from_slice(&ctx, &[4], &[1i64, 2, 2, 5]).unwrap();
    let vals = Tensor::from_slice(&ctx, &[3], &[2i64, 0, 6]).unwrap();
    assert_eq!(seq.searchsorted(&vals, false, DType::I64).unwrap().to_vec::<i64>().unwrap(), [1, 0, 4]);
    let r = seq.searchsorted(&vals, true, DType::I32).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), [3, 0, 4]);
    let x = Tensor::from_slice(&ctx, &[2, 3], &[3i32, 1, 3, 0, 1, 1]).unwrap();
    let u = x.unique(true, true).unwrap();
    assert_eq!(u.values.to_vec::<i32>().unwrap(), [0, 1, 3]);
    assert_eq!(u.inverse.unwrap().to_vec::<i64>().unwrap(), [2, 1, 2, 0, 1, 1]);
    assert_eq!(u.counts.unwrap().to_vec::<i64>().unwrap(), [1, 3, 2]);
    assert!(x.unique(false, false).unwrap().inverse.is_none());
    assert_eq!(x.count_nonzero(&[1], false).unwrap().to_vec::<i64>().unwrap(), [3, 2]);
    assert_eq!(x.diff(1, -1, None, None).unwrap().to_vec::<i32>().unwrap(), [-2, 2, 1, 0]);
    let pre = Tensor::from_slice(&ctx, &[2, 1], &[0i32, 0]).unwrap();
    assert_eq!(x.diff(1, 1, Some(&pre), None).unwrap().to_vec::<i32>().unwrap(), [3, -2, 2, 0, 1, 0]);
}

#[test]
fn topk_bad_k_names_the_function() {
    let ctx = ctx();
    let x = Tensor::from_slice(&ctx, &[3], &[1.0f32, 2.0, 3.0]).unwrap();
    let e = x.topk(4, 0, true, true).unwrap_err();
    assert_eq!(e.status, Status::INDEX);
    assert!(e.message.contains("ek_topk: k 4 is out of range [0, 3] for dim 0 of size 3"), "{}", e.message);
}
