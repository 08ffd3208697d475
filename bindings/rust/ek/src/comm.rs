//! NCCL communicators and collectives on tensors (`ek_comm_*` of `ek.h`).
//!
//! One process per GPU: rank 0 makes a [`UniqueId`] and sends its 128 bytes
//! to the others by any channel; each calls [`Comm::init_rank`]. One process
//! with several GPUs: [`Comm::init_all`], driving the ranks inside [`group`].
//! NCCL is loaded at run time (`EK_NCCL_LIBRARY` overrides the file); without
//! it the calls fail with [`Status::LIBRARY`](crate::Status::LIBRARY),
//! "NCCL not found (...)". A step that outlives the timeout aborts the
//! communicator and fails with [`Status::TIMEOUT`](crate::Status::TIMEOUT).
use std::sync::Arc;
use std::time::Duration;

use ek_sys as sys;

use crate::context::{Context, ContextInner};
use crate::error::{check, discard, Result};
use crate::stream::{raw_stream, Stream};
use crate::{ReduceOp, Tensor};

/// NCCL's unique id: plain bytes to pass to every rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniqueId(pub [u8; 128]);

impl UniqueId {
    /// A new id (`ek_comm_get_unique_id`).
    pub fn new() -> Result<UniqueId> {
        let mut id = sys::ek_comm_unique_id { internal: [0; 128] };
        // SAFETY: valid out-parameter.
        check(unsafe { sys::ek_comm_get_unique_id(&mut id) })?;
        Ok(UniqueId(id.internal.map(|c| c as u8)))
    }

    fn to_sys(self) -> sys::ek_comm_unique_id {
        sys::ek_comm_unique_id { internal: self.0.map(|b| b as std::os::raw::c_char) }
    }
}

fn config(timeout: Option<Duration>) -> sys::ek_comm_config {
    let ms = timeout.map_or(0, |t| t.as_millis().clamp(1, i64::MAX as u128) as i64);
    sys::ek_comm_config { struct_size: std::mem::size_of::<sys::ek_comm_config>(), timeout_ms: ms, blocking: 0 }
}

/// One rank of a communicator on a CUDA context (`ek_comm`); destroyed on drop.
pub struct Comm {
    raw: sys::ek_comm,
    ctx: Arc<ContextInner>,
}

impl std::fmt::Debug for Comm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Comm({:p})", self.raw)
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        // SAFETY: owned handle, destroyed once.
        discard(unsafe { sys::ek_comm_destroy(self.raw) });
    }
}

/// Runs `f` between `ek_comm_group_start` and `_end`: its collectives are
/// fused into one launch (needed when one thread drives several ranks).
pub fn group<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    // SAFETY: no arguments.
    check(unsafe { sys::ek_comm_group_start() })?;
    let r = f();
    // SAFETY: closes the group opened above, whatever f returned.
    let end = check(unsafe { sys::ek_comm_group_end() });
    let r = r?;
    end.map(|()| r)
}

impl Comm {
    /// Rank `rank` of `nranks` of the communicator `id`, on `ctx`'s device;
    /// `timeout` None: `EK_COMM_TIMEOUT_MS` or 10 minutes.
    pub fn init_rank(ctx: &Context, nranks: i32, id: &UniqueId, rank: i32, timeout: Option<Duration>) -> Result<Comm> {
        let mut raw: sys::ek_comm = std::ptr::null_mut();
        let (id, cfg) = (id.to_sys(), config(timeout));
        // SAFETY: live context, valid pointers for the call.
        check(unsafe { sys::ek_comm_init_rank(ctx.inner.raw, nranks, &id, rank, &cfg, &mut raw) })?;
        Ok(Comm { raw, ctx: ctx.inner.clone() })
    }

    /// One communicator over `ctxs` (distinct CUDA devices): element i is rank i.
    pub fn init_all(ctxs: &[&Context], timeout: Option<Duration>) -> Result<Vec<Comm>> {
        let raws: Vec<sys::ek_context> = ctxs.iter().map(|c| c.inner.raw).collect();
        let mut comms = vec![std::ptr::null_mut(); ctxs.len()];
        let n = crate::tensor::len_i32(ctxs.len())?;
        let cfg = config(timeout);
        // SAFETY: n live contexts and n out-slots.
        check(unsafe { sys::ek_comm_init_all(n, raws.as_ptr(), &cfg, comms.as_mut_ptr()) })?;
        Ok(comms.into_iter().zip(ctxs).map(|(raw, c)| Comm { raw, ctx: c.inner.clone() }).collect())
    }

    /// The communicator of the ranks passing the same color, ordered by key;
    /// `None` for color `None` (this rank joins none). Every rank calls it.
    pub fn split(&self, color: Option<i32>, key: i32) -> Result<Option<Comm>> {
        let mut raw: sys::ek_comm = std::ptr::null_mut();
        let c = color.unwrap_or(sys::EK_COMM_SPLIT_NOCOLOR);
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_comm_split(self.raw, c, key, std::ptr::null(), &mut raw) })?;
        Ok((!raw.is_null()).then(|| Comm { raw, ctx: self.ctx.clone() }))
    }

    pub fn rank(&self) -> Result<i32> {
        let mut v = 0;
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_comm_get_rank(self.raw, &mut v) })?;
        Ok(v)
    }

    pub fn size(&self) -> Result<i32> {
        let mut v = 0;
        // SAFETY: live handle, valid out-parameter.
        check(unsafe { sys::ek_comm_get_size(self.raw, &mut v) })?;
        Ok(v)
    }

    /// The context the communicator runs on (the one it keeps alive).
    pub fn context(&self) -> Context {
        Context { inner: self.ctx.clone() }
    }

    /// NCCL's asynchronous error, if any (`NOT_READY` while a step is in progress).
    pub fn check(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_comm_get_async_error(self.raw) })
    }

    /// Aborts the communicator's work now (stuck kernels exit).
    pub fn abort(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_comm_abort(self.raw) })
    }

    /// Waits for the stream's work within the timeout (`TIMEOUT` then).
    pub fn synchronize(&self, stream: Option<&Stream>) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_comm_synchronize(raw_stream(stream), self.raw) })
    }

    /// op over ranks of `x`, into `out` (which may be `x`: in place) or a new tensor.
    pub fn all_reduce(&self, op: ReduceOp, x: &Tensor, out: Option<&Tensor>, stream: Option<&Stream>) -> Result<Tensor> {
        // SAFETY: live handles; `o` is a valid out-parameter.
        x.produce(out, |o| unsafe { sys::ek_comm_all_reduce(raw_stream(stream), self.raw, op.to_raw(), x.as_raw(), o) })
    }

    /// `root`'s `x` on every rank.
    pub fn broadcast(&self, root: i32, x: &Tensor, out: Option<&Tensor>, stream: Option<&Stream>) -> Result<Tensor> {
        // SAFETY: as all_reduce.
        x.produce(out, |o| unsafe { sys::ek_comm_broadcast(raw_stream(stream), self.raw, root, x.as_raw(), o) })
    }

    /// op over ranks of `x` on `root`; other ranks without `out` get `None`.
    pub fn reduce(&self, op: ReduceOp, root: i32, x: &Tensor, out: Option<&Tensor>, stream: Option<&Stream>) -> Result<Option<Tensor>> {
        if let Some(o) = out {
            let r = o.clone();
            // SAFETY: as all_reduce.
            Tensor::write_into(o, |p| unsafe { sys::ek_comm_reduce(raw_stream(stream), self.raw, op.to_raw(), root, x.as_raw(), p) })?;
            return Ok(Some(r));
        }
        let mut raw: sys::ek_tensor = std::ptr::null_mut();
        // SAFETY: as all_reduce; *out stays NULL on non-root ranks.
        check(unsafe { sys::ek_comm_reduce(raw_stream(stream), self.raw, op.to_raw(), root, x.as_raw(), &mut raw) })?;
        Ok((!raw.is_null()).then(|| Tensor::adopt(x, raw)))
    }

    /// `[size, *x.shape]`: row r is rank r's `x`.
    pub fn all_gather(&self, x: &Tensor, out: Option<&Tensor>, stream: Option<&Stream>) -> Result<Tensor> {
        // SAFETY: as all_reduce.
        x.produce(out, |o| unsafe { sys::ek_comm_all_gather(raw_stream(stream), self.raw, x.as_raw(), o) })
    }

    /// `x` of shape `[size, ...]`: rank r gets op over ranks of `x[r]`.
    pub fn reduce_scatter(&self, op: ReduceOp, x: &Tensor, out: Option<&Tensor>, stream: Option<&Stream>) -> Result<Tensor> {
        // SAFETY: as all_reduce.
        x.produce(out, |o| unsafe { sys::ek_comm_reduce_scatter(raw_stream(stream), self.raw, op.to_raw(), x.as_raw(), o) })
    }

    /// `x` of shape `[size, ...]`: `out[q]` = rank q's `x[this rank]`.
    pub fn all_to_all(&self, x: &Tensor, out: Option<&Tensor>, stream: Option<&Stream>) -> Result<Tensor> {
        // SAFETY: as all_reduce.
        x.produce(out, |o| unsafe { sys::ek_comm_all_to_all(raw_stream(stream), self.raw, x.as_raw(), o) })
    }

    pub fn send(&self, x: &Tensor, peer: i32, stream: Option<&Stream>) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_comm_send(raw_stream(stream), self.raw, x.as_raw(), peer) })
    }

    pub fn recv(&self, peer: i32, t: &Tensor, stream: Option<&Stream>) -> Result<()> {
        // SAFETY: live handles.
        check(unsafe { sys::ek_comm_recv(raw_stream(stream), self.raw, peer, t.as_raw()) })
    }
}
