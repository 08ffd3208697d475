//! Automatic fusion of elementwise chains (`ek.h`, the fusion section): the
//! per-stream switch, explicit evaluation and the context's counters. The
//! context-wide switch is [`ContextConfig::fusion`](crate::ContextConfig).
use crate::error::{check, Result};
use crate::generated::Fusion;
use crate::sized::{filled, StructSize};
use crate::{sys, Context, Stream, Tensor};

/// Fusion counters of a context (`ek_fusion_stats`, the C struct itself:
/// fields are documented in `ek.h`).
pub type FusionStats = sys::ek_fusion_stats;

// SAFETY: bindgen's plain C struct of integers: zero is a valid value.
unsafe impl StructSize for sys::ek_fusion_stats {
    fn set_struct_size(&mut self, n: usize) {
        self.struct_size = n;
    }
}

impl Stream {
    /// Fusion for ops called on this stream: `Some(mode)`, or `None` to
    /// follow the context. Turning it off evaluates the pending group first.
    pub fn set_fusion(&self, mode: Option<Fusion>) -> Result<()> {
        let raw = mode.map_or(sys::ek_fusion(0), Fusion::to_raw);
        // SAFETY: live handle.
        check(unsafe { sys::ek_stream_set_fusion(self.as_raw(), raw) })
    }

    /// The stream's override (`None`: it follows the context).
    pub fn fusion(&self) -> Result<Option<Fusion>> {
        let mut raw = sys::ek_fusion(0);
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_stream_get_fusion(self.as_raw(), &mut raw) })?;
        Ok(Fusion::from_raw(raw))
    }

    /// Evaluates the stream's pending fusion group now (in stream order).
    pub fn flush(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_stream_flush(self.as_raw()) })
    }
}

impl Tensor {
    /// Produces the contents now if a fusion group holds them pending
    /// (asynchronously, on the group's stream).
    pub fn eval(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_tensor_eval(self.as_raw()) })
    }
}

impl Context {
    /// The context's fusion counters since its creation.
    pub fn fusion_stats(&self) -> Result<FusionStats> {
        let mut s: FusionStats = filled();
        // SAFETY: live handle; out-parameter whose struct_size is set.
        check(unsafe { sys::ek_context_get_fusion_stats(self.as_raw(), &mut s) })?;
        Ok(s)
    }
}
