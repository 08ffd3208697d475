//! Errors carry the status and the C library's message naming the function.
use ek::{Context, ContextConfig, DType, Device, Error, LogLevel, Status, Tensor};

#[test]
fn errors_name_the_c_function() {
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::zeros(&ctx, &[2, 3], DType::F32).unwrap();

    let e = t.select(0, 7).unwrap_err();
    assert_eq!(e.status, Status::INDEX);
    assert!(e.message.contains("ek_view_select"), "{e}");
    assert!(e.to_string().starts_with("EK_ERROR_INDEX: "), "{e}");

    let e = t.permute(&[0, 0]).unwrap_err();
    assert!(e.message.contains("ek_view_permute"), "{e}");

    let e = t.slice(0, None, None, 0).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT);
    assert!(e.message.contains("ek_view_slice"), "{e}");

    let e = t.expand(&[4, 3]).unwrap_err();
    assert!(e.message.contains("ek_view_expand"), "{e}");

    let e = Tensor::empty(&ctx, &[-1], DType::F32).unwrap_err();
    assert!(e.message.contains("ek_tensor_empty"), "{e}");

    let e = Tensor::empty(&ctx, &[1 << 40, 1 << 40], DType::F64).unwrap_err();
    assert_eq!(e.status, Status::OVERFLOW, "{e}");

    let e = Tensor::empty(&ctx, &[1; 9], DType::F32).unwrap_err();
    assert!(e.message.contains("ek_tensor_empty"), "{e}");

    let e = Tensor::empty(&ctx, &[2], DType::Unknown(42)).unwrap_err();
    assert_eq!(e.status, Status::DTYPE, "{e}");

    let e = Tensor::arange(&ctx, 0.0, 1.0, 0.0, DType::F32).unwrap_err();
    assert!(e.message.contains("ek_arange"), "{e}");

    let dst = Tensor::zeros(&ctx, &[3], DType::F32).unwrap();
    let e = dst.copy_from(&t).unwrap_err();
    assert!(e.message.contains("ek_copy"), "{e}");

    // binding-side checks use the same shape
    let e = t.to_vec::<i32>().unwrap_err();
    assert_eq!(e.status, Status::DTYPE);
    let e = Tensor::from_slice(&ctx, &[2, 2], &[1i32]).unwrap_err();
    assert_eq!(e.status, Status::SHAPE);
}

#[test]
fn error_is_std_error_and_status_names() {
    fn boxed() -> Result<(), Box<dyn std::error::Error>> {
        let ctx = Context::new(Device::Cpu)?;
        Tensor::zeros(&ctx, &[1], DType::F32)?.transpose(0, 3)?;
        Ok(())
    }
    let e = boxed().unwrap_err();
    let e: &Error = e.downcast_ref().unwrap();
    assert_eq!(e.status, Status::INDEX);
    assert_eq!(Status::OUT_OF_MEMORY.name(), "EK_ERROR_OUT_OF_MEMORY");
    assert_eq!(Status::SHAPE.description(), "shape mismatch");
    assert_eq!(Status(1234).name(), "EK_UNKNOWN_STATUS");
    assert_eq!(format!("{:?}", Status::IO), "EK_ERROR_IO(14)");
}

#[test]
fn devices_and_config() {
    assert_eq!(ek::device_count(ek::DeviceType::Cpu).unwrap(), 1);
    let info = Device::Cpu.info().unwrap();
    assert_eq!(info.device, Device::Cpu);
    assert!(!info.name.is_empty());
    assert!(info.total_memory > 0);
    let e = Device::Cuda(4096).info().unwrap_err();
    assert_eq!(e.status, Status::NO_DEVICE);
    if ek::device_count(ek::DeviceType::Cuda).unwrap() == 0 {
        let e = Context::new(Device::Cuda(0)).unwrap_err();
        assert_eq!(e.status, Status::NO_DEVICE);
        assert!(e.message.contains("ek_context_create"), "{e}");
    }

    let dir = std::env::temp_dir().join("ek-rust-test-cache");
    let cfg = ContextConfig::new()
        .memory_limit(32 << 20)
        .allow_tf32(true)
        .kernel_cache_dir(&dir)
        .log_level(LogLevel::Error);
    let ctx = Context::with_config(Device::Cpu, &cfg).unwrap();
    let got = ctx.config().unwrap();
    assert_eq!(got.memory_limit, Some(32 << 20));
    assert!(got.allow_tf32);
    assert_eq!(got.kernel_cache_dir.as_deref(), Some(dir.as_path()));
    assert_eq!(got.log_level, Some(LogLevel::Error));
    assert_eq!(ctx.device().unwrap(), Device::Cpu);

    let e = Context::with_config(Device::Cpu, &ContextConfig::new().memory_fraction(2.0)).unwrap_err();
    assert!(e.message.contains("ek_context_create"), "{e}");

    let ctx = Context::with_config(Device::Cpu, &ContextConfig::new().num_threads(3)).unwrap();
    assert_eq!(ctx.config().unwrap().num_threads, Some(3));
    let e = Context::with_config(Device::Cpu, &ContextConfig::new().num_threads(-1)).unwrap_err();
    assert!(e.message.contains("num_threads -1"), "{e}");

    let deferred = ContextConfig::new().index_check(ek::IndexCheck::Deferred);
    let ctx = Context::with_config(Device::Cpu, &deferred).unwrap();
    assert_eq!(ctx.config().unwrap().index_check, Some(ek::IndexCheck::Deferred));
    let ctx = Context::new(Device::Cpu).unwrap();
    assert_eq!(ctx.config().unwrap().index_check, Some(ek::IndexCheck::AtCall));
}

#[test]
fn limit_reports_out_of_memory() {
    let ctx = Context::new(Device::Cpu).unwrap();
    ctx.set_limit(4 << 20).unwrap();
    let e = Tensor::empty(&ctx, &[8 << 20], DType::U8).unwrap_err();
    assert_eq!(e.status, Status::OUT_OF_MEMORY, "{e}");
    assert!(ctx.memory_stats().unwrap().oom_count >= 1);
    ctx.set_limit(0).unwrap();
    Tensor::empty(&ctx, &[8 << 20], DType::U8).unwrap();
}

#[test]
fn index_errors_name_the_item() {
    use ek::{Index, Tensor};
    let ctx = ek::Context::new(ek::Device::Cpu).unwrap();
    let x = Tensor::zeros(&ctx, &[2, 3], ek::DType::F32).unwrap();
    let e = x.index(&[Index::Int(0), Index::Int(5)]).unwrap_err();
    assert_eq!(e.status, ek::Status::INDEX, "{e}");
    assert!(e.message.contains("ek_index"), "{e}");
    let e = x.index(&[Index::Ellipsis, Index::Ellipsis]).unwrap_err();
    assert_ne!(e.status, ek::Status::SUCCESS);
    let bad = Tensor::zeros(&ctx, &[4], ek::DType::F32).unwrap();
    let e = x.index_assign(&[Index::Int(0)], &bad, false).unwrap_err();
    assert_eq!(e.status, ek::Status::SHAPE, "{e}");
    assert!(e.message.contains("ek_index_assign"), "{e}");
    assert_eq!(x.to_vec::<f32>().unwrap(), [0.0; 6], "nothing written on failure");
}
