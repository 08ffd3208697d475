//! The profiler: every op and kernel launch on a context, with host and
//! device times, a summary table and a Chrome trace.
//!
//! Experimental: it wraps the `ek_profiler_*` declarations that `ek.h` keeps
//! under `EK_EXPERIMENTAL`, outside the ABI promise; they (and these methods
//! and [`ProfileRecord`]) may change in a minor release.
use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use ek_sys as sys;

use crate::context::Context;
use crate::device::Device;
use crate::error::{check, Error, Result, Status};
use crate::sized::filled_vec;

/// One recorded call (`ek_profile_record`); times in microseconds since the
/// session started. Experimental, as the whole profiler.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileRecord {
    /// "binary.add", "matmul", "kernel.saxpy", "elementwise.fma".
    pub name: String,
    /// Inputs -> outputs: "float32[64,32] float32[32,8] -> float32[64,8]".
    pub args: String,
    pub device: Device,
    pub stream_id: u64,
    /// 1, 2, ...: OS threads numbered in order of their first record.
    pub thread_id: u64,
    pub host_start_us: f64,
    pub host_us: f64,
    pub device_start_us: f64,
    /// Negative when the device could not time the call.
    pub device_us: f64,
}

fn text(field: &[c_char]) -> String {
    // SAFETY: the library NUL-terminates every text field within its array.
    unsafe { CStr::from_ptr(field.as_ptr()) }.to_string_lossy().into_owned()
}

impl ProfileRecord {
    fn from_raw(r: &sys::ek_profile_record) -> Result<ProfileRecord> {
        Ok(ProfileRecord {
            name: text(&r.name),
            args: text(&r.args),
            device: Device::from_raw(r.device)?,
            stream_id: r.stream_id,
            thread_id: r.thread_id,
            host_start_us: r.host_start_us,
            host_us: r.host_us,
            device_start_us: r.device_start_us,
            device_us: r.device_us,
        })
    }
}

impl Context {
    /// Starts recording every op and kernel launch on this context, from any
    /// thread, and forgets the last session (`ek_profiler_start`).
    /// Experimental (`EK_EXPERIMENTAL` in `ek.h`), as every profiler method.
    ///
    /// ```
    /// let ctx = ek::Context::new(ek::Device::Cpu)?;
    /// let x = ek::Tensor::full(&ctx, &[1000], 2.0, ek::DType::F32)?;
    /// ctx.profiler_start()?;
    /// let _y = x.unary(ek::UnaryOp::Sqrt)?;
    /// ctx.profiler_stop()?;
    /// let records = ctx.profiler_records()?;
    /// assert_eq!(records[0].name, "unary.sqrt");
    /// assert_eq!(records[0].args, "float32[1000] -> float32[1000]");
    /// println!("{}", ctx.profiler_summary()?);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn profiler_start(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_profiler_start(self.inner.raw) })
    }

    /// Stops recording and waits for the recorded device work.
    pub fn profiler_stop(&self) -> Result<()> {
        // SAFETY: live handle.
        check(unsafe { sys::ek_profiler_stop(self.inner.raw) })
    }

    /// The last stopped session's records, in order of completion
    /// (`ek_profiler_get_records`).
    pub fn profiler_records(&self) -> Result<Vec<ProfileRecord>> {
        let mut count = 0usize;
        // SAFETY: sizing call with records NULL.
        check(unsafe { sys::ek_profiler_get_records(self.inner.raw, std::ptr::null_mut(), 0, &mut count) })?;
        let mut raw: Vec<sys::ek_profile_record> = filled_vec(count);
        let mut total = 0usize;
        // SAFETY: `count` records, struct_size set; the library writes at most capacity.
        check(unsafe { sys::ek_profiler_get_records(self.inner.raw, raw.as_mut_ptr(), count, &mut total) })?;
        // A stopped session does not change, so total == count.
        raw.truncate(total);
        raw.iter().map(ProfileRecord::from_raw).collect()
    }

    /// The last session as a table: per op, calls and total and mean times
    /// (`ek_profiler_get_summary`).
    pub fn profiler_summary(&self) -> Result<String> {
        let mut length = 0usize;
        // SAFETY: sizing call with buffer NULL.
        check(unsafe { sys::ek_profiler_get_summary(self.inner.raw, std::ptr::null_mut(), 0, &mut length) })?;
        let mut buf = vec![0u8; length + 1];
        // SAFETY: buf holds length + 1 bytes.
        check(unsafe {
            sys::ek_profiler_get_summary(self.inner.raw, buf.as_mut_ptr().cast(), buf.len(), &mut length)
        })?;
        buf.truncate(length.min(buf.len() - 1));
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// Writes the last session as Chrome trace JSON (ui.perfetto.dev,
    /// chrome://tracing) (`ek_profiler_write_chrome_trace`).
    pub fn export_chrome_trace(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = CString::new(path.as_ref().as_os_str().as_bytes())
            .map_err(|_| Error::new(Status::INVALID_ARGUMENT, "ek (Rust): path contains a NUL byte"))?;
        // SAFETY: live handle, NUL-terminated path.
        check(unsafe { sys::ek_profiler_write_chrome_trace(self.inner.raw, path.as_ptr()) })
    }
}
