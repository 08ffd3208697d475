//! Streams (ordered queues of work) and events (points in a stream).
use std::os::raw::c_void;
use std::sync::Arc;

use ek_sys as sys;

use crate::context::{Context, ContextInner};
use crate::error::{check, discard, Result};

/// A stream of a context (`ek_stream`). On CUDA a non-blocking
/// `cudaStream_t`; on the CPU work runs synchronously on the calling thread.
///
/// ```
/// let ctx = ek::Context::new(ek::Device::Cpu)?;
/// let s = ek::Stream::new(&ctx)?;
/// let t = ek::Tensor::from_slice_on(&ctx, &[3], &[1i32, 2, 3], &s)?;
/// s.synchronize()?;
/// assert!(s.query()?);
/// assert_eq!(t.to_vec_on::<i32>(&s)?, [1, 2, 3]);
/// # Ok::<(), ek::Error>(())
/// ```
pub struct Stream {
    raw: sys::ek_stream,
    owned: bool,
    _ctx: Arc<ContextInner>,
}

// SAFETY: stream handles may be used from any thread (the library makes the
// device current on each call); the Arc keeps the context alive.
unsafe impl Send for Stream {}
unsafe impl Sync for Stream {}

pub(crate) fn raw_stream(s: Option<&Stream>) -> sys::ek_stream {
    s.map_or(std::ptr::null_mut(), |s| s.raw)
}

impl Stream {
    pub(crate) fn from_raw(ctx: &Context, raw: sys::ek_stream, owned: bool) -> Stream {
        Stream { raw, owned, _ctx: ctx.inner.clone() }
    }

    /// A new stream of the context (`ek_stream_create`).
    pub fn new(ctx: &Context) -> Result<Stream> {
        let mut raw: sys::ek_stream = std::ptr::null_mut();
        // SAFETY: live context, valid out-parameter.
        check(unsafe { sys::ek_stream_create(ctx.inner.raw, &mut raw) })?;
        Ok(Stream::from_raw(ctx, raw, true))
    }

    /// Wraps an existing `cudaStream_t` without taking ownership: dropping the
    /// `Stream` leaves the native stream alive (`ek_stream_wrap`). `native` may
    /// be null for the legacy default stream. CUDA contexts only.
    ///
    /// # Safety
    /// `native` must be null or a valid `cudaStream_t` of the context's device
    /// that outlives the returned `Stream` and all work submitted to it.
    pub unsafe fn wrap(ctx: &Context, native: *mut c_void) -> Result<Stream> {
        let mut raw: sys::ek_stream = std::ptr::null_mut();
        check(sys::ek_stream_wrap(ctx.inner.raw, native, &mut raw))?;
        Ok(Stream::from_raw(ctx, raw, true))
    }

    /// The context the stream belongs to (the one it keeps alive).
    pub fn context(&self) -> Context {
        Context { inner: self._ctx.clone() }
    }

    /// The raw handle, borrowed: valid while `self` lives.
    pub fn as_raw(&self) -> sys::ek_stream {
        self.raw
    }

    /// Waits until all work submitted to the stream has completed.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_stream_synchronize(self.raw) })
    }

    /// `true` when all work submitted to the stream has completed.
    pub fn query(&self) -> Result<bool> {
        let mut done = 0;
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_stream_query(self.raw, &mut done) })?;
        Ok(done != 0)
    }

    /// Later work on this stream waits for `event` (no host wait).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_stream_wait_event(self.raw, event.raw) })
    }

    /// The native handle: a `cudaStream_t` on CUDA, null on the CPU. Borrowed
    /// (`ek_stream_get_native`).
    pub fn native(&self) -> Result<*mut c_void> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_stream_get_native(self.raw, &mut p) })?;
        Ok(p)
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream").field("raw", &self.raw).field("owned", &self.owned).finish()
    }
}

impl Drop for Stream {
    /// Destroys a stream this binding created or wrapped, after its pending
    /// work; the default stream is borrowed and left alone. Never panics; a
    /// failure cannot be reported from `Drop` and is discarded.
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: created or wrapped by us, destroyed once.
            discard(unsafe { sys::ek_stream_destroy(self.raw) });
        }
    }
}

/// An event with timing enabled (`ek_event`).
pub struct Event {
    raw: sys::ek_event,
    _ctx: Arc<ContextInner>,
}

// SAFETY: as for Stream.
unsafe impl Send for Event {}
unsafe impl Sync for Event {}

impl Event {
    /// A new event of the context (`ek_event_create`).
    pub fn new(ctx: &Context) -> Result<Event> {
        let mut raw: sys::ek_event = std::ptr::null_mut();
        // SAFETY: live context, valid out-parameter.
        check(unsafe { sys::ek_event_create(ctx.inner.raw, &mut raw) })?;
        Ok(Event { raw, _ctx: ctx.inner.clone() })
    }

    /// The raw handle, borrowed: valid while `self` lives.
    pub fn as_raw(&self) -> sys::ek_event {
        self.raw
    }

    /// Captures the work submitted to `stream` so far (`None`: default stream).
    pub fn record(&self, stream: Option<&Stream>) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_event_record(raw_stream(stream), self.raw) })
    }

    /// Waits until the captured work has completed.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_event_synchronize(self.raw) })
    }

    /// `true` when the captured work has completed (also for a never-recorded event).
    pub fn query(&self) -> Result<bool> {
        let mut done = 0;
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_event_query(self.raw, &mut done) })?;
        Ok(done != 0)
    }

    /// Milliseconds from this event to `end`; `Status::NOT_READY` if either
    /// has not completed (`ek_event_get_elapsed_ms`).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        let mut ms = 0f32;
        // SAFETY: live handles, valid out-parameter.
        check(unsafe { sys::ek_event_get_elapsed_ms(self.raw, end.raw, &mut ms) })?;
        Ok(ms)
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event").field("raw", &self.raw).finish()
    }
}

impl Drop for Event {
    /// Destroys the event; never panics (a failure is discarded, see `Stream`).
    fn drop(&mut self) {
        // SAFETY: created by us, destroyed once.
        discard(unsafe { sys::ek_event_destroy(self.raw) });
    }
}
