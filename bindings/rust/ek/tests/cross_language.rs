//! The three cases every binding checks alike (issue 14): NumPy indexing
//! through ek_index/ek_index_assign, an in-place op with mixed dtypes under the
//! C out-dtype rule, and an exact 2^60 integer scalar.
use ek::{Context, DType, Device, Index, Tensor};

fn cpu() -> Context {
    Context::new(Device::Cpu).unwrap()
}

#[test]
fn index_with_ellipsis_index_tensor_and_negative_step() {
    let ctx = cpu();
    let x = Tensor::arange(&ctx, 0, 24, 1, DType::I64).unwrap().reshape(&[2, 3, 4]).unwrap();
    let rows = Tensor::from_slice(&ctx, &[2], &[2i64, 0]).unwrap();
    let y = x.index(&[Index::Ellipsis, Index::Tensor(&rows), Index::slice(None, None, -2)]).unwrap();
    assert_eq!(y.shape(), [2, 2, 2]);
    assert_eq!(y.to_vec::<i64>().unwrap(), [11, 9, 3, 1, 23, 21, 15, 13]);

    // x[1, mask] = v: the mask addresses dims 1 and 2 of x[1]
    let mask = x.select(0, 1).unwrap().remainder_scalar(5).unwrap().eq_scalar(0).unwrap();
    x.index_assign(&[Index::Int(1), Index::Tensor(&mask)], &Tensor::full(&ctx, &[], -1, DType::I64).unwrap(), false)
        .unwrap();
    let want: Vec<i64> = (0..24).map(|v| if v >= 12 && v % 5 == 0 { -1 } else { v }).collect();
    assert_eq!(x.to_vec::<i64>().unwrap(), want);
    // and x[0, [0, 0], 0] += 10 with the duplicate adding up
    let zeros = Tensor::from_slice(&ctx, &[2], &[0i64, 0]).unwrap();
    x.index_assign(&[Index::Int(0), Index::Tensor(&zeros), Index::Int(0)], &Tensor::full(&ctx, &[], 10, DType::I64).unwrap(), true)
        .unwrap();
    assert_eq!(x.index(&[Index::Int(0), Index::Int(0), Index::Int(0)]).unwrap().item::<i64>().unwrap(), 20);
}

#[test]
fn in_place_add_keeps_the_dtype() {
    let ctx = cpu();
    let x = Tensor::from_slice(&ctx, &[2], &[1.5f32, 2.5]).unwrap();
    x.add_(&Tensor::from_slice(&ctx, &[2], &[0.25f64, 0.5]).unwrap()).unwrap();
    assert_eq!(x.dtype(), DType::F32);
    assert_eq!(x.to_vec::<f32>().unwrap(), [1.75, 3.0]);
}

#[test]
fn integer_scalar_beyond_2_pow_53_is_exact() {
    let ctx = cpu();
    let x = Tensor::from_slice(&ctx, &[2], &[1i64, 2]).unwrap();
    let y = (&x + (1i64 << 60)).unwrap();
    assert_eq!(y.dtype(), DType::I64);
    assert_eq!(y.to_vec::<i64>().unwrap(), [(1 << 60) + 1, (1 << 60) + 2]);
}
