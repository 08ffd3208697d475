//! complex64 and complex128 (issue 18): round trips through from_slice/to_vec,
//! the real/imag views, conj and mul, and the error of an op that refuses
//! complex tensors.
use ek::{Complex32, Complex64, Context, DType, Device, Status, Tensor};

#[test]
fn complex_round_trip_views_and_mul() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let z = [Complex32::new(1.0, 2.0), Complex32::new(3.0, -1.0)];
    let a = Tensor::from_slice(&ctx, &[2], &z).unwrap();
    assert_eq!(a.dtype(), DType::C64);
    assert_eq!(a.to_vec::<Complex32>().unwrap(), z);
    assert_eq!(a.real().unwrap().to_vec::<f32>().unwrap(), [1.0, 3.0]);
    assert_eq!(a.imag().unwrap().contiguous().unwrap().to_vec::<f32>().unwrap(), [2.0, -1.0]);
    assert_eq!(a.conj().unwrap().to_vec::<Complex32>().unwrap(), [Complex32::new(1.0, -2.0), Complex32::new(3.0, 1.0)]);
    // (1+2i)^2 = -3+4i, (3-i)^2 = 8-6i
    assert_eq!(a.mul(&a).unwrap().to_vec::<Complex32>().unwrap(), [Complex32::new(-3.0, 4.0), Complex32::new(8.0, -6.0)]);
    let w = a.cast(DType::C128).unwrap();
    assert_eq!(w.to_vec::<Complex64>().unwrap()[1], Complex64::new(3.0, -1.0));
    assert_eq!((DType::C64.size(), DType::C128.name()), (8, "complex128"));
}

#[test]
fn complex_max_is_an_error() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let a = Tensor::from_slice(&ctx, &[1], &[Complex64::new(1.0, 1.0)]).unwrap();
    let e = a.max(&[], false).unwrap_err();
    assert_eq!(e.status, Status::DTYPE);
    assert!(e.message.contains("max does not support complex dtypes, got complex128"), "{e}");
}
