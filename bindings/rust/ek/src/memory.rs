//! The context's caching memory pool: statistics, limits, snapshots and raw
//! stream-ordered allocations.
use std::os::raw::c_void;

use ek_sys as sys;

use crate::context::Context;
use crate::error::{check, Result};
use crate::stream::{raw_stream, Stream};

/// Pool statistics (`ek_memory_stats`, the C struct itself: fields are
/// documented in `ek.h`).
pub type MemoryStats = sys::ek_memory_stats;

/// One block of a pool snapshot (`ek_memory_block`; `allocated` is 1 for a
/// live block, 0 for a cached free one).
pub type MemoryBlock = sys::ek_memory_block;

impl Context {
    /// Current pool statistics.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let before = ctx.memory_stats()?.allocated_bytes;
    /// let t = ek::Tensor::zeros(&ctx, &[1024], ek::DType::F32)?;
    /// assert!(ctx.memory_stats()?.allocated_bytes >= before + 4096);
    /// drop(t);
    /// assert_eq!(ctx.memory_stats()?.allocated_bytes, before);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn memory_stats(&self) -> Result<MemoryStats> {
        // SAFETY: POD out-parameter, live handle.
        let mut s: MemoryStats = unsafe { std::mem::zeroed() };
        check(unsafe { sys::ek_memory_stats_get(self.inner.raw, &mut s) })?;
        Ok(s)
    }

    /// Peaks restart from the current values.
    pub fn reset_peaks(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_memory_reset_peaks(self.inner.raw) })
    }

    /// Returns every cached, fully free segment to the device.
    pub fn empty_cache(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_memory_empty_cache(self.inner.raw) })
    }

    /// Limit on reserved bytes (0: none).
    pub fn set_limit(&self, bytes: u64) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_memory_set_limit(self.inner.raw, bytes) })
    }

    /// Limit as a fraction (0, 1] of the device's total memory.
    pub fn set_fraction(&self, fraction: f64) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_memory_set_fraction(self.inner.raw, fraction) })
    }

    /// Every block of the pool, segment by segment in address order.
    pub fn snapshot(&self) -> Result<Vec<MemoryBlock>> {
        loop {
            let mut count = 0usize;
            // SAFETY: sizing call with blocks NULL.
            check(unsafe { sys::ek_memory_snapshot(self.inner.raw, std::ptr::null_mut(), 0, &mut count) })?;
            let mut blocks: Vec<MemoryBlock> = Vec::with_capacity(count);
            let mut total = 0usize;
            // SAFETY: room for `count` blocks; the library writes at most capacity.
            check(unsafe { sys::ek_memory_snapshot(self.inner.raw, blocks.as_mut_ptr(), count, &mut total) })?;
            if total <= count {
                // SAFETY: the first `total` entries were written.
                unsafe { blocks.set_len(total) };
                return Ok(blocks);
            }
            // The pool grew between the two calls (another thread): retry.
        }
    }

    /// A raw stream-ordered allocation from the pool (`ek_malloc`), 512-byte
    /// aligned; device memory on CUDA, host memory on the CPU. `bytes == 0`
    /// gives a null pointer. Release with [`Context::free`].
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let p = ctx.malloc(1000, None)?;
    /// assert_eq!(p as usize % 512, 0);
    /// ctx.free(p, None)?;
    /// assert!(ctx.free(p, None).is_err()); // already freed: reported, nothing changes
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn malloc(&self, bytes: usize, stream: Option<&Stream>) -> Result<*mut c_void> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: live handles, valid out-parameter.
        check(unsafe { sys::ek_malloc(self.inner.raw, bytes, raw_stream(stream), &mut p) })?;
        Ok(p)
    }

    /// Returns a block from [`Context::malloc`] to the pool, ordered after the
    /// work already submitted to `stream`. An unknown or already-freed pointer
    /// is `Status::INVALID_ARGUMENT` and changes nothing.
    pub fn free(&self, ptr: *mut c_void, stream: Option<&Stream>) -> Result<()> {
        // SAFETY: the library validates ptr against its pool.
        check(unsafe { sys::ek_free(self.inner.raw, ptr, raw_stream(stream)) })
    }
}
