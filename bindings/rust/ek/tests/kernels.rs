//! Custom kernels: the CPU checks (errors, argument marshalling) always run;
//! the CUDA checks run when EK_TEST_DEVICE is `cuda` or `all` and a device
//! exists, otherwise print a visible SKIPPED line (as tests/cuda.rs). With
//! EK_REQUIRE_GPU=1 a missing GPU is a failure. The handle count is process
//! wide, so the tests here run one after another through a lock.
mod common;

use std::sync::Mutex;

use ek::{kernel_args, Context, ContextConfig, DType, Device, ElementwiseKernel, KernelArg, Module, ModuleOrigin, Status, Tensor};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"#;

// 64-bit count and index, so that every scalar width goes through.
const AXPBY64: &str = r#"
extern "C" __global__ void axpby64(double a, const double *x, double b, double *y, unsigned long long n) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b * y[i];
}
"#;

fn cuda_or_skip(test: &str) -> Option<Context> {
    if !common::cuda_selected(test) {
        return None;
    }
    // EK_KERNEL_CACHE_DIR when set (scripts/gpu_batch.sh makes a fresh one),
    // else a directory of this process: never the user's own cache.
    if std::env::var_os("EK_KERNEL_CACHE_DIR").is_some() {
        return Some(Context::new(Device::Cuda(0)).unwrap());
    }
    let dir = std::env::temp_dir().join(format!("ek-rust-kernels-{}", std::process::id()));
    Some(Context::with_config(Device::Cuda(0), &ContextConfig::new().kernel_cache_dir(dir)).unwrap())
}

fn not_supported(e: ek::Error, what: &str) {
    assert_eq!(e.status, Status::NOT_SUPPORTED, "{what}: {e}");
    assert!(!e.message.is_empty(), "{what}: no message");
}

#[test]
fn cpu_constructors_are_not_supported() {
    let _g = serial();
    let base = ek::live_handles().unwrap();
    {
        let ctx = Context::new(Device::Cpu).unwrap();
        let e = Module::from_source(&ctx, SAXPY, None, &[]).unwrap_err();
        not_supported(e.clone(), "from_source");
        assert!(e.message.contains("ek_module_from_source"), "{e}");
        not_supported(Module::from_source(&ctx, SAXPY, Some("saxpy.cu"), &["-DN=4", "--use_fast_math"]).unwrap_err(), "from_source with options");
        let e = Module::from_image(&ctx, b"not an image\0").unwrap_err();
        not_supported(e.clone(), "from_image");
        assert!(e.message.contains("ek_module_from_image"), "{e}");
        let e = ElementwiseKernel::new(&ctx, "float32 x, float32 y", "float32 z", "z = x * y", None).unwrap_err();
        not_supported(e.clone(), "elementwise");
        assert!(e.message.contains("ek_elementwise_create"), "{e}");
        not_supported(ElementwiseKernel::new(&ctx, "int64 a", "float64 z", "z = a", Some("named")).unwrap_err(), "elementwise named");
        not_supported(ek::kernel_cache_clear(&ctx).unwrap_err(), "kernel_cache_clear");
    }
    assert_eq!(ek::live_handles().unwrap(), base, "a failed constructor left a handle");
}

#[test]
fn bad_elementwise_params_are_invalid_arguments() {
    let _g = serial();
    let ctx = Context::new(Device::Cpu).unwrap();
    let cases: [(&str, &str, &str); 6] = [
        ("float99 x", "float32 z", "an unknown type"),
        ("float32 x, float32 x", "float32 z", "a duplicate name"),
        ("float32 1x", "float32 z", "a name that is not an identifier"),
        ("float32 i", "float32 z", "the reserved name i"),
        ("float32 threadIdx", "float32 z", "a CUDA built-in"),
        ("float32 x", "", "no outputs"),
    ];
    for (ins, outs, what) in cases {
        let e = ElementwiseKernel::new(&ctx, ins, outs, "z = x", None).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{what}: {e}");
        assert!(e.message.contains("ek_elementwise_create"), "{what}: {e}");
    }
    let e = ElementwiseKernel::new(&ctx, "float32 x", "float32 z", "z = x", Some("not an identifier")).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
    // A NUL byte is refused by the binding before the library sees it.
    let e = ElementwiseKernel::new(&ctx, "float32 x", "float32 z", "z = x\0", None).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
    assert!(e.message.contains("NUL"), "{e}");
    let e = Module::from_source(&ctx, SAXPY, None, &["-DA\0"]).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
}

#[test]
fn kernel_args_have_fixed_widths() {
    let _g = serial(); // it makes handles: not while another test counts them
    let ctx = Context::new(Device::Cpu).unwrap();
    let t = Tensor::zeros(&ctx, &[2], DType::F32).unwrap();
    let (a, b) = (3i64, 1.5f64);
    let args = kernel_args![&t, 1i32, 2u32, &a, 4u64, 0.5f32, &b];
    let sizes: Vec<usize> = args.iter().map(KernelArg::size).collect();
    assert_eq!(sizes, [std::mem::size_of::<*const u8>(), 4, 4, 8, 8, 4, 8]);
    assert!(matches!(args[0], KernelArg::Tensor(x) if x.as_raw() == t.as_raw()));
    assert!(matches!(args[3], KernelArg::I64(3)));
    assert!(matches!(KernelArg::from(&t), KernelArg::Tensor(_)));
    let empty: [KernelArg; 0] = kernel_args![];
    assert!(empty.is_empty());
}

#[test]
fn types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Module>();
    check::<ek::Kernel>();
    check::<ElementwiseKernel>();
    fn cloneable<T: Clone>() {}
    cloneable::<Module>(); // ek_module_retain
    cloneable::<ek::Kernel>(); // ek_kernel_retain
}

#[test]
fn cuda_saxpy_from_source() {
    let _g = serial();
    let Some(ctx) = cuda_or_skip("cuda_saxpy_from_source") else { return };
    let base = ek::live_handles().unwrap();
    {
        let m = Module::from_source(&ctx, SAXPY, Some("saxpy.cu"), &["-DUNUSED=1"]).unwrap();
        assert_eq!(m.origin().unwrap(), ModuleOrigin::NotLoaded);
        m.compile().unwrap();
        assert!(matches!(m.origin().unwrap(), ModuleOrigin::Compiled | ModuleOrigin::MemoryCache | ModuleOrigin::DiskCache));
        let m2 = m.clone(); // one more reference (ek_module_retain)
        assert_eq!(m2.as_raw(), m.as_raw());
        drop(m);
        let k0 = m2.get_kernel("saxpy").unwrap();
        let k = k0.clone(); // ek_kernel_retain
        assert_eq!(k.as_raw(), k0.as_raw());
        drop(k0);
        drop(m2); // the kernel keeps the code loaded
        let at = k.attributes().unwrap();
        assert_eq!(at.num_params, 4, "{at:?}");
        assert!(at.max_threads_per_block > 0 && at.max_threads_per_block <= 1024, "{at:?}");

        let n = 1000usize;
        let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 100.0).collect();
        let ys: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
        let x = Tensor::from_slice(&ctx, &[n as i64], &xs).unwrap();
        let y = Tensor::from_slice(&ctx, &[n as i64], &ys).unwrap();
        let a = 2.5f32;
        let block = 128u32;
        let grid = (n as u32).div_ceil(block);
        let s = ek::Stream::new(&ctx).unwrap();
        ctx.synchronize().unwrap(); // the uploads ran on the default stream
        k.launch(Some(&s), [grid, 1, 1], [block, 1, 1], 0, &kernel_args![a, &x, &y, n as i32]).unwrap();
        s.synchronize().unwrap();
        let got = y.to_vec::<f32>().unwrap();
        for i in 0..n {
            // NVRTC contracts a * x + y into an fma by default: either rounding
            let (fused, split) = (a.mul_add(xs[i], ys[i]), a * xs[i] + ys[i]);
            assert!(got[i] == fused || got[i] == split, "y[{i}]: {} vs {fused}", got[i]);
        }

        // the wrong argument count, a wrong width, a zero grid
        let e = k.launch(None, [grid, 1, 1], [block, 1, 1], 0, &kernel_args![a, &x, &y]).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        assert!(e.message.contains("ek_kernel_launch"), "{e}");
        let e = k.launch(None, [grid, 1, 1], [block, 1, 1], 0, &kernel_args![a as f64, &x, &y, n as i32]).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        let e = k.launch(None, [0, 1, 1], [block, 1, 1], 0, &kernel_args![a, &x, &y, n as i32]).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        // a host tensor is refused by the library (ek_kernel_launch_values names the argument)
        let cpu = Context::new(Device::Cpu).unwrap();
        let hx = Tensor::from_slice(&cpu, &[n as i64], &xs).unwrap();
        let e = k.launch(None, [grid, 1, 1], [block, 1, 1], 0, &kernel_args![a, &hx, &y, n as i32]).unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        // no such kernel
        let m = Module::from_source(&ctx, SAXPY, None, &[]).unwrap();
        let e = m.get_kernel("nope").unwrap_err();
        assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
        assert!(e.message.contains("nope"), "{e}");
        // a compile error carries the log
        let bad = Module::from_source(&ctx, "extern \"C\" __global__ void f() { oops; }", Some("bad.cu"), &[]).unwrap();
        let e = bad.compile().unwrap_err();
        assert_eq!(e.status, Status::COMPILE, "{e}");
        assert!(e.message.contains("oops"), "{e}");
        ctx.synchronize().unwrap();
    }
    assert_eq!(ek::live_handles().unwrap(), base);
}

#[test]
fn cuda_launch_auto() {
    let _g = serial();
    let Some(ctx) = cuda_or_skip("cuda_launch_auto") else { return };
    let k = Module::from_source(&ctx, AXPBY64, None, &[]).unwrap().get_kernel("axpby64").unwrap();
    let n = 100_000u64;
    let xs: Vec<f64> = (0..n).map(|i| (i % 101) as f64).collect();
    let x = Tensor::from_slice(&ctx, &[n as i64], &xs).unwrap();
    let y = Tensor::zeros(&ctx, &[n as i64], DType::F64).unwrap();
    // y = 3 x + 0 y: the same result however often the tuner runs it
    let block = k.launch_auto(None, n, 0, &kernel_args![3.0f64, &x, 0.0f64, &y, n]).unwrap();
    assert!(block.is_power_of_two() && (32..=1024).contains(&block), "block {block}");
    let got = y.to_vec::<f64>().unwrap();
    assert!(got.iter().zip(&xs).all(|(g, x)| *g == 3.0 * x));
    // the tuned size is remembered for the bucket
    assert_eq!(k.launch_auto(None, n, 0, &kernel_args![3.0f64, &x, 0.0f64, &y, n]).unwrap(), block);
    assert_eq!(k.launch_auto(None, 0, 0, &kernel_args![3.0f64, &x, 0.0f64, &y, 0u64]).unwrap(), 0);
    let e = k.launch_auto(None, n, 0, &kernel_args![3.0f64, &x, &y, n]).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
    // the kernel may move to and run on another thread, with tensors sent there
    let (xs_, ys_) = (x.into_send().unwrap(), y.into_send().unwrap());
    let (got, y) = std::thread::scope(|s| {
        s.spawn(|| {
            let (x, y) = (xs_.into_tensor(), ys_.into_tensor());
            (k.launch_auto(None, n, 0, &kernel_args![1.0f64, &x, 0.0f64, &y, n]), y.into_send().unwrap())
        })
        .join()
        .unwrap()
    });
    assert_eq!(got.unwrap(), block);
    assert_eq!(y.into_tensor().to_vec::<f64>().unwrap(), xs);
}

#[test]
fn cuda_elementwise() {
    let _g = serial();
    let Some(ctx) = cuda_or_skip("cuda_elementwise") else { return };
    let k = ElementwiseKernel::new(&ctx, "float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)", Some("rust_fma_relu")).unwrap();
    assert_eq!(k.num_outputs(), 1);
    let (r, c) = (37usize, 19usize);
    let xs: Vec<f32> = (0..r * c).map(|i| (i as f32 - 300.0) * 0.25).collect();
    let ys: Vec<f32> = (0..c).map(|j| j as f32 - 9.0).collect();
    let x = Tensor::from_slice(&ctx, &[r as i64, c as i64], &xs).unwrap();
    let y = Tensor::from_slice(&ctx, &[c as i64], &ys).unwrap(); // broadcast over rows
    let want: Vec<f32> = (0..r * c).map(|i| xs[i] * ys[i % c] + xs[i].max(0.0)).collect();
    let z = k.call(&[&x, &y]).unwrap().remove(0);
    assert_eq!(z.shape(), [r as i64, c as i64]);
    assert_eq!(z.to_vec::<f32>().unwrap(), want);
    // a strided (transposed) input, into a given output on a stream
    let s = ek::Stream::new(&ctx).unwrap();
    let xt = x.transpose(0, 1).unwrap().contiguous().unwrap().transpose(0, 1).unwrap();
    let mut outs = [Some(Tensor::zeros(&ctx, &[r as i64, c as i64], DType::F32).unwrap())];
    let before = outs[0].as_ref().unwrap().as_raw();
    ctx.synchronize().unwrap();
    k.launch(Some(&s), &[&xt, &y], &mut outs).unwrap();
    s.synchronize().unwrap();
    assert_eq!(outs[0].as_ref().unwrap().as_raw(), before);
    assert_eq!(outs[0].as_ref().unwrap().to_vec::<f32>().unwrap(), want);
    // wrong dtype, wrong counts
    let xi = x.cast(DType::I32).unwrap();
    assert_eq!(k.call(&[&xi, &y]).unwrap_err().status, Status::DTYPE);
    assert!(k.call(&[&x]).is_err());
    let mut none = [None];
    assert!(k.launch(None, &[&x, &y, &y], &mut none).is_err());
    assert!(none[0].is_none(), "a failed launch left an output");
}

/// An image built ahead of time (tests/module_kernel.cu, built by meson; the
/// path in EK_TEST_FATBIN, as for the C and Python suites), and bad images.
#[test]
fn cuda_module_from_image() {
    let _g = serial();
    let Some(ctx) = cuda_or_skip("cuda_module_from_image") else { return };
    let e = Module::from_image(&ctx, b"this is neither PTX nor a cubin nor a fatbin").unwrap_err();
    assert_eq!(e.status, Status::DEVICE, "{e}");
    let e = Module::from_image(&ctx, &[]).unwrap_err();
    assert_eq!(e.status, Status::INVALID_ARGUMENT, "{e}");
    let Some(path) = std::env::var_os("EK_TEST_FATBIN") else {
        common::skip("cuda_module_from_image (fatbin part)", "set EK_TEST_FATBIN to build/tests/module_kernel.fatbin");
        return;
    };
    let mut image = std::fs::read(&path).unwrap();
    let m = Module::from_image(&ctx, &image).unwrap();
    image.fill(0); // loaded before the call returned
    assert_eq!(m.origin().unwrap(), ModuleOrigin::Image);
    let k = m.get_kernel("scale").unwrap(); // (unsigned long long n, float a, const float *x, float *y)
    let n = 777u64;
    let xs: Vec<f32> = (0..n).map(|i| i as f32 / 100.0 - 3.0).collect();
    let x = Tensor::from_slice(&ctx, &[n as i64], &xs).unwrap();
    let y = Tensor::zeros(&ctx, &[n as i64], DType::F32).unwrap();
    k.launch(None, [(n as u32).div_ceil(128), 1, 1], [128, 1, 1], 0, &kernel_args![n, -3.0f32, &x, &y]).unwrap();
    let got = y.to_vec::<f32>().unwrap();
    assert!(got.iter().zip(&xs).all(|(g, x)| *g == -3.0 * x));
}
