//! Creation ops (full, linspace, eye, tril, triu) against values written out
//! from NumPy, on the CPU and (when EK_TEST_DEVICE selects it) on CUDA.
mod common;

use ek::{Context, DType, Device, Status, Tensor};

fn contexts(test: &str) -> Vec<Context> {
    let mut v = vec![Context::new(Device::Cpu).unwrap()];
    if common::cuda_selected(test) {
        v.push(Context::new(Device::Cuda(0)).unwrap());
    }
    v
}

#[test]
fn full_uses_ek_full_and_keeps_integers_exact() {
    for ctx in contexts("full_uses_ek_full_and_keeps_integers_exact") {
        let big = (1i64 << 62) + 1;
        assert_eq!(Tensor::full(&ctx, &[3], big, DType::I64).unwrap().to_vec::<i64>().unwrap(), [big; 3]);
        assert_eq!(Tensor::full(&ctx, &[2, 2], -1.5, DType::F32).unwrap().to_vec::<f32>().unwrap(), [-1.5; 4]);
        assert_eq!(Tensor::full(&ctx, &[], true, DType::Bool).unwrap().to_vec::<bool>().unwrap(), [true]);
        assert_eq!(Tensor::full(&ctx, &[0, 3], 1, DType::U8).unwrap().shape(), [0, 3]);
        assert_eq!(Tensor::zeros(&ctx, &[2], DType::I16).unwrap().to_vec::<i16>().unwrap(), [0, 0]);
    }
}

#[test]
fn full_rejects_a_value_outside_the_dtype() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let e = Tensor::full(&ctx, &[2], 300, DType::I8).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT);
    assert!(e.message.contains("ek_full") && e.message.contains("300") && e.message.contains("int8"), "{e}");
    let e = Tensor::full(&ctx, &[2, -1], 0, DType::F32).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
}

#[test]
fn linspace_matches_numpy() {
    for ctx in contexts("linspace_matches_numpy") {
        let t = Tensor::linspace(&ctx, 0.18, -0.59, 8, true, DType::F64).unwrap();
        // numpy.linspace(0.18, -0.59, 8).tolist()
        let want = [
            0.18, 0.06999999999999999, -0.04000000000000001, -0.15000000000000002, -0.26,
            -0.37000000000000005, -0.48000000000000004, -0.59,
        ];
        assert_eq!(t.to_vec::<f64>().unwrap(), want);
        let t = Tensor::linspace(&ctx, 0, 1, 4, false, DType::F32).unwrap();
        assert_eq!(t.to_vec::<f32>().unwrap(), [0.0, 0.25, 0.5, 0.75]);
        let t = Tensor::linspace(&ctx, 0, 10, 4, true, DType::I64).unwrap();
        assert_eq!(t.to_vec::<i64>().unwrap(), [0, 3, 6, 10]);
        assert_eq!(Tensor::linspace(&ctx, 3, 9, 0, true, DType::F32).unwrap().shape(), [0]);
        assert_eq!(Tensor::linspace(&ctx, 3, 9, 1, true, DType::F32).unwrap().to_vec::<f32>().unwrap(), [3.0]);
    }
}

#[test]
fn linspace_rejects_bad_input() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let e = Tensor::linspace(&ctx, 0, 1, -1, true, DType::F32).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT);
    assert!(e.message.contains("ek_linspace") && e.message.contains("num must be >= 0"), "{e}");
    let e = Tensor::linspace(&ctx, 0, 300, 4, true, DType::I8).unwrap_err();
    assert!(e.message.contains("element 3 is 300, outside int8"), "{e}");
}

#[test]
fn eye_matches_numpy() {
    for ctx in contexts("eye_matches_numpy") {
        // numpy.eye(3, 4, k=1) and numpy.eye(3, 2, k=-1)
        let t = Tensor::eye(&ctx, 3, 4, 1, DType::F32).unwrap();
        assert_eq!(t.shape(), [3, 4]);
        assert_eq!(t.to_vec::<f32>().unwrap(), [0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.]);
        let t = Tensor::eye(&ctx, 3, 2, -1, DType::I32).unwrap();
        assert_eq!(t.to_vec::<i32>().unwrap(), [0, 0, 1, 0, 0, 1]);
        assert_eq!(Tensor::eye(&ctx, 2, 2, i64::MAX, DType::U8).unwrap().to_vec::<u8>().unwrap(), [0; 4]);
        assert_eq!(Tensor::eye(&ctx, 0, 3, 0, DType::F64).unwrap().shape(), [0, 3]);
    }
    let ctx = Context::new(Device::Cpu).unwrap();
    let e = Tensor::eye(&ctx, -1, 3, 0, DType::F32).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_eye") && e.message.contains("n = -1"), "{e}");
}

#[test]
fn tril_triu_every_form() {
    for ctx in contexts("tril_triu_every_form") {
        let data: Vec<i32> = (1..=24).collect();
        let x = Tensor::from_slice(&ctx, &[2, 3, 4], &data).unwrap();
        // numpy.tril(arange(1, 25).reshape(2, 3, 4), -1) and numpy.triu(.., 2)
        let lo = [0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0, 0, 0, 0, 0, 17, 0, 0, 0, 21, 22, 0, 0];
        let up = [0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 15, 16, 0, 0, 0, 20, 0, 0, 0, 0];
        assert_eq!(x.tril(-1).unwrap().to_vec::<i32>().unwrap(), lo);
        assert_eq!(x.triu(2).unwrap().to_vec::<i32>().unwrap(), up);
        assert_eq!(x.tril(i64::MAX).unwrap().to_vec::<i32>().unwrap(), data);
        assert_eq!(x.triu(i64::MIN).unwrap().to_vec::<i32>().unwrap(), data);
        let out = Tensor::empty(&ctx, &[2, 3, 4], DType::I32).unwrap();
        x.triu_into(2, &out).unwrap();
        assert_eq!(out.to_vec::<i32>().unwrap(), up);
        let s = ek::Stream::new(&ctx).unwrap();
        assert_eq!(x.tril_on(-1, &s, None).unwrap().to_vec::<i32>().unwrap(), lo);
        s.synchronize().unwrap();
        // a transposed (non-contiguous) view, then in place
        let xt = x.transpose(1, 2).unwrap(); // [2, 4, 3]
        let want_t: Vec<i32> = {
            let v = xt.contiguous().unwrap().to_vec::<i32>().unwrap();
            v.iter().enumerate().map(|(e, &x)| if (e % 3) as i64 - (e / 3 % 4) as i64 <= 0 { x } else { 0 }).collect()
        };
        assert_eq!(xt.tril(0).unwrap().contiguous().unwrap().to_vec::<i32>().unwrap(), want_t);
        x.tril_(-1).unwrap();
        assert_eq!(x.to_vec::<i32>().unwrap(), lo);
    }
}

#[test]
fn tril_rejects_bad_input() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let v = Tensor::zeros(&ctx, &[4], DType::F32).unwrap();
    let e = v.tril(0).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
    assert!(e.message.contains("ek_tril") && e.message.contains("at least 2 dims"), "{e}");
    let x = Tensor::zeros(&ctx, &[3, 3], DType::F32).unwrap();
    let wrong = Tensor::zeros(&ctx, &[3, 3], DType::F64).unwrap();
    let e = x.triu_into(0, &wrong).unwrap_err();
    assert_eq!(e.status, Status::DTYPE);
    assert!(e.message.contains("ek_triu"), "{e}");
}
