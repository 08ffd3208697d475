//! uint16, uint32 and uint64 (issue 18): u16/u32/u64 element types, values
//! above 2^63 through the unsigned order, NumPy promotion, a bad fill value.
use ek::{Context, DType, Device, Status, Tensor};

const TOP: u64 = 1 << 63;

#[test]
fn unsigned_round_trips_and_views() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let a = Tensor::from_slice(&ctx, &[2, 2], &[0u16, 1, u16::MAX, 7]).unwrap();
    assert_eq!(a.dtype(), DType::U16);
    assert_eq!(a.transpose(0, 1).unwrap().contiguous().unwrap().to_vec::<u16>().unwrap(), [0, u16::MAX, 1, 7]);
    let b = Tensor::from_slice(&ctx, &[3], &[0u32, u32::MAX, 5]).unwrap();
    assert_eq!(b.to_vec::<u32>().unwrap(), [0, u32::MAX, 5]);
    let e = Tensor::from_slice::<u64>(&ctx, &[0], &[]).unwrap();
    assert_eq!(e.sum(&[], false).unwrap().dtype(), DType::U64);
    assert_eq!((DType::U16.size(), DType::U32.name(), DType::U64.size()), (2, "uint32", 8));
}

#[test]
fn uint64_order_and_promotion() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let a = Tensor::from_slice(&ctx, &[4], &[1u64, TOP + 5, u64::MAX, TOP - 1]).unwrap();
    let b = Tensor::from_slice(&ctx, &[4], &[2u64, TOP, 3, TOP]).unwrap();
    assert_eq!(a.maximum(&b).unwrap().to_vec::<u64>().unwrap(), [2, TOP + 5, u64::MAX, TOP]);
    assert_eq!(a.lt(&b).unwrap().to_vec::<bool>().unwrap(), [true, false, false, true]);
    assert_eq!(a.max(&[], false).unwrap().to_vec::<u64>().unwrap(), [u64::MAX]);
    let i = Tensor::from_slice(&ctx, &[4], &[1i16, 2, 3, 4]).unwrap();
    let u = Tensor::from_slice(&ctx, &[4], &[1u16, 2, 3, 4]).unwrap();
    assert_eq!(u.add(&i).unwrap().dtype(), DType::I32);
    let s = Tensor::from_slice(&ctx, &[4], &[1i64, 2, 3, 4]).unwrap();
    assert_eq!(a.add(&s).unwrap().dtype(), DType::F64);
}

#[test]
fn fill_value_out_of_range_is_an_error() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let e = Tensor::full(&ctx, &[2], 70000i64, DType::U16).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT);
    assert!(e.message.contains("uint16"), "{e}");
}
