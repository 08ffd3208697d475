//! libek quickstart in Rust: the forward pass of a two-layer perceptron,
//!
//!   h = relu(x @ W1 + b1),  y = softmax(h @ W2 + b2, dim -1),
//!
//! with x [64,128], W1 [128,256], b1 [256], W2 [256,10], b2 [10] drawn from
//! N(0, 0.1^2) by the context's generator seeded with 0 (in that order), on
//! the GPU when there is one, else on the CPU (`EK_DEVICE=cpu` or `--cpu`
//! forces the CPU). The same workload as examples/c/quickstart.c.
//!
//!   cd bindings/rust
//!   PKG_CONFIG_PATH=<build>/meson-uninstalled cargo run --offline --example quickstart
//!
//! (no LD_LIBRARY_PATH: the binary's rpath names the directory linked from).
//! examples/rust/consumer builds it as a program of a crate of its own.
use ek::{Context, DType, Device, DeviceType, RandomDist, Tensor};

fn main() {
    if let Err(e) = run() {
        eprintln!("quickstart failed: {e}");
        std::process::exit(1);
    }
}

fn run() -> ek::Result<()> {
    let force_cpu = std::env::args().any(|a| a == "--cpu") || std::env::var("EK_DEVICE").as_deref() == Ok("cpu");
    let gpus = ek::device_count(DeviceType::Cuda)?;
    let dev = if gpus > 0 && !force_cpu { Device::Cuda(0) } else { Device::Cpu };
    let info = dev.info()?;
    let v = ek::version(); // MAJOR * 10000 + MINOR * 100 + PATCH
    println!("libek {}.{}.{} on {} ({dev})", v / 10000, v / 100 % 100, v % 100, info.name);

    let ctx = Context::new(dev)?;
    ctx.manual_seed(0)?;
    let randn = |shape: &[i64]| Tensor::random(&ctx, shape, DType::F32, RandomDist::Normal { mean: 0.0, std: 0.1 });
    let x = randn(&[64, 128])?;
    let w1 = randn(&[128, 256])?;
    let b1 = randn(&[256])?;
    let w2 = randn(&[256, 10])?;
    let b2 = randn(&[10])?;

    let h = (&x.matmul(&w1)? + &b1)?.relu()?;
    let y = (&h.matmul(&w2)? + &b2)?.softmax(-1)?;

    // Every row of y sums to 1, so the total is 64.
    let sum = y.sum(&[], false)?.item::<f32>()?;
    let row = y.select(0, 0)?.to_vec::<f32>()?;
    println!("y = softmax(relu(x @ W1 + b1) @ W2 + b2): shape {:?}", y.shape());
    println!("sum(y) = {sum:.6}");
    println!("y[0][0:3] = {:.6} {:.6} {:.6}", row[0], row[1], row[2]);

    if y.shape() != [64, 10] || (sum - 64.0).abs() > 1e-3 {
        eprintln!("unexpected result");
        std::process::exit(1);
    }
    Ok(()) // tensors, then the context, are released on drop
}
