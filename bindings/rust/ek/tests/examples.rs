//! The examples that were doc tests of the hand-written API (moved here to
//! keep the crate thin): one per documented function, each a use of it.
#![allow(clippy::unusual_byte_groupings)]

#[test]
fn tensor_from_slice() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let t = ek::Tensor::from_slice(&ctx, &[2, 2], &[true, false, false, true])?;
    assert_eq!(t.dtype(), ek::DType::Bool);
    assert!(ek::Tensor::from_slice(&ctx, &[3], &[1u8, 2]).is_err());
    Ok(())
}

#[test]
fn tensor_from_vec() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let v = vec![1.0f32, 2.0, 3.0, 4.0];
    let p = v.as_ptr();
    let t = ek::Tensor::from_vec(&ctx, &[2, 2], v)?;
    assert_eq!(t.data_ptr() as *const f32, p); // the Vec's own buffer
    assert_eq!(t.transpose(0, 1)?.to_vec::<f32>()?, [1.0, 3.0, 2.0, 4.0]);
    Ok(())
}

#[test]
fn tensor_to_dlpack() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let t = ek::Tensor::from_slice(&ctx, &[2], &[1.0f32, 2.0])?;
    let m = t.to_dlpack()?;
    // SAFETY: m is a fresh export, consumed here once.
    let u = unsafe { ek::Tensor::from_dlpack(&ctx, m, None) }?;
    assert_eq!(u.data_ptr(), t.data_ptr()); // shared, not copied
    Ok(())
}

#[test]
fn tensor_to_vec() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let t = ek::Tensor::arange(&ctx, 0.0, 3.0, 1.0, ek::DType::F64)?;
    assert_eq!(t.to_vec::<f64>()?, [0.0, 1.0, 2.0]);
    assert_eq!(t.to_vec::<f32>().unwrap_err().status, ek::Status::DTYPE);
    Ok(())
}

#[test]
fn tensor_item() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let t = ek::Tensor::arange(&ctx, 0.0, 5.0, 1.0, ek::DType::I64)?;
    assert_eq!(t.sum(&[], false)?.item::<i64>()?, 10);
    assert_eq!(t.item::<i64>().unwrap_err().status, ek::Status::SHAPE);
    Ok(())
}

#[test]
fn tensor_copy_from() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let dst = ek::Tensor::zeros(&ctx, &[2, 3], ek::DType::F32)?;
    dst.copy_from(&ek::Tensor::from_slice(&ctx, &[3], &[1i32, 2, 3])?)?;
    assert_eq!(dst.to_vec::<f32>()?, [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    Ok(())
}

#[test]
fn tensor_fill() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let t = ek::Tensor::zeros(&ctx, &[2], ek::DType::I64)?;
    t.fill((1i64 << 60) + 1)?;
    assert_eq!(t.to_vec::<i64>()?, [(1 << 60) + 1; 2]);
    assert!(ek::Tensor::zeros(&ctx, &[2], ek::DType::I8)?.fill(300).is_err());
    Ok(())
}

#[test]
fn tensor_copy() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let t = ek::Tensor::from_slice(&ctx, &[3], &[1i32, 2, 3])?;
    let c = t.copy()?;
    t.fill(0.0)?;
    assert_eq!(c.to_vec::<i32>()?, [1, 2, 3]);
    Ok(())
}

#[test]
fn tensor_into_send() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let t = ek::Tensor::zeros(&ctx, &[4], ek::DType::F32)?;
    let view = t.slice(0, Some(1), None, 1)?;
    let t = t.into_send().unwrap_err(); // `view` still aliases it
    drop(view);
    let s = t.into_send().unwrap();
    let t = std::thread::spawn(move || {
        let t = s.into_tensor();
        t.fill(1.0).unwrap();
        t.into_send().unwrap()
    })
    .join()
    .unwrap()
    .into_tensor();
    assert_eq!(t.to_vec::<f32>()?, [1.0; 4]);
    Ok(())
}

#[test]
fn kernels_module() -> Result<(), ek::Error> {
    use ek::{Context, Device, DeviceType, Module, ModuleOrigin};
    const SRC: &str = r#"extern "C" __global__ void scale(float a, float *x, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= a;
    }"#;
    if ek::device_count(DeviceType::Cuda)? == 0 {
        // custom kernels need CUDA: a CPU context says so
        let cpu = Context::new(Device::Cpu)?;
        let err = Module::from_source(&cpu, SRC, None, &[]).unwrap_err();
        assert_eq!(err.status, ek::Status::NOT_SUPPORTED);
        return Ok(());
    }
    let ctx = Context::new(Device::Cuda(0))?;
    let m = Module::from_source(&ctx, SRC, Some("scale.cu"), &["--use_fast_math"])?;
    assert_eq!(m.origin()?, ModuleOrigin::NotLoaded);
    m.compile()?; // or let get_kernel compile
    assert_ne!(m.origin()?, ModuleOrigin::NotLoaded);
    let k = m.get_kernel("scale")?;
    assert_eq!(k.attributes()?.num_params, 3);
    Ok(())
}

#[test]
fn kernels_kernelarg() -> Result<(), ek::Error> {
    use ek::KernelArg;
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let x = ek::Tensor::zeros(&ctx, &[4], ek::DType::F32)?;
    let args = ek::kernel_args![2.0f32, &x, 4i32];
    assert!(matches!(args[..], [KernelArg::F32(_), KernelArg::Tensor(_), KernelArg::I32(4)]));
    assert_eq!(KernelArg::from(7u64).size(), 8);
    Ok(())
}

#[test]
fn kernels_kernel() -> Result<(), ek::Error> {
    use ek::{Context, Device, DeviceType, Module, Tensor};
    const SRC: &str = r#"extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i];
    }"#;
    if ek::device_count(DeviceType::Cuda)? == 0 {
        return Ok(()); // custom kernels need CUDA
    }
    let ctx = Context::new(Device::Cuda(0))?;
    let k = Module::from_source(&ctx, SRC, None, &[])?.get_kernel("saxpy")?;
    let x = Tensor::from_slice(&ctx, &[3], &[1.0f32, 2.0, 3.0])?;
    let y = Tensor::from_slice(&ctx, &[3], &[10.0f32, 20.0, 30.0])?;
    k.launch(None, [1, 1, 1], [32, 1, 1], 0, &ek::kernel_args![2.0f32, &x, &y, 3i32])?;
    assert_eq!(y.to_vec::<f32>()?, [12.0, 24.0, 36.0]);
    let block = k.launch_auto(None, 3, 0, &ek::kernel_args![0.0f32, &x, &y, 3i32])?;
    assert!(block.is_power_of_two());
    Ok(())
}

#[test]
fn kernels_elementwisekernel() -> Result<(), ek::Error> {
    use ek::{Context, Device, DeviceType, ElementwiseKernel, Tensor};
    let cpu = Context::new(Device::Cpu)?;
    let bad = ElementwiseKernel::new(&cpu, "float32 x", "float99 z", "z = x", None).unwrap_err();
    assert_eq!(bad.status, ek::Status::INVALID_ARGUMENT);
    if ek::device_count(DeviceType::Cuda)? == 0 {
        return Ok(()); // custom kernels need CUDA
    }
    let ctx = Context::new(Device::Cuda(0))?;
    let k = ElementwiseKernel::new(&ctx, "float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)", Some("fma_relu"))?;
    let x = Tensor::from_slice(&ctx, &[2, 2], &[1.0f32, -2.0, 3.0, -4.0])?;
    let y = Tensor::from_slice(&ctx, &[2], &[10.0f32, 100.0])?; // broadcast
    let z = k.call(&[&x, &y])?.remove(0);
    assert_eq!(z.to_vec::<f32>()?, [11.0, -200.0, 33.0, -400.0]);
    Ok(())
}

#[test]
fn memory_memory_stats() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let before = ctx.memory_stats()?.allocated_bytes;
    let t = ek::Tensor::zeros(&ctx, &[1024], ek::DType::F32)?;
    assert!(ctx.memory_stats()?.allocated_bytes >= before + 4096);
    drop(t);
    assert_eq!(ctx.memory_stats()?.allocated_bytes, before);
    Ok(())
}

#[test]
fn memory_memory_snapshot_json() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let path = std::env::temp_dir().join(format!("ek-doc-snapshot-{}.json", std::process::id()));
    ctx.memory_snapshot_json(&path)?;
    assert!(std::fs::read_to_string(&path).unwrap().contains("\"segments\""));
    std::fs::remove_file(&path).unwrap();
    let e = ctx.memory_snapshot_json("/no/such/dir/x.json").unwrap_err();
    assert_eq!(e.status, ek::Status::IO);
    Ok(())
}

#[test]
fn memory_malloc() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let p = ctx.malloc(1000, None)?;
    assert_eq!(p as usize % 512, 0);
    ctx.free(p, None)?;
    assert!(ctx.free(p, None).is_err()); // already freed: reported, nothing changes
    Ok(())
}

#[test]
fn memory_memcpy() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let p = ctx.malloc(8, None)?;
    let (src, mut dst) = ([1u8, 2, 3, 4, 5, 6, 7, 8], [0u8; 8]);
    unsafe {
        ctx.memcpy(src.as_ptr().cast(), p, 8, None)?;
        ctx.memcpy(p, dst.as_mut_ptr().cast(), 8, None)?;
    }
    ctx.synchronize()?;
    assert_eq!(dst, src);
    ctx.free(p, None)?;
    Ok(())
}

#[test]
fn memory_set_memory_callback() -> Result<(), ek::Error> {
    use std::sync::{Arc, atomic::{AtomicU64, Ordering}};
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let seen = Arc::new(AtomicU64::new(0));
    let s = seen.clone();
    ctx.set_memory_callback(1 << 20, move |event, bytes| {
        assert_eq!(event, ek::MemoryEvent::Threshold);
        s.store(bytes, Ordering::SeqCst);
    })?;
    let _t = ek::Tensor::empty(&ctx, &[1 << 20], ek::DType::F32)?; // 4 MiB reserved
    assert!(seen.load(Ordering::SeqCst) >= 4 << 20);
    ctx.clear_memory_callback()?;
    Ok(())
}

#[test]
fn random_random_() -> Result<(), ek::Error> {
    use ek::{RandomDist, Tensor};
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let t = Tensor::empty(&ctx, &[1000], ek::DType::I32)?;
    t.random_(RandomDist::Randint { low: -3, high: 3 })?;
    assert!(t.to_vec::<i32>()?.iter().all(|v| (-3..3).contains(v)));
    assert_eq!(ctx.random_state()?.offset, 1000);
    Ok(())
}

#[test]
fn random_random_with() -> Result<(), ek::Error> {
    use ek::{PhiloxState, RandomDist, Tensor};
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let state = PhiloxState { seed: 7, offset: 0 };
    let (a, b) = (Tensor::empty(&ctx, &[4], ek::DType::F64)?, Tensor::empty(&ctx, &[4], ek::DType::F64)?);
    a.random_with(RandomDist::Normal { mean: 0.0, std: 1.0 }, Some(state), None)?;
    b.random_with(RandomDist::Normal { mean: 0.0, std: 1.0 }, Some(state), None)?;
    assert_eq!(a.to_vec::<f64>()?, b.to_vec::<f64>()?);
    Ok(())
}

#[test]
fn random_random() -> Result<(), ek::Error> {
    use ek::{DType, RandomDist, Tensor};
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    ctx.manual_seed(0)?;
    let a = Tensor::random(&ctx, &[3], DType::F32, RandomDist::Uniform { low: 1.0, high: 2.0 })?;
    ctx.manual_seed(0)?;
    let b = Tensor::rand(&ctx, &[3], DType::F32)?.add_scalar(1.0)?;
    assert_eq!(a.to_vec::<f32>()?, b.to_vec::<f32>()?);
    Ok(())
}

#[test]
fn stream_event() -> Result<(), ek::Error> {
    let ctx = ek::Context::new(ek::Device::Cpu)?;
    let (start, end) = (ek::Event::new(&ctx)?, ek::Event::new(&ctx)?);
    start.record(None)?;
    let _t = ek::Tensor::zeros(&ctx, &[1000], ek::DType::F64)?;
    end.record(None)?;
    end.synchronize()?;
    assert!(end.query()?);
    assert!(start.elapsed_ms(&end)? >= 0.0);
    Ok(())
}
