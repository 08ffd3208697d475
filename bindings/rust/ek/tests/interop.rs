//! Zero-copy wrapping, raw copies, stream records and memory callbacks.
use std::sync::{Arc, Mutex};

use ek::{Context, ContextConfig, DType, Device, MemoryEvent, Status, Stream, Tensor};

#[test]
fn from_vec_shares_and_frees_the_vec() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let v: Vec<i64> = (0..6).collect();
    let p = v.as_ptr();
    let t = Tensor::from_vec(&ctx, &[2, 3], v).unwrap();
    assert_eq!(t.data_ptr() as *const i64, p);
    let col = t.select(1, 2).unwrap();
    let sum = t.sum(&[], false).unwrap();
    drop(t);
    assert_eq!(col.to_vec::<i64>().unwrap(), [2, 5]); // the view keeps the Vec
    assert_eq!(sum.item::<i64>().unwrap(), 15);
    drop(col);
    // writes through ops land in the Vec's buffer
    let w = Tensor::from_vec(&ctx, &[3], vec![1.0f32, 2.0, 3.0]).unwrap();
    w.mul_scalar_(2.0).unwrap();
    assert_eq!(w.to_vec::<f32>().unwrap(), [2.0, 4.0, 6.0]);
    // a wrong length is refused and the Vec dropped
    let e = Tensor::from_vec(&ctx, &[4], vec![1u8, 2]).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
}

#[test]
fn wrap_borrowed_memory_and_errors() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let mut buf = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
    {
        // SAFETY: buf outlives the tensor and its views (dropped in this block).
        let t = unsafe { Tensor::wrap(&ctx, buf.as_mut_ptr().cast(), &[3, 2], Some(&[1, 3]), DType::F64) }.unwrap();
        assert_eq!(t.to_vec::<f64>().unwrap(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        t.fill(0.5).unwrap();
        let e = unsafe { Tensor::wrap(&ctx, buf.as_mut_ptr().cast(), &[3], Some(&[1, 1]), DType::F64) }.unwrap_err();
        assert_eq!(e.status, Status::SHAPE);
        let e = unsafe { Tensor::wrap(&ctx, std::ptr::null_mut(), &[3], None, DType::F64) }.unwrap_err();
        assert_eq!(e.status, Status::NULL_POINTER);
        assert!(e.message.contains("ek_tensor_wrap"), "{e}");
    }
    assert_eq!(buf, [0.5; 6]);
}

#[test]
fn memcpy_and_record_stream() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let s = Stream::new(&ctx).unwrap();
    let p = ctx.malloc(16, Some(&s)).unwrap();
    let src = [7u32, 8, 9, 10];
    let mut dst = [0u32; 4];
    unsafe {
        ctx.memcpy(src.as_ptr().cast(), p, 16, Some(&s)).unwrap();
        ctx.memcpy(p, dst.as_mut_ptr().cast(), 16, Some(&s)).unwrap();
    }
    s.synchronize().unwrap();
    assert_eq!(dst, src);
    ctx.record_stream(p, &ctx.default_stream().unwrap()).unwrap();
    ctx.free(p, Some(&s)).unwrap();
    let e = ctx.record_stream(p, &s).unwrap_err(); // freed: unknown to the pool
    assert_ne!(e.status, Status::SUCCESS);
    assert!(e.message.contains("ek_record_stream"), "{e}");
}

#[test]
fn memory_callback_sees_oom_and_may_free() {
    let ctx = Context::with_config(Device::Cpu, &ContextConfig::new().memory_limit(64 << 20)).unwrap();
    let events: Arc<Mutex<Vec<(MemoryEvent, u64)>>> = Arc::default();
    let ev = events.clone();
    // the callback frees a held tensor when the pool runs out (a SendTensor:
    // the callback may run on any thread)
    let held = Tensor::empty(&ctx, &[10 << 20], DType::F32).unwrap().into_send().unwrap();
    let held: Arc<Mutex<Option<ek::SendTensor>>> = Arc::new(Mutex::new(Some(held)));
    let h = held.clone();
    ctx.set_memory_callback(0, move |event, bytes| {
        ev.lock().unwrap().push((event, bytes));
        if event == MemoryEvent::OutOfMemory {
            h.lock().unwrap().take();
        }
    })
    .unwrap();
    let big = Tensor::empty(&ctx, &[5 << 20], DType::F64); // 40 MiB more: fits once the held 40 MiB go
    assert!(big.is_ok(), "{big:?}");
    let seen = events.lock().unwrap().clone();
    assert_eq!(seen.first().map(|e| e.0), Some(MemoryEvent::OutOfMemory), "{seen:?}");
    assert!(seen[0].1 >= 40 << 20, "{seen:?}");
    assert!(held.lock().unwrap().is_none());
    drop(big);
    // a panicking callback is contained; replacing and clearing work
    ctx.set_memory_callback(0, |_, _| panic!("from a callback")).unwrap();
    let e = Tensor::empty(&ctx, &[1 << 24], DType::F64).unwrap_err();
    assert_eq!(e.status, Status::OUT_OF_MEMORY);
    ctx.clear_memory_callback().unwrap();
    assert_eq!(Tensor::empty(&ctx, &[1 << 24], DType::F64).unwrap_err().status, Status::OUT_OF_MEMORY);
}
