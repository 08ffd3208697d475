//! Clone/Drop keep storage alive correctly; the context outlives its handles.
//! One test per file section touches the process-wide handle count, so this
//! binary runs its tests one after another through a lock.
use std::sync::Mutex;

use ek::{Context, DType, Device, Tensor};

static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn clone_and_views_keep_storage_alive() {
    let _g = SERIAL.lock().unwrap();
    let base = ek::live_handles().unwrap();
    let ctx = Context::new(Device::Cpu).unwrap();
    let before = ctx.memory_stats().unwrap().allocated_bytes;
    let t = Tensor::from_slice(&ctx, &[4], &[1i64, 2, 3, 4]).unwrap();
    let c = t.clone();
    assert_eq!(c.as_raw(), t.as_raw()); // retain returns the same handle
    let v = t.slice(0, Some(1), Some(3), 1).unwrap();
    drop(t);
    assert_eq!(c.to_vec::<i64>().unwrap(), [1, 2, 3, 4]);
    drop(c);
    assert_eq!(v.to_vec::<i64>().unwrap(), [2, 3]); // the view holds the storage
    assert!(ctx.memory_stats().unwrap().allocated_bytes > before);
    drop(v);
    assert_eq!(ctx.memory_stats().unwrap().allocated_bytes, before);
    drop(ctx);
    assert_eq!(ek::live_handles().unwrap(), base);
}

#[test]
fn context_outlives_its_handles() {
    let _g = SERIAL.lock().unwrap();
    let base = ek::live_handles().unwrap();
    let (t, s, e) = {
        let ctx = Context::new(Device::Cpu).unwrap();
        let t = Tensor::arange(&ctx, 0.0, 4.0, 1.0, DType::F32).unwrap();
        (t, ek::Stream::new(&ctx).unwrap(), ek::Event::new(&ctx).unwrap())
    }; // the Context value is gone; the C context lives on
    assert_eq!(t.to_vec::<f32>().unwrap(), [0.0, 1.0, 2.0, 3.0]);
    e.record(Some(&s)).unwrap();
    let ctx = t.context();
    assert_eq!(ctx.device().unwrap(), Device::Cpu);
    drop((t, s, e, ctx));
    assert_eq!(ek::live_handles().unwrap(), base);
}

#[test]
fn default_stream_is_borrowed() {
    let _g = SERIAL.lock().unwrap();
    let ctx = Context::new(Device::Cpu).unwrap();
    let s = ctx.default_stream().unwrap();
    drop(s); // must not destroy the context's default stream
    let s = ctx.default_stream().unwrap();
    s.synchronize().unwrap();
    Tensor::empty_on(&ctx, &[1], DType::F32, &s).unwrap();
}

#[test]
fn drop_leaves_no_stale_error() {
    let _g = SERIAL.lock().unwrap();
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::zeros(&ctx, &[2], DType::F32).unwrap();
    drop(t);
    drop(ctx);
    // SAFETY: reads this thread's message; never NULL.
    let msg = unsafe { std::ffi::CStr::from_ptr(ek::sys::ek_last_error()) };
    assert!(msg.to_bytes().is_empty() || !msg.to_string_lossy().contains("destroy"), "{msg:?}");
}

#[test]
fn free_refuses_memory_that_malloc_did_not_return() {
    let _g = SERIAL.lock().unwrap();
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::zeros(&ctx, &[256], DType::F32).unwrap();
    // safe code must not free a tensor's storage behind its back: the pool
    // would hand the same memory to the next allocation
    let e = ctx.free(t.data_ptr(), None).unwrap_err();
    assert_eq!(e.status, ek::Status::INVALID_ARGUMENT, "{e}");
    assert!(e.message.contains("ek::Context::free"), "{e}");
    let p = ctx.malloc(1024, None).unwrap();
    assert_ne!(p, t.data_ptr());
    t.fill(1.0).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), [1.0; 256]);
    let other = Context::new(Device::Cpu).unwrap();
    assert!(other.free(p, None).is_err()); // another context's block
    ctx.free(p, None).unwrap();
    assert!(ctx.free(p, None).is_err()); // twice
    ctx.free(std::ptr::null_mut(), None).unwrap(); // NULL is a no-op
    drop(t);
    assert_eq!(ctx.memory_stats().unwrap().allocated_bytes, 0);
}

#[test]
fn into_send_needs_the_last_handle_of_the_storage() {
    let _g = SERIAL.lock().unwrap();
    let base = ek::live_handles().unwrap();
    let ctx = Context::new(Device::Cpu).unwrap();
    let mut t = Tensor::arange(&ctx, 0.0, 6.0, 1.0, DType::F32).unwrap();
    // every way to alias the storage keeps the tensor on its thread
    let aliases: [fn(&Tensor) -> Tensor; 5] = [
        |t| t.clone(),
        |t| t.slice(0, Some(1), None, 2).unwrap(),
        |t| t.reshape(&[2, 3]).unwrap(), // reshape that is a view
        |t| t.contiguous().unwrap(),     // already contiguous: a new reference
        |t| t.view(&[3, 2]).unwrap().transpose(0, 1).unwrap(),
    ];
    for alias in aliases {
        let a = alias(&t);
        t = t.into_send().unwrap_err();
        drop(a);
        t = t.into_send().unwrap().into_tensor();
    }
    // results with their own storage do not alias
    let c = t.cast(DType::F64).unwrap();
    let r = t.transpose(0, 0).unwrap().reshape(&[-1]).unwrap();
    drop(r);
    let s = t.into_send().unwrap();
    let c = c.into_send().unwrap();
    // the tensors work on another thread and come back
    let (s, sum) = std::thread::spawn(move || {
        let (t, c) = (s.into_tensor(), c.into_tensor());
        t.binary_(ek::BinaryOp::Mul, &c.cast(DType::F32).unwrap()).unwrap();
        let sum = t.sum(&[], false).unwrap().item::<f32>().unwrap();
        (t.into_send().unwrap(), sum)
    })
    .join()
    .unwrap();
    assert_eq!(sum, 55.0);
    assert_eq!(s.into_tensor().to_vec::<f32>().unwrap(), [0.0, 1.0, 4.0, 9.0, 16.0, 25.0]);
    let dropped = Tensor::zeros(&ctx, &[2], DType::F32).unwrap().into_send().unwrap();
    drop(dropped); // a SendTensor releases its handle
    drop(ctx);
    assert_eq!(ek::live_handles().unwrap(), base);
}

#[test]
fn copy_is_independent() {
    let _g = SERIAL.lock().unwrap();
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::arange(&ctx, 0.0, 6.0, 1.0, DType::I32).unwrap().view(&[2, 3]).unwrap();
    let v = t.transpose(0, 1).unwrap();
    let c = v.copy().unwrap();
    assert!(c.is_contiguous());
    assert_ne!(c.data_ptr(), t.data_ptr());
    t.fill(0.0).unwrap();
    assert_eq!(c.to_vec::<i32>().unwrap(), [0, 3, 1, 4, 2, 5]);
    assert!(c.into_send().is_ok()); // its own storage, though v and t live
}
