//! DLPack export and import. Alone in its own test binary: it counts the
//! process's live handles, which tests running beside it would change.
use ek::{Context, Device, Status, Tensor};

#[test]
fn dlpack_round_trip_shares_copies_and_frees() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let before = ek::live_handles().unwrap();
    let t = Tensor::from_slice(&ctx, &[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
    let v = t.transpose(0, 1).unwrap();
    let m = v.to_dlpack().unwrap();
    drop(v); // the export holds the storage, not the handle
    // SAFETY: m is a fresh export, handed over once.
    let u = unsafe { Tensor::from_dlpack(&ctx, m, None) }.unwrap();
    assert_eq!(u.data_ptr(), t.data_ptr());
    assert_eq!(u.strides(), [1, 3]);
    assert_eq!(u.to_vec::<i32>().unwrap(), [1, 4, 2, 5, 3, 6]);
    let m = t.to_dlpack().unwrap();
    // SAFETY: as above; a copy runs the export's deleter at once.
    let c = unsafe { Tensor::from_dlpack(&ctx, m, Some(true)) }.unwrap();
    assert_ne!(c.data_ptr(), t.data_ptr());
    assert_eq!(c.to_vec::<i32>().unwrap(), [1, 2, 3, 4, 5, 6]);
    // SAFETY: a null source is rejected before it is read.
    let e = unsafe { Tensor::from_dlpack(&ctx, std::ptr::null_mut(), None) }.unwrap_err();
    assert_eq!(e.status, Status::NULL_POINTER);
    assert!(e.message.contains("ek_tensor_from_dlpack"), "{e}");
    drop((t, u, c));
    assert_eq!(ek::live_handles().unwrap(), before);
}
