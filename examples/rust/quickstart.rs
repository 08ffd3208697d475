//! libek quickstart in Rust: a context on the GPU when there is one (else the
//! CPU), a tensor, a few zero-copy views, a strided copy back to the host, and
//! the memory pool's statistics. The same steps as examples/c/quickstart.c.
//!
//!   cd bindings/rust
//!   PKG_CONFIG_PATH=<build>/meson-uninstalled LD_LIBRARY_PATH=<build> \
//!     cargo run --offline --example quickstart
use ek::{Context, DType, Device, DeviceType, Tensor};

fn main() -> ek::Result<()> {
    let gpus = ek::device_count(DeviceType::Cuda)?;
    let dev = if gpus > 0 { Device::Cuda(0) } else { Device::Cpu };
    let info = dev.info()?;
    println!("libek {} on {} ({dev})", ek::version(), info.name);

    let ctx = Context::new(dev)?;

    // 0, 1, ..., 11 as a 3x4 matrix, then its transpose (a view) made contiguous.
    let m = Tensor::arange(&ctx, 0.0, 12.0, 1.0, DType::F32)?.view(&[3, 4])?;
    let packed = m.transpose(0, 1)?.contiguous()?;
    let col = m.select(1, -1)?; // last column: 3, 7, 11

    let host = packed.to_vec::<f32>()?;
    let last = col.to_vec::<f32>()?;
    println!("transpose of arange(12).reshape(3, 4):");
    for r in host.chunks(3) {
        println!("  {:4} {:4} {:4}", r[0], r[1], r[2]);
    }
    println!("last column: {} {} {}", last[0], last[1], last[2]);

    let st = ctx.memory_stats()?;
    println!(
        "pool: {} bytes allocated in {} blocks, {} reserved, {} cache hits",
        st.allocated_bytes, st.active_blocks, st.reserved_bytes, st.cache_hits
    );

    if host[1] != 4.0 || last[2] != 11.0 {
        eprintln!("unexpected values");
        std::process::exit(1);
    }
    Ok(()) // tensors, then the context, are released on drop
}
