//! The profiler through the safe API (CPU; the CUDA run of the C suite
//! covers device timing).
use ek::{BinaryOp, Context, DType, Device, ReduceOp, Status, Tensor};

#[test]
fn records_summary_and_trace() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let a = Tensor::full(&ctx, &[64, 32], 1.0, DType::F32).unwrap();
    let b = Tensor::full(&ctx, &[32, 8], 1.0, DType::F32).unwrap();
    ctx.profiler_start().unwrap();
    let c = a.matmul(&b).unwrap();
    let d = c.binary(BinaryOp::Add, &c).unwrap();
    let _s = d.reduce(ReduceOp::Sum, &[], false).unwrap();
    ctx.profiler_stop().unwrap();

    let recs = ctx.profiler_records().unwrap();
    let names: Vec<&str> = recs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["matmul", "binary.add", "reduce.sum"]);
    assert_eq!(recs[0].args, "float32[64,32] float32[32,8] -> float32[64,8]");
    assert!(recs.iter().all(|r| r.device == Device::Cpu && r.host_us >= 0.0 && r.device_us >= 0.0));

    let table = ctx.profiler_summary().unwrap();
    assert!(table.lines().next().unwrap().contains("calls"), "{table}");
    assert!(table.ends_with("3 calls recorded\n"), "{table}");

    let path = std::env::temp_dir().join(format!("ek_rust_trace_{}.json", std::process::id()));
    ctx.export_chrome_trace(&path).unwrap();
    let json = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(json.starts_with("{\"displayTimeUnit\":\"ms\",\"traceEvents\":["));
    assert_eq!(json.matches("\"cat\":\"call\"").count(), 3);
}

#[test]
fn session_errors_carry_their_status() {
    let ctx = Context::new(Device::Cpu).unwrap();
    assert_eq!(ctx.profiler_records().unwrap_err().status, Status::NOT_READY);
    ctx.profiler_start().unwrap();
    assert_eq!(ctx.profiler_start().unwrap_err().status, Status::INVALID_ARGUMENT);
    assert_eq!(ctx.profiler_summary().unwrap_err().status, Status::NOT_READY);
    ctx.profiler_stop().unwrap();
    let err = ctx.export_chrome_trace("/nonexistent-dir/t.json").unwrap_err();
    assert_eq!(err.status, Status::IO);
    assert!(err.to_string().contains("/nonexistent-dir/t.json"), "{err}");
}
