//! Complex scalars (`Scalar::Complex`, from `Complex32`/`Complex64`): a
//! complex fill, `x * i`, gemm's complex alpha and beta, prod and cumprod of
//! complex tensors, and the error of a complex value for a real tensor. On
//! the CPU, and on CUDA device 0 when EK_TEST_DEVICE selects it.
mod common;

use ek::{Complex64, Context, DType, Device, Scalar, Status, Tensor};

fn devices(test: &str) -> Vec<Context> {
    let mut v = vec![Context::new(Device::Cpu).unwrap()];
    if common::cuda_selected(test) {
        v.push(Context::new(Device::Cuda(0)).unwrap());
    }
    v
}

fn z(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

#[test]
fn complex_scalar_raw_kind() {
    let r = Scalar::from(ek::Complex32::new(1.5, -2.0)).to_raw();
    assert_eq!((r.kind, r.f, r.imag), (ek_sys::ek_scalar_kind::EK_SCALAR_COMPLEX, 1.5, -2.0));
    assert_eq!(Scalar::from(z(0.0, 1.0)), Scalar::complex(0.0, 1.0));
}

#[test]
fn complex_scalars_through_ops() {
    for ctx in devices("complex_scalars_through_ops") {
        let x = Tensor::full(&ctx, &[3], z(1.0, 2.0), DType::C128).unwrap();
        assert_eq!(x.to_vec::<Complex64>().unwrap(), [z(1.0, 2.0); 3]);
        // (1 + 2i) * i = -2 + i
        let y = x.mul_scalar(z(0.0, 1.0)).unwrap();
        assert_eq!(y.to_vec::<Complex64>().unwrap(), [z(-2.0, 1.0); 3]);
        // prod: (1 + 2i)^3 = -11 - 2i; cumprod's last is the same
        assert_eq!(x.prod(&[], false).unwrap().to_vec::<Complex64>().unwrap(), [z(-11.0, -2.0)]);
        assert_eq!(x.cumprod(0).unwrap().to_vec::<Complex64>().unwrap(), [z(1.0, 2.0), z(-3.0, 4.0), z(-11.0, -2.0)]);
        // c = i * (a @ b) + (1 - i) * c with a [1,2], b [2,1]: a @ b = (1+i)(2) + (0+i)(1-i) = 3 + 3i
        let a = Tensor::from_slice(&ctx, &[1, 2], &[z(1.0, 1.0), z(0.0, 1.0)]).unwrap();
        let b = Tensor::from_slice(&ctx, &[2, 1], &[z(2.0, 0.0), z(1.0, -1.0)]).unwrap();
        let c = Tensor::full(&ctx, &[1, 1], z(2.0, 0.0), DType::C128).unwrap();
        c.gemm(z(0.0, 1.0), &a, &b, z(1.0, -1.0)).unwrap();
        // i (3 + 3i) + (1 - i) 2 = -3 + 3i + 2 - 2i = -1 + i
        assert_eq!(c.to_vec::<Complex64>().unwrap(), [z(-1.0, 1.0)]);
    }
}

#[test]
fn complex_scalar_into_a_real_tensor_is_an_error() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::zeros(&ctx, &[2], DType::F32).unwrap();
    let e = t.fill(z(1.0, 1.0)).unwrap_err();
    assert_eq!(e.status, Status::DTYPE);
    assert!(e.message.contains("complex"), "{e}");
    let e = t.gemm(z(0.0, 1.0), &t.reshape(&[1, 2]).unwrap(), &t.reshape(&[2, 1]).unwrap(), 0).unwrap_err();
    assert_eq!(e.status, Status::DTYPE);
    assert!(e.message.contains("alpha: a complex value ((0+1j)) is not taken here"), "{e}");
}
