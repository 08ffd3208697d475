//! Host overhead of the Rust binding per op, over the raw C call.
//!
//! Times N back-to-back `out = a + b` calls into an existing `out`, through the
//! binding (`a.binary_into(BinaryOp::Add, &b, &out)`) and through the raw
//! `ek_sys::ek_binary` call, alternating in rounds, and prints the per-op host
//! time of each (the best round, and the median) and their difference. Tensors
//! have 1M float32 elements on CUDA and 1 element on the CPU (or `--numel K`);
//! the device is CUDA when present (`--cpu` or `EK_DEVICE=cpu` forces the CPU).
//!
//!   cd bindings/rust && cargo build --release --offline --example overhead
//!   target/release/examples/overhead [--cpu] [--numel K] [--iters N] [--rounds R]
//!
//! With 1M elements on a GPU the loop can be paced by the GPU once its launch
//! queue is full; `--numel 1` shows the host cost alone.
use std::time::Instant;

use ek::{sys, BinaryOp, Context, DType, Device, DeviceType, Tensor};

fn arg(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(|v| {
        v.parse().unwrap_or_else(|_| {
            eprintln!("{name}: not a number: {v}");
            std::process::exit(2)
        })
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    if let Err(e) = run() {
        eprintln!("overhead failed: {e}");
        std::process::exit(1);
    }
}

fn run() -> ek::Result<()> {
    let force_cpu = std::env::args().any(|a| a == "--cpu") || std::env::var("EK_DEVICE").as_deref() == Ok("cpu");
    let dev = if !force_cpu && ek::device_count(DeviceType::Cuda)? > 0 { Device::Cuda(0) } else { Device::Cpu };
    let numel = arg("--numel").unwrap_or(if dev == Device::Cpu { 1 } else { 1 << 20 }) as i64;
    let iters = arg("--iters").unwrap_or(20_000);
    let rounds = arg("--rounds").unwrap_or(5).max(1);

    let ctx = Context::new(dev)?;
    let a = Tensor::full(&ctx, &[numel], 1.0, DType::F32)?;
    let b = Tensor::full(&ctx, &[numel], 2.0, DType::F32)?;
    let out = Tensor::empty(&ctx, &[numel], DType::F32)?;

    let binding = |n: usize| -> ek::Result<()> {
        for _ in 0..n {
            a.binary_into(BinaryOp::Add, &b, &out)?;
        }
        Ok(())
    };
    let (ra, rb) = (a.as_raw(), b.as_raw());
    let raw = |n: usize| -> ek::Result<()> {
        let mut o = out.as_raw();
        for _ in 0..n {
            // SAFETY: live handles; o is out's handle, written into.
            let st = unsafe { sys::ek_binary(std::ptr::null_mut(), sys::ek_binary_op::EK_BINARY_ADD, ra, rb, &mut o) };
            if st != sys::ek_status::EK_SUCCESS {
                return Err(ek::Error { status: ek::Status(st.0), message: "ek_binary failed".into() });
            }
        }
        Ok(())
    };
    // One timed round: host time of the calls, then the time until the work is done.
    let time = |f: &dyn Fn(usize) -> ek::Result<()>| -> ek::Result<(f64, f64)> {
        ctx.synchronize()?;
        let t0 = Instant::now();
        f(iters)?;
        let host = t0.elapsed().as_secs_f64();
        ctx.synchronize()?;
        let total = t0.elapsed().as_secs_f64();
        Ok((host * 1e6 / iters as f64, total * 1e6 / iters as f64))
    };

    binding(iters / 10 + 1)?; // warm-up: pool, kernels, caches
    raw(iters / 10 + 1)?;
    let (mut bh, mut bt, mut rh, mut rt) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let (h, t) = time(&binding)?;
        bh.push(h);
        bt.push(t);
        let (h, t) = time(&raw)?;
        rh.push(h);
        rt.push(t);
    }
    assert_eq!(out.slice(0, Some(0), Some(1), 1)?.to_vec::<f32>()?, [3.0]);

    let min = |v: &[f64]| v.iter().cloned().fold(f64::INFINITY, f64::min);
    println!(
        "overhead (Rust): add of two [{numel}] float32 tensors into an existing out on {dev}, \
         {iters} back-to-back calls, {rounds} rounds; us/op host (median host, median incl. sync)"
    );
    println!("  ek binding   binary_into : {:8.3} ({:.3}, {:.3})", min(&bh), median(bh.clone()), median(bt));
    println!("  raw C call   ek_binary   : {:8.3} ({:.3}, {:.3})", min(&rh), median(rh.clone()), median(rt));
    println!("  binding overhead per op  : {:8.3} (median {:.3})", min(&bh) - min(&rh), median(bh) - median(rh));
    Ok(())
}
