//! CUDA graphs (ek.h's graphs section): capture the work of a stream once,
//! replay it with one launch. On the CPU backend capture is
//! `Status::NotSupported` (work runs when called).
use std::sync::Arc;

use ek_sys as sys;

use crate::context::{Context, ContextInner};
use crate::error::{check, discard, Result};
use crate::memory::MemoryStats;
use crate::sized::filled;
use crate::stream::{raw_stream, Stream};

/// Which other calls CUDA refuses while a capture runs (`cudaStreamCaptureMode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CaptureMode {
    /// Potentially unsafe calls (allocation, synchronization) from any thread.
    Global,
    /// Potentially unsafe calls from the capturing thread only.
    ThreadLocal,
    /// No call is refused.
    Relaxed,
}

impl CaptureMode {
    fn raw(self) -> sys::ek_capture_mode {
        match self {
            CaptureMode::Global => sys::ek_capture_mode::EK_CAPTURE_GLOBAL,
            CaptureMode::ThreadLocal => sys::ek_capture_mode::EK_CAPTURE_THREAD_LOCAL,
            CaptureMode::Relaxed => sys::ek_capture_mode::EK_CAPTURE_RELAXED,
        }
    }
}

/// A pool that captures may share (`ek_graph_pool`, as
/// `torch.cuda.graph_pool_handle`): graphs captured into one pool must be
/// replayed in the order they were captured. CUDA contexts only.
pub struct GraphPool {
    raw: sys::ek_graph_pool,
    _ctx: Arc<ContextInner>,
}

// SAFETY: the library synchronizes graph pools inside; the Arc keeps the context alive.
unsafe impl Send for GraphPool {}
unsafe impl Sync for GraphPool {}

impl GraphPool {
    /// A new graph pool of the context (`ek_graph_pool_create`).
    pub fn new(ctx: &Context) -> Result<GraphPool> {
        let mut raw: sys::ek_graph_pool = std::ptr::null_mut();
        // SAFETY: live context, valid out-parameter.
        check(unsafe { sys::ek_graph_pool_create(ctx.inner.raw, &mut raw) })?;
        Ok(GraphPool { raw, _ctx: ctx.inner.clone() })
    }

    /// The pool's counters, as [`Context::memory_stats`] gives the context pool's.
    pub fn stats(&self) -> Result<MemoryStats> {
        let mut s: MemoryStats = filled();
        // SAFETY: live handle; out-parameter whose struct_size is set.
        check(unsafe { sys::ek_graph_pool_get_stats(self.raw, &mut s) })?;
        Ok(s)
    }
}

impl std::fmt::Debug for GraphPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphPool").field("raw", &self.raw).finish()
    }
}

impl Drop for GraphPool {
    /// Drops the handle; the memory lives on while graphs or tensors use it.
    fn drop(&mut self) {
        // SAFETY: created by us, destroyed once.
        discard(unsafe { sys::ek_graph_pool_destroy(self.raw) });
    }
}

/// A captured, instantiated graph (`ek_graph`).
///
/// ```no_run
/// let ctx = ek::Context::new(ek::Device::Cuda(0))?;
/// let s = ek::Stream::new(&ctx)?;
/// let x = ek::Tensor::from_slice_on(&ctx, &[3], &[1f32, 2., 3.], &s)?;
/// let mut y = None;
/// let g = s.capture(None, ek::CaptureMode::Global, |st| {
///     y = Some(x.unary_on(ek::UnaryOp::Exp, st, None)?);
///     Ok(())
/// })?;
/// g.launch(Some(&s))?;
/// # Ok::<(), ek::Error>(())
/// ```
pub struct Graph {
    raw: sys::ek_graph,
    _ctx: Arc<ContextInner>,
}

// SAFETY: graph handles may be launched from any thread; the Arc keeps the context alive.
unsafe impl Send for Graph {}
unsafe impl Sync for Graph {}

impl Graph {
    /// Replays the graph on `stream` (None: the context's default stream).
    pub fn launch(&self, stream: Option<&Stream>) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_graph_launch(raw_stream(stream), self.raw) })
    }

    /// Uploads the graph ahead of its first launch (optional).
    pub fn upload(&self, stream: Option<&Stream>) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_graph_upload(raw_stream(stream), self.raw) })
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph").field("raw", &self.raw).finish()
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        // SAFETY: made by ek_graph_capture_end, destroyed once.
        discard(unsafe { sys::ek_graph_destroy(self.raw) });
    }
}

impl Stream {
    /// Begins a capture on this stream (`ek_graph_capture_begin`); `pool`
    /// None gives the graph a pool of its own. End it with [`Stream::capture_end`].
    pub fn capture_begin(&self, pool: Option<&GraphPool>, mode: CaptureMode) -> Result<()> {
        let p = pool.map_or(std::ptr::null_mut(), |p| p.raw);
        // SAFETY: live handles.
        check(unsafe { sys::ek_graph_capture_begin(self.as_raw(), p, mode.raw()) })
    }

    /// Ends the capture begun on this stream and instantiates the graph.
    pub fn capture_end(&self) -> Result<Graph> {
        let mut raw: sys::ek_graph = std::ptr::null_mut();
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_graph_capture_end(self.as_raw(), &mut raw) })?;
        Ok(Graph { raw, _ctx: self.context().inner })
    }

    /// Captures the work `body` enqueues on this stream into a graph (ops
    /// reach it through their `_on` forms; the plain forms run on the
    /// context's default stream, which is captured only when `self` is it).
    /// The capture is ended even when `body` fails (its error is returned then).
    pub fn capture<F>(&self, pool: Option<&GraphPool>, mode: CaptureMode, body: F) -> Result<Graph>
    where
        F: FnOnce(&Stream) -> Result<()>,
    {
        self.capture_begin(pool, mode)?;
        let ran = body(self);
        let graph = self.capture_end();
        ran?;
        graph
    }

    /// `true` while this stream captures a graph, its own or one it joined.
    pub fn is_capturing(&self) -> Result<bool> {
        let mut c = 0;
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_stream_is_capturing(self.as_raw(), &mut c) })?;
        Ok(c != 0)
    }
}
