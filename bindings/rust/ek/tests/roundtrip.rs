//! Host -> tensor -> host round trips for every element type (CPU).
use ek::{BF16Bits, Context, DType, Device, Element, F16Bits, Tensor};

fn round_trip<T: Element + PartialEq + std::fmt::Debug>(values: &[T]) {
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::from_slice(&ctx, &[2, values.len() as i64 / 2], values).unwrap();
    assert_eq!(t.dtype(), T::DTYPE);
    assert_eq!(t.numel(), values.len() as i64);
    assert_eq!(t.nbytes() as usize, values.len() * T::DTYPE.size());
    assert!(t.is_contiguous());
    assert_eq!(t.device(), Device::Cpu);
    assert_eq!(t.to_vec::<T>().unwrap(), values);
}

#[test]
fn every_element_type() {
    round_trip(&[true, false, false, true]);
    round_trip(&[0u8, 1, 200, 255]);
    round_trip(&[-128i8, -1, 0, 127]);
    round_trip(&[i16::MIN, -2, 3, i16::MAX]);
    round_trip(&[i32::MIN, -2, 3, i32::MAX]);
    round_trip(&[i64::MIN, -2, 3, i64::MAX]);
    round_trip(&[0u16, 1, 300, u16::MAX]);
    round_trip(&[0u32, 1, 70000, u32::MAX]);
    round_trip(&[0u64, 1, 1 << 63, u64::MAX]);
    round_trip(&[f32::MIN_POSITIVE, -0.5, 1e30, f32::INFINITY]);
    round_trip(&[f64::MIN_POSITIVE, -0.5, 1e300, f64::NEG_INFINITY]);
    round_trip(&[F16Bits(0x3c00), F16Bits(0xc000), F16Bits(0), F16Bits(0x7bff)]);
    round_trip(&[BF16Bits(0x3f80), BF16Bits(0xc000), BF16Bits(0), BF16Bits(0x7f7f)]);
}

#[test]
fn dtype_sizes_and_names() {
    let expect = [
        (DType::Bool, 1, "bool"),
        (DType::U8, 1, "uint8"),
        (DType::I8, 1, "int8"),
        (DType::I16, 2, "int16"),
        (DType::I32, 4, "int32"),
        (DType::I64, 8, "int64"),
        (DType::F16, 2, "float16"),
        (DType::BF16, 2, "bfloat16"),
        (DType::F32, 4, "float32"),
        (DType::F64, 8, "float64"),
    ];
    for (d, size, name) in expect {
        assert_eq!(d.size(), size, "{d:?}");
        assert_eq!(d.name(), name, "{d:?}");
    }
    assert_eq!(DType::Unknown(99).size(), 0);
    assert_eq!(DType::Unknown(99).name(), "unknown");
}

#[test]
fn half_conversions_through_cast() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::from_slice(&ctx, &[3], &[1.0f32, -2.0, 0.5]).unwrap();
    assert_eq!(t.cast(DType::F16).unwrap().to_vec::<F16Bits>().unwrap(), [F16Bits(0x3c00), F16Bits(0xc000), F16Bits(0x3800)]);
    assert_eq!(t.cast(DType::BF16).unwrap().to_vec::<BF16Bits>().unwrap(), [BF16Bits(0x3f80), BF16Bits(0xc000), BF16Bits(0x3f00)]);
}

#[test]
fn zeros_full_arange_fill() {
    let ctx = Context::new(Device::Cpu).unwrap();
    assert_eq!(Tensor::zeros(&ctx, &[2, 2], DType::I32).unwrap().to_vec::<i32>().unwrap(), [0; 4]);
    assert_eq!(Tensor::full(&ctx, &[3], 2.5, DType::F64).unwrap().to_vec::<f64>().unwrap(), [2.5; 3]);
    assert_eq!(Tensor::arange(&ctx, 0.0, 1.0, 0.25, DType::F32).unwrap().to_vec::<f32>().unwrap(), [0.0, 0.25, 0.5, 0.75]);
    let t = Tensor::empty(&ctx, &[2], DType::I64).unwrap();
    t.fill(i64::MAX - 1).unwrap();
    assert_eq!(t.to_vec::<i64>().unwrap(), [i64::MAX - 1; 2]);
    let scalar = Tensor::full(&ctx, &[], 3.0, DType::I8).unwrap();
    assert_eq!(scalar.shape(), Vec::<i64>::new());
    assert_eq!(scalar.to_vec::<i8>().unwrap(), [3]);
    let empty = Tensor::zeros(&ctx, &[0, 4], DType::F32).unwrap();
    assert_eq!(empty.to_vec::<f32>().unwrap(), Vec::<f32>::new());
}

#[test]
fn copy_cast_to_device_and_streams() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let src = Tensor::from_slice(&ctx, &[2, 2], &[1i16, 2, 3, 4]).unwrap();
    let dst = Tensor::zeros(&ctx, &[2, 2], DType::F64).unwrap();
    dst.copy_from(&src.transpose(0, 1).unwrap()).unwrap();
    assert_eq!(dst.to_vec::<f64>().unwrap(), [1.0, 3.0, 2.0, 4.0]);

    let other = Context::new(Device::Cpu).unwrap();
    let moved = src.to_device(&other).unwrap();
    assert_eq!(moved.to_vec::<i16>().unwrap(), [1, 2, 3, 4]);
    assert!(other.memory_stats().unwrap().allocated_bytes > 0);

    let s = ek::Stream::new(&ctx).unwrap();
    let t = Tensor::empty_on(&ctx, &[3], DType::U8, &s).unwrap();
    t.fill_on(9.0, &s).unwrap();
    dst.copy_from_on(&Tensor::full(&ctx, &[2], 1.0, DType::I32).unwrap(), &s).unwrap();
    s.synchronize().unwrap();
    assert!(s.query().unwrap());
    assert!(s.native().unwrap().is_null());
    assert_eq!(t.to_vec_on::<u8>(&s).unwrap(), [9, 9, 9]);
    assert_eq!(dst.to_vec::<f64>().unwrap(), [1.0; 4]);

    let e = ek::Event::new(&ctx).unwrap();
    e.record(Some(&s)).unwrap();
    ctx.default_stream().unwrap().wait_event(&e).unwrap();
    e.synchronize().unwrap();
    assert!(e.query().unwrap());
    ctx.synchronize().unwrap();
}

#[test]
fn tensors_move_between_threads() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::arange(&ctx, 0.0, 100.0, 1.0, DType::I32).unwrap();
    let handles: Vec<_> = (0..4)
        .map(|i| {
            // a view aliases t: only a copy of it may leave this thread
            let v = t.slice(0, Some(i * 25), Some((i + 1) * 25), 1).unwrap();
            let v = v.into_send().unwrap_err().copy().unwrap().into_send().unwrap();
            std::thread::spawn(move || {
                let v = v.into_tensor();
                v.binary_scalar_(ek::BinaryOp::Add, 1).unwrap();
                v.to_vec::<i32>().unwrap().iter().sum::<i32>()
            })
        })
        .collect();
    let total: i32 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(total, 4950 + 100);
    assert_eq!(t.sum(&[], false).unwrap().item::<i64>().unwrap(), 4950); // t unchanged
}

#[test]
fn fill_and_masked_fill_are_exact_and_refuse_values_that_do_not_fit() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let big = (1i64 << 60) + 1;
    let t = Tensor::zeros(&ctx, &[3], DType::I64).unwrap();
    t.fill(big).unwrap();
    assert_eq!(t.to_vec::<i64>().unwrap(), [big; 3]);
    let mask = Tensor::from_slice(&ctx, &[3], &[true, false, true]).unwrap();
    let m = Tensor::zeros(&ctx, &[3], DType::I64).unwrap().masked_fill(&mask, big).unwrap();
    assert_eq!(m.to_vec::<i64>().unwrap(), [big, 0, big]);
    let e = t.fill(1u64 << 63).unwrap_err();
    assert_eq!(e.status, ek::Status::INVALID_ARGUMENT);
    assert!(e.message.contains("9223372036854775808 does not fit the integer dtype int64"), "{}", e.message);
    assert_eq!(t.to_vec::<i64>().unwrap(), [big; 3]); // untouched
    let i8s = Tensor::zeros(&ctx, &[3], DType::I8).unwrap();
    let e = i8s.masked_fill(&mask, 1000).unwrap_err();
    assert!(e.message.contains("value 1000 does not fit the integer dtype int8"), "{}", e.message);
    assert!(i8s.fill(f64::NAN).is_err());
    i8s.fill(-128.9).unwrap();
    assert_eq!(i8s.to_vec::<i8>().unwrap(), [-128; 3]);
    let b = Tensor::zeros(&ctx, &[1], DType::Bool).unwrap();
    b.fill(true).unwrap();
    assert_eq!(b.to_vec::<bool>().unwrap(), [true]);
    assert_eq!(ek::Scalar::from(7u8), ek::Scalar::U64(7));
}
