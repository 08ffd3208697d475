//! Devices: kinds, counts and properties.
use std::fmt;

use ek_sys as sys;

use crate::error::{check, Error, Result, Status};
use crate::generated::DeviceType;
use crate::sized::filled;

/// A device (`ek_device`): the CPU or a CUDA GPU by index.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu,
    Cuda(i32),
}

impl Device {
    /// The device's kind.
    pub fn device_type(self) -> DeviceType {
        match self {
            Device::Cpu => DeviceType::Cpu,
            Device::Cuda(_) => DeviceType::Cuda,
        }
    }

    /// Properties of the device (`ek_device_get_info`); `Status::NO_DEVICE`
    /// when it does not exist.
    ///
    /// ```
    /// let info = ek::Device::Cpu.info()?;
    /// assert!(info.multiprocessors >= 1);
    /// # Ok::<(), ek::Error>(())
    /// ```
    pub fn info(self) -> Result<DeviceInfo> {
        let mut raw: sys::ek_device_info = filled();
        // SAFETY: valid out-parameter whose struct_size is set.
        check(unsafe { sys::ek_device_get_info(self.to_raw(), &mut raw) })?;
        let bytes: Vec<u8> = raw.name.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        Ok(DeviceInfo {
            name: String::from_utf8_lossy(&bytes).into_owned(),
            device: Device::from_raw(sys::ek_device { type_: raw.type_, index: raw.index })?,
            compute_capability: (raw.compute_major, raw.compute_minor),
            multiprocessors: raw.multiprocessors,
            total_memory: raw.total_memory,
            l2_cache_size: raw.l2_cache_size,
        })
    }

    pub(crate) fn to_raw(self) -> sys::ek_device {
        match self {
            Device::Cpu => sys::ek_device { type_: sys::ek_device_type::EK_CPU, index: 0 },
            Device::Cuda(i) => sys::ek_device { type_: sys::ek_device_type::EK_CUDA, index: i },
        }
    }

    pub(crate) fn from_raw(d: sys::ek_device) -> Result<Device> {
        match d.type_ {
            sys::ek_device_type::EK_CPU => Ok(Device::Cpu),
            sys::ek_device_type::EK_CUDA => Ok(Device::Cuda(d.index)),
            other => Err(Error::new(
                Status::NOT_SUPPORTED,
                format!("ek (Rust): device type {} is unknown to this binding", other.0),
            )),
        }
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

/// Properties of a device (`ek_device_info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub name: String,
    pub device: Device,
    /// CUDA compute capability (major, minor); (0, 0) on the CPU.
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors on CUDA, logical cores on the CPU.
    pub multiprocessors: i32,
    /// Bytes.
    pub total_memory: u64,
    /// Bytes; 0 when unknown.
    pub l2_cache_size: u64,
}

/// Number of devices of a kind (`ek_device_get_count`): always 1 for the CPU; 0
/// for CUDA on a machine without a driver or GPU.
///
/// ```
/// assert_eq!(ek::device_count(ek::DeviceType::Cpu)?, 1);
/// let gpus = ek::device_count(ek::DeviceType::Cuda)?;
/// println!("{gpus} CUDA device(s)");
/// # Ok::<(), ek::Error>(())
/// ```
pub fn device_count(device_type: DeviceType) -> Result<usize> {
    let mut n: std::os::raw::c_int = 0;
    // SAFETY: n is a valid out-parameter.
    check(unsafe { sys::ek_device_get_count(device_type.to_raw(), &mut n) })?;
    Ok(n.max(0) as usize)
}

/// Version of the loaded library: MAJOR * 10000 + MINOR * 100 + PATCH
/// (`ek_version`).
///
/// ```
/// let v = ek::version();
/// assert_eq!(ek::version_string(), format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100));
/// ```
pub fn version() -> u32 {
    // SAFETY: no arguments.
    unsafe { sys::ek_version() }
}

/// Version of the loaded library, "MAJOR.MINOR.PATCH" (`ek_version_string`).
/// The crate's own version (`CARGO_PKG_VERSION`) is kept equal to the
/// library's by scripts/check_versions.sh.
pub fn version_string() -> &'static str {
    // SAFETY: no arguments; the result is a static NUL-terminated string.
    let s = unsafe { std::ffi::CStr::from_ptr(sys::ek_version_string()) };
    s.to_str().unwrap_or("")
}

/// Number of live handles (contexts, streams, events, tensors, modules,
/// kernels, elementwise builders) in the process (`ek_live_handles`); for leak checks.
pub fn live_handles() -> Result<i64> {
    let mut n = 0i64;
    // SAFETY: n is a valid out-parameter.
    check(unsafe { sys::ek_live_handles(&mut n) })?;
    Ok(n)
}
