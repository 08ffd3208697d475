//! Structs the library fills begin with `size_t struct_size`, which the
//! caller sets to the size it was compiled with (`ek.h`): the library writes
//! only that many bytes, and refuses a size below its 1.0 one. Every such
//! struct this crate passes to a getter comes from [`filled`].
use ek_sys as sys;

/// A C struct whose first field is `struct_size`.
///
/// # Safety
/// The implementing type must be plain old data: all-zero bytes are a valid
/// value of it.
pub(crate) unsafe trait StructSize {
    fn set_struct_size(&mut self, n: usize);
}

macro_rules! sized_structs {
    ($($t:ident),*) => {$(
        // SAFETY: bindgen's plain C struct of integers, floats, arrays and
        // raw pointers: zero is a valid value of every field.
        unsafe impl StructSize for sys::$t {
            fn set_struct_size(&mut self, n: usize) {
                self.struct_size = n;
            }
        }
    )*};
}

sized_structs!(
    ek_device_info,
    ek_context_config,
    ek_memory_stats,
    ek_memory_block,
    ek_tensor_info,
    ek_philox_state,
    ek_kernel_attributes,
    ek_profile_record
);

/// A zeroed `T` with `struct_size` set to `size_of::<T>()`, as the C
/// `EK_*_INIT` macros make it.
pub(crate) fn filled<T: StructSize>() -> T {
    // SAFETY: T is plain old data (the trait's contract).
    let mut v: T = unsafe { std::mem::zeroed() };
    v.set_struct_size(std::mem::size_of::<T>());
    v
}

/// `n` values from [`filled`], for the two-phase array getters (whose
/// first element's `struct_size` is the stride).
pub(crate) fn filled_vec<T: StructSize>(n: usize) -> Vec<T> {
    (0..n).map(|_| filled()).collect()
}
