//! CUDA graphs: capture and replay on CUDA (EK_TEST_DEVICE cuda or all), the
//! CPU backend's refusal and bad input everywhere.
mod common;

use ek::{CaptureMode, Context, Device, GraphPool, Status, Stream, Tensor, UnaryOp};

#[test]
fn cpu_capture_is_not_supported() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let s = Stream::new(&ctx).unwrap();
    assert!(!s.is_capturing().unwrap());
    let e = s.capture_begin(None, CaptureMode::Global).unwrap_err();
    assert_eq!(e.status, Status::NOT_SUPPORTED, "{e}");
    assert!(e.message.contains("ek_graph_capture_begin: graph capture needs a CUDA context"), "{e}");
    let e = GraphPool::new(&ctx).unwrap_err();
    assert_eq!(e.status, Status::NOT_SUPPORTED, "{e}");
    let e = s.capture(None, CaptureMode::Relaxed, |_| Ok(())).unwrap_err();
    assert!(e.message.contains("ek_graph_capture_begin"), "{e}");
}

#[test]
fn cuda_capture_and_replay() {
    if !common::cuda_selected("cuda_capture_and_replay") {
        return;
    }
    let ctx = Context::new(Device::Cuda(0)).unwrap();
    let s = Stream::new(&ctx).unwrap();
    let x = Tensor::from_slice_on(&ctx, &[4], &[1f32, 2., 3., 4.], &s).unwrap();
    let pool = GraphPool::new(&ctx).unwrap();
    let mut y = None;
    let g = s
        .capture(Some(&pool), CaptureMode::ThreadLocal, |st| {
            assert!(st.is_capturing().unwrap());
            y = Some(x.unary_on(UnaryOp::Neg, st, None)?);
            Ok(())
        })
        .unwrap();
    let y = y.unwrap();
    g.upload(Some(&s)).unwrap();
    g.launch(Some(&s)).unwrap();
    assert_eq!(y.to_vec_on::<f32>(&s).unwrap(), [-1., -2., -3., -4.]);
    assert_eq!(pool.stats().unwrap().active_blocks, 1);
    // A synchronizing call inside a capture is refused; the capture survives.
    s.capture_begin(None, CaptureMode::Global).unwrap();
    let e = s.synchronize().unwrap_err();
    assert_eq!(e.status, Status::CAPTURE, "{e}");
    drop(s.capture_end().unwrap());
    let e = s.capture_end().unwrap_err();
    assert!(e.message.contains("not capturing"), "{e}");
}
