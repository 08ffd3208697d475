//! Contexts: one device with its memory pool, default stream and caches.
use std::ffi::{CStr, CString};
use std::path::PathBuf;
use std::sync::Arc;

use ek_sys as sys;

use crate::device::Device;
use crate::error::{check, discard, Error, Result, Status};
use crate::generated::{Fusion, IndexCheck, LogLevel};
use crate::sized::filled;
use crate::stream::Stream;

/// Owns an `ek_context`. Every handle made from the context (tensors, streams,
/// events) holds an `Arc` to it, so `ek_context_destroy` runs only after they
/// are all released — the one condition under which the C library refuses.
pub(crate) struct ContextInner {
    pub(crate) raw: sys::ek_context,
    /// Every memory callback ever registered (see `Context::set_memory_callback`):
    /// the library may still be running a replaced one on another thread, so
    /// they are freed only with the context, after `ek_context_destroy`. Boxed
    /// twice: the library holds the address of each (fat) callback pointer,
    /// which must not move when the Vec grows.
    #[allow(clippy::vec_box)]
    pub(crate) callbacks: std::sync::Mutex<Vec<Box<crate::memory::MemoryCallback>>>,
    /// The blocks `Context::malloc` returned and `Context::free` has not
    /// freed: `free` takes only these, since the pool would also free a
    /// tensor's storage (whose pointer safe code can get) and hand it out again.
    pub(crate) blocks: std::sync::Mutex<std::collections::HashSet<usize>>,
}

// SAFETY: the C library takes locks around its pool and callback state and
// makes the context's device current in every call (DESIGN.md, BINDINGS.md):
// a context may be used and destroyed from any thread.
unsafe impl Send for ContextInner {}
unsafe impl Sync for ContextInner {}

impl Drop for ContextInner {
    /// Destroys the context; never panics. A failure is ignored: `Drop`
    /// cannot return it, panicking here could abort the process, and keeping it
    /// for a later call would report it against an unrelated operation. It can
    /// only happen when handles of the context were made behind this crate's
    /// back (through `ek::sys`) and are still alive; the context then leaks,
    /// and so do its memory callbacks, which it may still call.
    fn drop(&mut self) {
        // SAFETY: raw came from ek_context_create and is destroyed once.
        let st = unsafe { sys::ek_context_destroy(self.raw) };
        if st != sys::ek_status::EK_SUCCESS {
            if let Ok(cbs) = self.callbacks.get_mut() {
                std::mem::forget(std::mem::take(cbs));
            }
        }
        discard(st);
    }
}

/// A libek context on one device. Cheap to clone (shared ownership); the C
/// context is destroyed when the last clone and the last tensor, stream and
/// event made from it are dropped.
///
/// ```
/// let ctx = ek::Context::new(ek::Device::Cpu)?;
/// assert_eq!(ctx.device()?, ek::Device::Cpu);
/// # Ok::<(), ek::Error>(())
/// ```
#[derive(Clone)]
pub struct Context {
    pub(crate) inner: Arc<ContextInner>,
}

impl Context {
    /// A context with the default configuration (environment variables apply).
    pub fn new(device: Device) -> Result<Context> {
        Self::create(device, None)
    }

    /// A context with explicit options, which win over the environment.
    ///
    /// ```
    /// let cfg = ek::ContextConfig::new().memory_limit(64 << 20).log_level(ek::LogLevel::Warn);
    /// let ctx = ek::Context::with_config(ek::Device::Cpu, &cfg)?;
    /// assert_eq!(ctx.config()?.memory_limit, Some(64 << 20));
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn with_config(device: Device, config: &ContextConfig) -> Result<Context> {
        Self::create(device, Some(config))
    }

    fn create(device: Device, config: Option<&ContextConfig>) -> Result<Context> {
        let dir = match config.and_then(|c| c.kernel_cache_dir.as_ref()) {
            Some(p) => Some(CString::new(p.to_string_lossy().into_owned()).map_err(|_| {
                Error::new(Status::INVALID_ARGUMENT, "ek (Rust): kernel_cache_dir contains a NUL byte")
            })?),
            None => None,
        };
        let raw_cfg = match config {
            Some(c) => {
                let mut r: sys::ek_context_config = filled();
                // SAFETY: valid out-parameter whose struct_size is set.
                check(unsafe { sys::ek_context_config_init(&mut r) })?;
                if let Some(v) = c.memory_limit {
                    r.memory_limit = v;
                }
                if let Some(v) = c.memory_fraction {
                    r.memory_fraction = v;
                }
                r.allow_tf32 = c.allow_tf32 as i32;
                if let Some(d) = &dir {
                    r.kernel_cache_dir = d.as_ptr();
                }
                if let Some(l) = c.log_level {
                    r.log_level = l.to_raw();
                }
                if let Some(n) = c.num_threads {
                    r.num_threads = i64::from(n);
                }
                if let Some(m) = c.index_check {
                    r.index_check = i64::from(m.to_raw().0);
                }
                if let Some(m) = c.fusion {
                    r.fusion = i64::from(m.to_raw().0);
                }
                if let Some(n) = c.fusion_max_kernels {
                    r.fusion_max_kernels = n;
                }
                Some(r)
            }
            None => None,
        };
        let cfg_ptr = raw_cfg.as_ref().map_or(std::ptr::null(), |r| r as *const _);
        let mut raw: sys::ek_context = std::ptr::null_mut();
        // SAFETY: cfg_ptr is NULL or points at a config whose string (dir)
        // outlives the call; the library copies it.
        check(unsafe { sys::ek_context_create(device.to_raw(), cfg_ptr, &mut raw) })?;
        Ok(Context { inner: Arc::new(ContextInner { raw, callbacks: Default::default(), blocks: Default::default() }) })
    }

    /// The raw handle, borrowed: valid while `self` lives.
    pub fn as_raw(&self) -> sys::ek_context {
        self.inner.raw
    }

    /// The context's device.
    pub fn device(&self) -> Result<Device> {
        let mut d = sys::ek_device { type_: sys::ek_device_type::EK_CPU, index: 0 };
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_context_get_device(self.inner.raw, &mut d) })?;
        Device::from_raw(d)
    }

    /// The effective configuration, after environment and defaults applied.
    pub fn config(&self) -> Result<ContextConfig> {
        let mut r: sys::ek_context_config = filled();
        // SAFETY: live handle; out-parameter whose struct_size is set.
        check(unsafe { sys::ek_context_get_config(self.inner.raw, &mut r) })?;
        let dir = if r.kernel_cache_dir.is_null() {
            None
        } else {
            // SAFETY: borrowed from the live context; copied at once.
            Some(PathBuf::from(unsafe { CStr::from_ptr(r.kernel_cache_dir) }.to_string_lossy().into_owned()))
        };
        Ok(ContextConfig {
            memory_limit: (r.memory_limit != 0).then_some(r.memory_limit),
            memory_fraction: (r.memory_fraction != 0.0).then_some(r.memory_fraction),
            allow_tf32: r.allow_tf32 != 0,
            kernel_cache_dir: dir,
            log_level: LogLevel::from_raw(r.log_level).filter(|l| *l != LogLevel::Off),
            num_threads: Some(i32::try_from(r.num_threads).unwrap_or(i32::MAX)),
            index_check: u32::try_from(r.index_check).ok().and_then(|v| IndexCheck::from_raw(sys::ek_index_check(v))),
            fusion: u32::try_from(r.fusion).ok().and_then(|v| Fusion::from_raw(sys::ek_fusion(v))),
            fusion_max_kernels: Some(r.fusion_max_kernels),
        })
    }

    /// Waits for all work on all streams of the context.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_context_synchronize(self.inner.raw) })
    }

    /// The context's default stream (borrowed from the context: dropping the
    /// returned `Stream` does not destroy it).
    pub fn default_stream(&self) -> Result<Stream> {
        let mut s: sys::ek_stream = std::ptr::null_mut();
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_context_get_default_stream(self.inner.raw, &mut s) })?;
        Ok(Stream::from_raw(self, s, false))
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("raw", &self.inner.raw).field("device", &self.device().ok()).finish()
    }
}

/// Options for [`Context::with_config`] (`ek_context_config`). Unset fields
/// fall back to the environment (`EK_MEMORY_LIMIT`, `EK_MEMORY_FRACTION`,
/// `EK_KERNEL_CACHE_DIR`, `EK_LOG_LEVEL`, `EK_NUM_THREADS`), then to the defaults. In C, 0
/// means "not set", so `LogLevel::Off` cannot override `EK_LOG_LEVEL`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContextConfig {
    /// Pool limit in bytes.
    pub memory_limit: Option<u64>,
    /// Pool limit as a fraction (0, 1] of device memory.
    pub memory_fraction: Option<f64>,
    /// float32 matrix products may use TF32.
    pub allow_tf32: bool,
    /// Directory of the compiled-kernel cache.
    pub kernel_cache_dir: Option<PathBuf>,
    pub log_level: Option<LogLevel>,
    /// CPU contexts: threads for large ops, 1 to 1024 (0 or unset: one per
    /// hardware thread). Results do not depend on it. `Context::config`
    /// reports the count in use.
    pub num_threads: Option<i32>,
    /// When a CUDA gather reports an index out of range: at the stream's next
    /// synchronization (`IndexCheck::Deferred`, CUDA's default) or at the call
    /// (`IndexCheck::AtCall`, always so on the CPU).
    pub index_check: Option<IndexCheck>,
    /// Automatic fusion of elementwise chains (`EK_FUSION`; default off).
    pub fusion: Option<Fusion>,
    /// Distinct fused kernels the context may compile (`EK_FUSION_MAX_KERNELS`; default 256).
    pub fusion_max_kernels: Option<i64>,
}

impl ContextConfig {
    pub fn new() -> ContextConfig {
        ContextConfig::default()
    }
    pub fn memory_limit(mut self, bytes: u64) -> Self {
        self.memory_limit = Some(bytes);
        self
    }
    pub fn memory_fraction(mut self, fraction: f64) -> Self {
        self.memory_fraction = Some(fraction);
        self
    }
    pub fn allow_tf32(mut self, allow: bool) -> Self {
        self.allow_tf32 = allow;
        self
    }
    pub fn kernel_cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.kernel_cache_dir = Some(dir.into());
        self
    }
    pub fn log_level(mut self, level: LogLevel) -> Self {
        self.log_level = Some(level);
        self
    }
    pub fn num_threads(mut self, threads: i32) -> Self {
        self.num_threads = Some(threads);
        self
    }
    pub fn index_check(mut self, mode: IndexCheck) -> Self {
        self.index_check = Some(mode);
        self
    }
    pub fn fusion(mut self, mode: Fusion) -> Self {
        self.fusion = Some(mode);
        self
    }
    pub fn fusion_max_kernels(mut self, n: i64) -> Self {
        self.fusion_max_kernels = Some(n);
        self
    }
}
