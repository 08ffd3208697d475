//! Random numbers (`ek_random`, `ek_random_set_seed`, `ek_random_get_state`):
//! counter-based Philox4x32-10, so the same seed and offset give the same
//! values on the CPU and on CUDA.
use ek_sys as sys;

use crate::context::Context;
use crate::dtype::DType;
use crate::error::{check, Result};
use crate::scalar::Scalar;
use crate::sized::filled;
use crate::stream::{raw_stream, Stream};
use crate::tensor::Tensor;

/// A distribution and its parameters (`ek_random_dist` with `a`, `b`).
/// Bad parameters (`high <= low`, `std < 0`, `p` outside `[0, 1]`) are
/// `Status::INVALID_ARGUMENT`.
#[derive(Copy, Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum RandomDist {
    /// Uniform on `[low, high)`; float tensors.
    Uniform { low: f64, high: f64 },
    /// Normal with mean `mean` and standard deviation `std`; float tensors.
    Normal { mean: f64, std: f64 },
    /// 1 with probability `p`, else 0; any dtype.
    Bernoulli { p: f64 },
    /// Integers uniform on `[low, high)`; any dtype but bool. The bounds
    /// are passed as integers, exact beyond 2^53.
    Randint { low: i64, high: i64 },
}

impl RandomDist {
    /// The C constant and the parameters `a`, `b` of `ek_random`.
    pub fn to_raw(self) -> (sys::ek_random_dist, sys::ek_scalar, sys::ek_scalar) {
        use sys::ek_random_dist as R;
        let (d, a, b) = match self {
            RandomDist::Uniform { low, high } => (R::EK_RANDOM_UNIFORM, Scalar::from(low), Scalar::from(high)),
            RandomDist::Normal { mean, std } => (R::EK_RANDOM_NORMAL, mean.into(), std.into()),
            RandomDist::Bernoulli { p } => (R::EK_RANDOM_BERNOULLI, p.into(), 0.0.into()),
            RandomDist::Randint { low, high } => (R::EK_RANDOM_RANDINT, low.into(), high.into()),
        };
        (d, a.to_raw(), b.to_raw())
    }
}

/// A Philox generator state (`ek_philox_state`): the element at C-order index
/// `i` of a filled tensor takes its numbers from counter `offset + i` under
/// key `seed`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PhiloxState {
    pub seed: u64,
    pub offset: u64,
}

impl Tensor {
    /// Fills `self` in place from `dist` with the context's generator, whose
    /// offset then advances by the element count (`ek_random`).
    pub fn random_(&self, dist: RandomDist) -> Result<()> {
        self.random_with(dist, None, None)
    }

    /// Fills `self` in place from `dist`, with an explicit generator `state`
    /// (which is not advanced) or the context's one (`None`), on `stream` or
    /// the default stream (`None`).
    pub fn random_with(&self, dist: RandomDist, state: Option<PhiloxState>, stream: Option<&Stream>) -> Result<()> {
        let (d, a, b) = dist.to_raw();
        let raw_state = state.map(|s| sys::ek_philox_state { seed: s.seed, offset: s.offset, ..filled() });
        let p = raw_state.as_ref().map_or(std::ptr::null(), |s| s as *const _);
        // SAFETY: live handles; p is NULL or points at a local that outlives the call.
        check(unsafe { sys::ek_random(raw_stream(stream), d, a, b, p, self.as_raw()) })
    }

    /// A new tensor drawn from `dist` by the context's generator.
    pub fn random(ctx: &Context, shape: &[i64], dtype: DType, dist: RandomDist) -> Result<Tensor> {
        let t = Tensor::empty(ctx, shape, dtype)?;
        t.random_(dist)?;
        Ok(t)
    }

    /// Uniform on `[0, 1)`.
    pub fn rand(ctx: &Context, shape: &[i64], dtype: DType) -> Result<Tensor> {
        Tensor::random(ctx, shape, dtype, RandomDist::Uniform { low: 0.0, high: 1.0 })
    }

    /// Standard normal.
    pub fn randn(ctx: &Context, shape: &[i64], dtype: DType) -> Result<Tensor> {
        Tensor::random(ctx, shape, dtype, RandomDist::Normal { mean: 0.0, std: 1.0 })
    }
}

impl Context {
    /// Seeds the context's generator and resets its offset to 0
    /// (`ek_random_set_seed`).
    pub fn manual_seed(&self, seed: u64) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_random_set_seed(self.inner.raw, seed) })
    }

    /// The generator's current seed and offset (`ek_random_get_state`).
    pub fn random_state(&self) -> Result<PhiloxState> {
        let mut s: sys::ek_philox_state = filled();
        // SAFETY: live handle; out-parameter whose struct_size is set.
        check(unsafe { sys::ek_random_get_state(self.inner.raw, &mut s) })?;
        Ok(PhiloxState { seed: s.seed, offset: s.offset })
    }
}
