//! CUDA checks: run when EK_TEST_DEVICE is `cuda` or `all`; otherwise print a
//! visible SKIPPED line. With EK_REQUIRE_GPU=1 a missing GPU is a failure.
use std::io::Write;

use ek::{Context, DType, Device, DeviceType, Tensor};

/// Written to the process's stderr directly, past libtest's capture, so the
/// skip shows in `cargo test` output.
fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

fn cuda_or_skip(test: &str) -> Option<Context> {
    let want = std::env::var("EK_TEST_DEVICE").unwrap_or_default();
    let require = std::env::var("EK_REQUIRE_GPU").map_or(false, |v| v == "1");
    if want != "cuda" && want != "all" {
        assert!(!require, "{test}: EK_REQUIRE_GPU=1 but EK_TEST_DEVICE={want:?} does not select CUDA");
        skip(test, "set EK_TEST_DEVICE=cuda (or all) to run on a GPU");
        return None;
    }
    let n = ek::device_count(DeviceType::Cuda).unwrap();
    if n == 0 {
        assert!(!require, "{test}: EK_REQUIRE_GPU=1 but no CUDA device was found");
        skip(test, "no CUDA device");
        return None;
    }
    Some(Context::new(Device::Cuda(0)).unwrap())
}

#[test]
fn cuda_round_trip_views_and_memory() {
    let Some(ctx) = cuda_or_skip("cuda_round_trip_views_and_memory") else { return };
    let info = Device::Cuda(0).info().unwrap();
    assert!(info.compute_capability.0 >= 7, "{info:?}");
    let base = ctx.memory_stats().unwrap().allocated_bytes;
    {
        let t = Tensor::from_slice(&ctx, &[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        assert_eq!(t.device(), Device::Cuda(0));
        assert_eq!(t.transpose(0, 1).unwrap().contiguous().unwrap().to_vec::<f32>().unwrap(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let h = t.to_device(&Context::new(Device::Cpu).unwrap()).unwrap();
        assert_eq!(h.device(), Device::Cpu);
        assert_eq!(h.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let s = ek::Stream::new(&ctx).unwrap();
        assert!(!s.native().unwrap().is_null());
        let (a, b) = (ek::Event::new(&ctx).unwrap(), ek::Event::new(&ctx).unwrap());
        a.record(Some(&s)).unwrap();
        let z = Tensor::empty_on(&ctx, &[1 << 20], DType::F32, &s).unwrap();
        z.fill_on(1.0, &s).unwrap();
        b.record(Some(&s)).unwrap();
        b.synchronize().unwrap();
        assert!(a.elapsed_ms(&b).unwrap() >= 0.0);
        assert_eq!(z.slice(0, Some(-2), None, 1).unwrap().to_vec_on::<f32>(&s).unwrap(), [1.0, 1.0]);
    }
    ctx.synchronize().unwrap();
    assert_eq!(ctx.memory_stats().unwrap().allocated_bytes, base);
}
