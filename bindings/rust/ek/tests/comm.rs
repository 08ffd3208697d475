//! ek::Comm: argument checks and the NCCL-missing path on any machine; an
//! all_reduce over every GPU (init_all) when CUDA is selected and >= 2 exist.
mod common;

use ek::{Comm, Context, DType, Device, DeviceType, ReduceOp, Status, Tensor, UniqueId};

#[test]
fn cpu_context_is_not_supported() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let id = UniqueId([0; 128]);
    let e = Comm::init_rank(&ctx, 1, &id, 0, None).err().unwrap();
    assert_eq!(e.status, Status::NOT_SUPPORTED);
    assert!(e.message.contains("ek_comm_init_rank: ctx is a CPU context"), "{}", e.message);
    let e = Comm::init_all(&[&ctx], None).err().unwrap();
    assert_eq!(e.status, Status::NOT_SUPPORTED);
    let e = Comm::init_all(&[], None).err().unwrap();
    assert_eq!(e.status, Status::INVALID_ARGUMENT);
    assert!(e.message.contains("n is 0"), "{}", e.message);
}

/// Re-runs itself with EK_NCCL_LIBRARY pointing nowhere (NCCL is opened once a process).
#[test]
fn nccl_missing() {
    if std::env::var("EK_TEST_NCCL_CHILD").is_ok() {
        let e = UniqueId::new().err().expect("NCCL was found at /nonexistent");
        assert_eq!(e.status, Status::LIBRARY);
        assert!(e.message.contains("NCCL not found (") && e.message.contains("/nonexistent"), "{}", e.message);
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["nccl_missing", "--exact", "--test-threads=1"])
        .env("EK_TEST_NCCL_CHILD", "1")
        .env("EK_NCCL_LIBRARY", "/nonexistent/libnccl.so.2")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn all_reduce_over_every_gpu() {
    if !common::cuda_selected("all_reduce_over_every_gpu") {
        return;
    }
    let n = ek::device_count(DeviceType::Cuda).unwrap() as i32;
    if n < 2 {
        common::skip("all_reduce_over_every_gpu", "needs 2 CUDA devices");
        return;
    }
    let ctxs: Vec<Context> = (0..n).map(|i| Context::new(Device::Cuda(i)).unwrap()).collect();
    let refs: Vec<&Context> = ctxs.iter().collect();
    let comms = Comm::init_all(&refs, Some(std::time::Duration::from_secs(120))).unwrap();
    let xs: Vec<Tensor> = ctxs.iter().enumerate()
        .map(|(i, c)| Tensor::from_slice(c, &[4], &[i as f32; 4]).unwrap())
        .collect();
    let outs = ek::group(|| comms.iter().zip(&xs).map(|(c, x)| c.all_reduce(ReduceOp::Sum, x, None, None)).collect::<ek::Result<Vec<_>>>()).unwrap();
    let want = (n * (n - 1) / 2) as f32;
    for (c, o) in comms.iter().zip(&outs) {
        c.synchronize(None).unwrap();
        assert_eq!(o.to_vec::<f32>().unwrap(), [want; 4]);
        assert_eq!(o.dtype(), DType::F32);
    }
    assert_eq!(comms[1].rank().unwrap(), 1);
    assert_eq!(comms[0].size().unwrap(), n);
    let e = comms[0].all_reduce(ReduceOp::Argmax, &xs[0], None, None).err().unwrap();
    assert_eq!(e.status, Status::INVALID_ARGUMENT);
}
