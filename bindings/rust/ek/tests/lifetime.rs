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
