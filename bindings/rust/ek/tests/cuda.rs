//! CUDA checks: run when EK_TEST_DEVICE is `cuda` or `all`; otherwise print a
//! visible SKIPPED line. With EK_REQUIRE_GPU=1 a missing GPU is a failure.
mod common;


use ek::{Context, DType, Device, Tensor};

fn cuda_or_skip(test: &str) -> Option<Context> {
    if !common::cuda_selected(test) {
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

/// The op groups on CUDA against the CPU backend (same inputs, same seed).
#[test]
fn cuda_ops_match_cpu() {
    let Some(gpu) = cuda_or_skip("cuda_ops_match_cpu") else { return };
    let cpu = Context::new(Device::Cpu).unwrap();
    let close = |a: &Tensor, b: &Tensor, tol: f32, what: &str| {
        let (x, y) = (a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
        assert_eq!(a.shape(), b.shape(), "{what}");
        for (i, (p, q)) in x.iter().zip(&y).enumerate() {
            assert!((p - q).abs() <= tol * q.abs().max(1.0) || (p.is_nan() && q.is_nan()), "{what}[{i}]: {p} vs {q}");
        }
    };
    let n = ek::RandomDist::Normal { mean: 0.0, std: 1.0 };
    gpu.manual_seed(3).unwrap();
    cpu.manual_seed(3).unwrap();
    let (xg, xc) = (Tensor::random(&gpu, &[64, 96], DType::F32, n).unwrap(), Tensor::random(&cpu, &[64, 96], DType::F32, n).unwrap());
    close(&xg, &xc, 1e-6, "random normal (Philox: same numbers on both)");
    let (wg, wc) = (Tensor::random(&gpu, &[96, 32], DType::F32, n).unwrap(), Tensor::random(&cpu, &[96, 32], DType::F32, n).unwrap());
    close(&xg.matmul(&wg).unwrap(), &xc.matmul(&wc).unwrap(), 1e-4, "matmul");
    close(&xg.transpose(0, 1).unwrap().matmul(&xg).unwrap(), &xc.transpose(0, 1).unwrap().matmul(&xc).unwrap(), 1e-4, "matmul of a transposed view");
    close(&xg.softmax(-1).unwrap(), &xc.softmax(-1).unwrap(), 1e-5, "softmax");
    close(&xg.log_softmax(0).unwrap(), &xc.log_softmax(0).unwrap(), 1e-5, "log_softmax");
    close(&xg.cumsum(1).unwrap(), &xc.cumsum(1).unwrap(), 1e-4, "cumsum");
    for op in [ek::UnaryOp::Exp, ek::UnaryOp::Tanh, ek::UnaryOp::Gelu, ek::UnaryOp::Relu, ek::UnaryOp::Round] {
        close(&xg.unary(op).unwrap(), &xc.unary(op).unwrap(), 1e-5, &format!("{op:?}"));
    }
    close(&((&xg * 3.0).unwrap() - &xg.exp().unwrap()).unwrap(), &((&xc * 3.0).unwrap() - &xc.exp().unwrap()).unwrap(), 1e-5, "binary");
    close(&xg.sum(&[0], false).unwrap(), &xc.sum(&[0], false).unwrap(), 1e-4, "sum");
    close(&xg.std(&[1], 1.0, true).unwrap(), &xc.std(&[1], 1.0, true).unwrap(), 1e-5, "std");
    let (vg, ig) = xg.max_dim(1, false).unwrap();
    let (vc, ic) = xc.max_dim(1, false).unwrap();
    close(&vg, &vc, 0.0, "max_dim values");
    assert_eq!(ig.to_vec::<i64>().unwrap(), ic.to_vec::<i64>().unwrap());
    let mask_g = xg.gt_scalar(0.5).unwrap();
    let mask_c = xc.gt_scalar(0.5).unwrap();
    close(&xg.masked_select(&mask_g).unwrap(), &xc.masked_select(&mask_c).unwrap(), 0.0, "masked_select");
    assert_eq!(mask_g.nonzero().unwrap().to_vec::<i64>().unwrap(), mask_c.nonzero().unwrap().to_vec::<i64>().unwrap());
    let idx = [5i64, -1, 0, 7];
    let (jg, jc) = (Tensor::from_slice(&gpu, &[4], &idx).unwrap(), Tensor::from_slice(&cpu, &[4], &idx).unwrap());
    close(&xg.index_select(0, &jg).unwrap(), &xc.index_select(0, &jc).unwrap(), 0.0, "index_select");
    // CUDA's default index check is deferred: the next synchronization names the bad index.
    assert_eq!(gpu.config().unwrap().index_check, Some(ek::IndexCheck::Deferred));
    let bad = Tensor::from_slice(&gpu, &[1], &[64i64]).unwrap();
    drop(xg.index_select(0, &bad).unwrap());
    let e = gpu.synchronize().unwrap_err();
    assert_eq!(e.status, ek::Status::INDEX, "{e}");
    assert!(e.message.contains("ek_index_select (or indexing by a tensor) met index 64"), "{e}");
    let at_call = Context::with_config(Device::Cuda(0), &ek::ContextConfig::new().index_check(ek::IndexCheck::AtCall)).unwrap();
    let x = Tensor::from_slice(&at_call, &[2], &[1.0f32, 2.0]).unwrap();
    let e = x.index_select(0, &Tensor::from_slice(&at_call, &[1], &[64i64]).unwrap()).unwrap_err();
    assert!(e.message.contains("ek_index_select: index 64 is out of range for dim 0 of size 2"), "{e}");
    // the operators and a fused update on another stream
    let s = ek::Stream::new(&gpu).unwrap();
    let y = xg.clone().mul_scalar(0.0).unwrap();
    y.axpby_(2.0, &xg, 1.0).unwrap();
    let z = y.binary_on(ek::BinaryOp::Sub, &xg, &s, None).unwrap();
    s.synchronize().unwrap();
    close(&z, &xc, 1e-6, "axpby then sub on a stream");
}
