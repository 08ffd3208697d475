//! Views against expected values and strides (CPU).
use ek::{Context, DType, Device, Status, Tensor};

fn setup() -> (Context, Tensor) {
    let ctx = Context::new(Device::Cpu).unwrap();
    // 0..24 as [2, 3, 4]
    let t = Tensor::arange(&ctx, 0.0, 24.0, 1.0, DType::I32).unwrap().view(&[2, 3, 4]).unwrap();
    (ctx, t)
}

#[test]
fn slice_and_select() {
    let (_ctx, t) = setup();
    let s = t.slice(2, Some(1), None, 2).unwrap();
    assert_eq!(s.shape(), [2, 3, 2]);
    assert_eq!(s.strides(), [12, 4, 2]);
    assert_eq!(s.offset(), 1);
    assert!(!s.is_contiguous());
    assert_eq!(s.to_vec::<i32>().unwrap(), [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23]);
    let r = t.slice(1, None, None, -1).unwrap().select(0, 0).unwrap().select(1, 0).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), [8, 4, 0]);
    assert_eq!(t.slice(-1, Some(-100), Some(100), 3).unwrap().shape(), [2, 3, 2]);
    assert_eq!(t.slice(0, Some(5), Some(9), 1).unwrap().numel(), 0);
    assert_eq!(t.select(-1, -1).unwrap().to_vec::<i32>().unwrap(), [3, 7, 11, 15, 19, 23]);
}

#[test]
fn permute_transpose_contiguous() {
    let (_ctx, t) = setup();
    let p = t.permute(&[2, 0, 1]).unwrap();
    assert_eq!(p.shape(), [4, 2, 3]);
    assert_eq!(p.strides(), [1, 12, 4]);
    let c = p.contiguous().unwrap();
    assert!(c.is_contiguous());
    assert_eq!(c.strides(), [6, 3, 1]);
    assert_eq!(&c.to_vec::<i32>().unwrap()[..6], [0, 4, 8, 12, 16, 20]);
    let tt = t.transpose(0, 2).unwrap();
    assert_eq!(tt.shape(), [4, 3, 2]);
    assert_eq!(tt.select(0, 1).unwrap().select(0, 2).unwrap().to_vec::<i32>().unwrap(), [9, 21]);
    // contiguous of a contiguous tensor is the same handle, retained
    let same = t.contiguous().unwrap();
    assert_eq!(same.as_raw(), t.as_raw());
}

#[test]
fn reshape_view_flatten_squeeze_unsqueeze() {
    let (_ctx, t) = setup();
    assert_eq!(t.view(&[6, -1]).unwrap().shape(), [6, 4]);
    assert_eq!(t.flatten(0, 1).unwrap().shape(), [6, 4]);
    let nt = t.transpose(1, 2).unwrap();
    assert_eq!(nt.view(&[-1]).unwrap_err().status, Status::SHAPE);
    assert_eq!(nt.flatten(1, 2).unwrap_err().status, Status::SHAPE);
    let copied = nt.reshape(&[2, 12]).unwrap();
    assert!(copied.is_contiguous());
    assert_eq!(&copied.to_vec::<i32>().unwrap()[..4], [0, 4, 8, 1]);
    let u = t.unsqueeze(1).unwrap().unsqueeze(-1).unwrap();
    assert_eq!(u.shape(), [2, 1, 3, 4, 1]);
    assert_eq!(u.squeeze(&[1]).unwrap().shape(), [2, 3, 4, 1]);
    assert_eq!(u.squeeze(&[]).unwrap().shape(), [2, 3, 4]);
}

#[test]
fn expand_and_as_strided() {
    let (ctx, t) = setup();
    let row = Tensor::from_slice(&ctx, &[1, 3], &[1.0f64, 2.0, 3.0]).unwrap();
    let e = row.expand(&[2, -1]).unwrap();
    assert_eq!(e.strides(), [0, 1]);
    assert_eq!(e.to_vec::<f64>().unwrap(), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    let diag = t.as_strided(&[3], &[5], 0).unwrap();
    assert_eq!(diag.to_vec::<i32>().unwrap(), [0, 5, 10]);
    assert_eq!(t.as_strided(&[2], &[1], 23).unwrap_err().status, Status::INDEX);
    assert_eq!(t.as_strided(&[2], &[1, 1], 0).unwrap_err().status, Status::INVALID_ARGUMENT);
}

#[test]
fn writes_through_views_reach_storage() {
    let (_ctx, t) = setup();
    t.select(0, 1).unwrap().slice(1, Some(0), Some(1), 1).unwrap().fill(-1.0).unwrap();
    let v = t.to_vec::<i32>().unwrap();
    assert_eq!(&v[12..16], [-1, 13, 14, 15]);
    assert_eq!(v[16], -1);
    assert_eq!(v[20], -1);
}
