//! libek's log messages to a Rust closure instead of stderr
//! (`ek_log_set_callback`).
use std::cell::Cell;
use std::ffi::CStr;
use std::os::raw::{c_char, c_void};
use std::sync::Mutex;

use ek_sys as sys;

use crate::generated::LogLevel;
use crate::error::{check, Error, Result, Status};

/// A boxed log callback (see [`set_log_callback`]).
type LogCallback = Box<dyn Fn(LogLevel, &str) + Send + Sync>;

// The installed closure, boxed twice so that the pointer the library holds is
// thin and stays put; dropped only once the library no longer calls it.
static INSTALLED: Mutex<Option<Box<LogCallback>>> = Mutex::new(None);

thread_local! {
    // Set while this thread runs the callback, so that set_log_callback fails
    // at once there instead of waiting for itself.
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Sends libek's log messages to `f(level, message)` instead of stderr, for
/// the whole process (`ek_log_set_callback`); [`clear_log_callback`] restores
/// stderr. What is logged follows each context's log level
/// ([`crate::ContextConfig::log_level`] or `EK_LOG_LEVEL`): nothing by
/// default. `f` may run on any thread, several at once; a panic in it is
/// caught and discarded. Once this returns, the previous closure is never
/// called again and has been dropped. Calling it from inside `f` is
/// `Status::INVALID_ARGUMENT`; messages libek logs while `f` runs on that
/// thread go to stderr.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let s = seen.clone();
/// ek::set_log_callback(move |level, msg| s.lock().unwrap().push((level, msg.to_owned())))?;
/// let cfg = ek::ContextConfig::new().log_level(ek::LogLevel::Info);
/// drop(ek::Context::with_config(ek::Device::Cpu, &cfg)?);
/// ek::clear_log_callback()?;
/// assert!(seen.lock().unwrap().contains(&(ek::LogLevel::Info, "context created on cpu:0".into())));
/// # Ok::<(), ek::Error>(())
/// ```
pub fn set_log_callback<F>(f: F) -> Result<()>
where
    F: Fn(LogLevel, &str) + Send + Sync + 'static,
{
    install(Some(Box::new(Box::new(f))))
}

/// Restores stderr for libek's log messages (`ek_log_set_callback(NULL)`).
pub fn clear_log_callback() -> Result<()> {
    install(None)
}

fn install(new: Option<Box<LogCallback>>) -> Result<()> {
    if IN_CALLBACK.with(|c| c.get()) {
        return Err(Error::new(
            Status::INVALID_ARGUMENT,
            "ek::set_log_callback: called from inside the log callback (it would wait for itself)",
        ));
    }
    let user = new.as_ref().map_or(std::ptr::null_mut(), |b| &**b as *const LogCallback as *mut c_void);
    let trampoline: sys::ek_log_callback = if new.is_some() { Some(log_trampoline) } else { None };
    let mut installed = INSTALLED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    // SAFETY: `user` points into a box kept in INSTALLED until a later call
    // replaces it, and the trampoline matches ek_log_callback.
    check(unsafe { sys::ek_log_set_callback(trampoline, user) })?;
    // The library no longer calls the previous closure: drop it, unlocked.
    let previous = std::mem::replace(&mut *installed, new);
    drop(installed);
    drop(previous);
    Ok(())
}

unsafe extern "C" fn log_trampoline(level: sys::ek_log_level, message: *const c_char, user: *mut c_void) {
    // SAFETY: user is the LogCallback installed with this trampoline, alive
    // until the call that replaces it returns; message is a C string for
    // the duration of the call.
    let f = unsafe { &*(user as *const LogCallback) };
    let text = unsafe { CStr::from_ptr(message) }.to_string_lossy();
    let level = LogLevel::from_raw(level).unwrap_or(LogLevel::Debug);
    IN_CALLBACK.with(|c| c.set(true));
    // A panic must not unwind into C.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(level, &text)));
    IN_CALLBACK.with(|c| c.set(false));
}
