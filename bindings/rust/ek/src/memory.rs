//! The context's caching memory pool: statistics, limits, snapshots and raw
//! stream-ordered allocations.
use std::ffi::CString;
use std::os::raw::c_void;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use ek_sys as sys;

use crate::context::Context;
use crate::error::{check, Error, Result, Status};
use crate::sized::{filled, filled_vec};
use crate::stream::{raw_stream, Stream};

/// Pool statistics (`ek_memory_stats`, the C struct itself: fields are
/// documented in `ek.h`; `struct_size` is the binding's, set for the call).
pub type MemoryStats = sys::ek_memory_stats;

/// One block of a pool snapshot (`ek_memory_block`; `allocated` is 1 for a
/// live block, 0 for a cached free one; `struct_size` as in [`MemoryStats`]).
pub type MemoryBlock = sys::ek_memory_block;

impl Context {
    /// Current pool statistics (`ek_memory_get_stats`).
    pub fn memory_stats(&self) -> Result<MemoryStats> {
        let mut s: MemoryStats = filled();
        // SAFETY: live handle; out-parameter whose struct_size is set.
        check(unsafe { sys::ek_memory_get_stats(self.inner.raw, &mut s) })?;
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

    /// Every block of the pool, segment by segment in address order
    /// (`ek_memory_get_snapshot`).
    pub fn snapshot(&self) -> Result<Vec<MemoryBlock>> {
        loop {
            let mut count = 0usize;
            // SAFETY: sizing call with blocks NULL.
            check(unsafe { sys::ek_memory_get_snapshot(self.inner.raw, std::ptr::null_mut(), 0, &mut count) })?;
            let mut blocks: Vec<MemoryBlock> = filled_vec(count);
            let mut total = 0usize;
            // SAFETY: `count` blocks, struct_size set; the library writes at most capacity.
            check(unsafe { sys::ek_memory_get_snapshot(self.inner.raw, blocks.as_mut_ptr(), count, &mut total) })?;
            if total <= count {
                blocks.truncate(total);
                return Ok(blocks);
            }
            // The pool grew between the two calls (another thread): retry.
        }
    }

    /// Writes the pool's segments, blocks and statistics of one moment as
    /// JSON to `path` (`ek_memory_write_snapshot_json`; the format is in `ek.h`),
    /// replacing any file there atomically; `Status::IO` naming the path when
    /// it cannot be written. `scripts/plot_memory.py` draws the file.
    pub fn memory_snapshot_json(&self, path: impl AsRef<Path>) -> Result<()> {
        let c = CString::new(path.as_ref().as_os_str().as_bytes())
            .map_err(|_| Error::new(Status::INVALID_ARGUMENT, "ek (Rust): path contains a NUL byte"))?;
        // SAFETY: live handle, NUL-terminated path.
        check(unsafe { sys::ek_memory_write_snapshot_json(self.inner.raw, c.as_ptr()) })
    }

    /// The same JSON text as [`Context::memory_snapshot_json`] writes
    /// (`ek_memory_get_snapshot_json`).
    pub fn memory_snapshot_json_string(&self) -> Result<String> {
        let mut length = 0usize;
        // SAFETY: sizing call with buffer NULL and capacity 0.
        check(unsafe { sys::ek_memory_get_snapshot_json(self.inner.raw, std::ptr::null_mut(), 0, &mut length) })?;
        loop {
            // Slack for blocks other threads add between the two calls.
            let mut buf = vec![0u8; length + 4096];
            // SAFETY: the library writes at most buf.len() bytes, NUL included.
            check(unsafe {
                sys::ek_memory_get_snapshot_json(self.inner.raw, buf.as_mut_ptr().cast(), buf.len(), &mut length)
            })?;
            if length < buf.len() {
                buf.truncate(length);
                return String::from_utf8(buf)
                    .map_err(|_| Error::new(Status::INTERNAL, "ek (Rust): the snapshot JSON is not UTF-8"));
            }
        }
    }

    /// A raw stream-ordered allocation from the pool (`ek_malloc`), 512-byte
    /// aligned; device memory on CUDA, host memory on the CPU. `bytes == 0`
    /// gives a null pointer. Release with [`Context::free`].
    pub fn malloc(&self, bytes: usize, stream: Option<&Stream>) -> Result<*mut c_void> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: live handles, valid out-parameter.
        check(unsafe { sys::ek_malloc(raw_stream(stream), self.inner.raw, bytes, &mut p) })?;
        if !p.is_null() {
            self.inner.blocks.lock().unwrap_or_else(|e| e.into_inner()).insert(p as usize);
        }
        Ok(p)
    }

    /// Returns a block from [`Context::malloc`] to the pool, ordered after the
    /// work already submitted to `stream`. Any other pointer (already freed,
    /// another context's, a tensor's storage) is `Status::INVALID_ARGUMENT`
    /// and changes nothing; null is a no-op.
    // ptr is only looked up, never dereferenced: a safe fn.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn free(&self, ptr: *mut c_void, stream: Option<&Stream>) -> Result<()> {
        // Held across ek_free, so that a malloc returning the same address
        // again records it only after this free removed it.
        let mut blocks = self.inner.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if !ptr.is_null() && !blocks.contains(&(ptr as usize)) {
            return Err(Error::new(
                Status::INVALID_ARGUMENT,
                format!("ek::Context::free: {ptr:p} is not a live block from Context::malloc of this context"),
            ));
        }
        // SAFETY: live handles; ptr is NULL or a live block of this context.
        check(unsafe { sys::ek_free(raw_stream(stream), self.inner.raw, ptr) })?;
        blocks.remove(&(ptr as usize));
        Ok(())
    }
    /// Declares that the block at `ptr` (from [`Context::malloc`]) is also
    /// used on `stream`: its reuse after [`Context::free`] waits for that
    /// stream's work too (`ek_record_stream`). An unknown pointer is an error.
    // ptr is only looked up in the pool, never dereferenced: a safe fn.
    #[allow(clippy::not_unsafe_ptr_arg_deref)]
    pub fn record_stream(&self, ptr: *mut c_void, stream: &Stream) -> Result<()> {
        // SAFETY: live handles; the library validates ptr against its pool.
        check(unsafe { sys::ek_record_stream(stream.as_raw(), self.inner.raw, ptr) })
    }

    /// Copies `bytes` bytes from `src` to `dst` (the order of
    /// `std::ptr::copy_nonoverlapping` and of `ek_memcpy`) between any mix of
    /// host memory and this context's device memory, ordered on `stream`; a
    /// plain memcpy on CPU contexts.
    ///
    /// # Safety
    /// `src` must be readable and `dst` writable for `bytes` bytes until the
    /// copy has completed (synchronize the stream before touching them), and
    /// they must not overlap.
    pub unsafe fn memcpy(&self, src: *const c_void, dst: *mut c_void, bytes: usize, stream: Option<&Stream>) -> Result<()> {
        check(sys::ek_memcpy(raw_stream(stream), self.inner.raw, src, dst, bytes))
    }

    /// Calls `f(event, bytes)` when an allocation cannot be served (before the
    /// pool's final retry: `f` may free memory) and when reserved memory rises
    /// past `threshold_bytes` (0: never) (`ek_memory_set_callback`). `f` runs
    /// on the allocating thread; a panic in it is caught and discarded.
    /// Replaces any previous callback.
    pub fn set_memory_callback<F>(&self, threshold_bytes: u64, f: F) -> Result<()>
    where
        F: Fn(MemoryEvent, u64) + Send + Sync + 'static,
    {
        let cb: Box<MemoryCallback> = Box::new(Box::new(f));
        let user = &*cb as *const MemoryCallback as *mut c_void;
        let mut all = self.inner.callbacks.lock().map_err(|_| Error::new(Status::INTERNAL, "ek: callback lock poisoned"))?;
        // SAFETY: live handle; `user` points into a box kept until the context
        // is destroyed, and the trampoline matches ek_memory_callback.
        check(unsafe { sys::ek_memory_set_callback(self.inner.raw, Some(memory_trampoline), user, threshold_bytes) })?;
        all.push(cb);
        Ok(())
    }

    /// Removes the memory callback.
    pub fn clear_memory_callback(&self) -> Result<()> {
        // SAFETY: live handle; a NULL callback clears.
        check(unsafe { sys::ek_memory_set_callback(self.inner.raw, None, std::ptr::null_mut(), 0) })
    }
}

/// A boxed memory callback (see [`Context::set_memory_callback`]).
pub(crate) type MemoryCallback = Box<dyn Fn(MemoryEvent, u64) + Send + Sync>;

/// Why a memory callback runs (`ek_memory_event`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MemoryEvent {
    /// An allocation could not be served; `bytes` is the request. The pool
    /// retries once after the callback.
    OutOfMemory,
    /// Reserved memory rose past the threshold; `bytes` is the reserved total.
    Threshold,
    /// A code this binding does not know (from a newer library).
    Unknown(u32),
}

unsafe extern "C" fn memory_trampoline(_ctx: sys::ek_context, event: sys::ek_memory_event, bytes: u64, user: *mut c_void) {
    let ev = match event {
        sys::ek_memory_event::EK_MEMORY_EVENT_OOM => MemoryEvent::OutOfMemory,
        sys::ek_memory_event::EK_MEMORY_EVENT_THRESHOLD => MemoryEvent::Threshold,
        other => MemoryEvent::Unknown(other.0),
    };
    // SAFETY: user is the MemoryCallback registered with this trampoline,
    // alive until the context is destroyed.
    let f = unsafe { &*(user as *const MemoryCallback) };
    // A panic must not unwind into C.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(ev, bytes)));
}
