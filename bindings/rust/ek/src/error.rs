//! Status codes and the error type every fallible call returns.
use std::ffi::CStr;
use std::fmt;

use ek_sys as sys;

/// A libek status code (`ek_status`; the constants are generated). A newtype
/// rather than an enum so that a code added to a newer library stays representable.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Status(pub u32);

impl Status {
    /// The code's name, e.g. `"EK_ERROR_SHAPE"` (`ek_status_string`).
    ///
    /// ```
    /// assert_eq!(ek::Status::SHAPE.name(), "EK_ERROR_SHAPE");
    /// ```
    pub fn name(self) -> &'static str {
        // SAFETY: the library returns a static, NUL-terminated string, never NULL.
        unsafe { static_str(sys::ek_status_string(sys::ek_status(self.0))) }
    }

    /// A short description, e.g. `"shape mismatch"` (`ek_status_description`).
    pub fn description(self) -> &'static str {
        // SAFETY: as for `name`.
        unsafe { static_str(sys::ek_status_description(sys::ek_status(self.0))) }
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed libek call: its status and the library's message, which names the
/// C function and the offending values (`ek_last_error`).
///
/// ```
/// let ctx = ek::Context::new(ek::Device::Cpu)?;
/// let t = ek::Tensor::zeros(&ctx, &[2, 3], ek::DType::F32)?;
/// let err = t.select(5, 0).unwrap_err();
/// assert_eq!(err.status, ek::Status::INDEX);
/// assert!(err.message.contains("ek_view_select"));
/// # Ok::<(), ek::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub status: Status,
    pub message: String,
}

impl Error {
    /// An error raised by this binding itself (before calling the library).
    pub(crate) fn new(status: Status, message: impl Into<String>) -> Error {
        Error { status, message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}: {}", self.status.name(), self.status.description())
        } else {
            write!(f, "{}: {}", self.status.name(), self.message)
        }
    }
}

impl std::error::Error for Error {}

/// `std::result::Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// Turns a status into a `Result`, reading this thread's `ek_last_error()` at
/// once (a Rust thread never changes OS thread between two calls).
pub(crate) fn check(status: sys::ek_status) -> Result<()> {
    if status == sys::ek_status::EK_SUCCESS {
        return Ok(());
    }
    // SAFETY: never NULL; valid until this thread's next failing call.
    let message = unsafe { CStr::from_ptr(sys::ek_last_error()) }.to_string_lossy().into_owned();
    Err(Error { status: Status(status.0), message })
}

/// Called by `Drop` impls after a failed destroy/release: the failure cannot
/// be reported, and must not linger as this thread's "last error".
pub(crate) fn discard(status: sys::ek_status) {
    if status != sys::ek_status::EK_SUCCESS {
        // SAFETY: no arguments; only touches thread-local state.
        unsafe { sys::ek_clear_error() };
    }
}

/// # Safety
/// `p` must be a static NUL-terminated string.
pub(crate) unsafe fn static_str(p: *const std::os::raw::c_char) -> &'static str {
    if p.is_null() {
        return "";
    }
    CStr::from_ptr(p).to_str().unwrap_or("")
}
