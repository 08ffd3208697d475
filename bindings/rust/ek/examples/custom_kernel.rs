//! A custom CUDA kernel from Rust: saxpy (y = a x + y) compiled at run time
//! with NVRTC, launched with an explicit grid and with the tuned block size,
//! and checked against the host. Without a CUDA device it says so and exits 0.
//!
//!   cd bindings/rust
//!   PKG_CONFIG_PATH=<build>/meson-uninstalled cargo run --offline --example custom_kernel
use ek::{kernel_args, Context, Device, DeviceType, Module, Tensor};

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn main() {
    if let Err(e) = run() {
        eprintln!("custom_kernel failed: {e}");
        std::process::exit(1);
    }
}

fn run() -> ek::Result<()> {
    if ek::device_count(DeviceType::Cuda)? == 0 {
        println!("custom kernels need a CUDA device; none found, nothing to do");
        return Ok(());
    }
    let ctx = Context::new(Device::Cuda(0))?;
    let module = Module::from_source(&ctx, SAXPY, Some("saxpy.cu"), &["--use_fast_math"])?;
    let kernel = module.get_kernel("saxpy")?; // compiles, or loads from the cache
    println!("module: {:?}; kernel: {:?}", module.origin()?, kernel.attributes()?);

    let n = 1 << 20;
    let a = 2.0f32;
    let xs: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let x = Tensor::from_slice(&ctx, &[n as i64], &xs)?;
    let y = Tensor::from_slice(&ctx, &[n as i64], &ys)?;

    let block = 256u32;
    let grid = (n as u32).div_ceil(block);
    kernel.launch(None, [grid, 1, 1], [block, 1, 1], 0, &kernel_args![a, &x, &y, n as i32])?;
    // y = a x + y again, with the block size that ran fastest (saxpy is not
    // idempotent, so tune on a scratch copy of y: the tuner runs it several times)
    let scratch = Tensor::zeros(&ctx, &[n as i64], ek::DType::F32)?;
    let tuned = kernel.launch_auto(None, n as u64, 0, &kernel_args![a, &x, &scratch, n as i32])?;
    kernel.launch_auto(None, n as u64, 0, &kernel_args![a, &x, &y, n as i32])?;

    let got = y.to_vec::<f32>()?;
    let bad = (0..n).filter(|&i| (got[i] - (2.0 * a * xs[i] + ys[i])).abs() > 1e-5).count();
    println!("saxpy twice over {n} elements (tuned block {tuned}): {bad} mismatches");
    if bad != 0 {
        std::process::exit(1);
    }
    Ok(())
}
