//! Automatic fusion: the switches, explicit evaluation, counters, errors (CPU).
use ek::{Context, ContextConfig, Device, Fusion, ReduceOp, Status, Tensor};

#[test]
fn fused_chain_equals_eager_and_counts() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let s = ctx.default_stream().unwrap();
    let x = Tensor::from_slice(&ctx, &[4], &[-1.0f32, 0.5, 2.0, 3.0]).unwrap();
    let run = || x.mul_scalar(2.0).unwrap().relu().unwrap().add(&x).unwrap();
    let eager: Vec<f32> = run().to_vec().unwrap();
    s.set_fusion(Some(Fusion::On)).unwrap();
    assert_eq!(s.fusion().unwrap(), Some(Fusion::On));
    let before = ctx.fusion_stats().unwrap().ops_deferred;
    let y = run();
    assert_eq!(ctx.fusion_stats().unwrap().ops_deferred, before + 3);
    y.eval().unwrap();
    s.flush().unwrap();
    assert_eq!(y.to_vec::<f32>().unwrap(), eager);
    s.set_fusion(None).unwrap();
    assert_eq!(s.fusion().unwrap(), None);
}

#[test]
fn config_fields_and_bad_input() {
    let ctx = Context::with_config(Device::Cpu, &ContextConfig::new().fusion(Fusion::Rounded).fusion_max_kernels(8)).unwrap();
    let cfg = ctx.config().unwrap();
    assert_eq!(cfg.fusion, Some(Fusion::Rounded));
    assert_eq!(cfg.fusion_max_kernels, Some(8));
    let err = Context::with_config(Device::Cpu, &ContextConfig::new().fusion_max_kernels(-1)).unwrap_err();
    assert_eq!(err.status, Status::INVALID_ARGUMENT);
    assert!(err.message.contains("fusion_max_kernels -1 is negative"), "{}", err.message);
}

#[test]
fn sum_of_pending_chain_joins_its_group() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let s = ctx.default_stream().unwrap();
    let x = Tensor::from_slice(&ctx, &[2, 2], &[-1.0f32, 0.5, 2.0, 3.0]).unwrap();
    s.set_fusion(Some(Fusion::On)).unwrap();
    let y = x.mul_scalar(2.0).unwrap().relu().unwrap().add(&x).unwrap();
    let before = ctx.fusion_stats().unwrap();
    let sum = y.reduce(ReduceOp::Sum, &[-1], false).unwrap();
    drop(y);
    let after = ctx.fusion_stats().unwrap();
    assert_eq!(after.ops_deferred, before.ops_deferred + 1);
    assert_eq!(after.groups_evaluated, before.groups_evaluated);
    assert_eq!(sum.to_vec::<f32>().unwrap(), vec![0.5, 15.0]);
    assert_eq!(after.prologue_fusions, 0, "the CPU fuses no reduction");
}
