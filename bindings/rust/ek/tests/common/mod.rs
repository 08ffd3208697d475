//! Shared by the integration tests that need a GPU.
use std::io::Write;

use ek::DeviceType;

/// Written to the process's stderr directly, past libtest's capture, so the
/// skip shows in `cargo test` output.
pub fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// Whether `test` may run on CUDA device 0: EK_TEST_DEVICE is `cuda` or
/// `all` and a device exists; otherwise a visible SKIPPED line, or a failure
/// under EK_REQUIRE_GPU=1.
pub fn cuda_selected(test: &str) -> bool {
    let want = std::env::var("EK_TEST_DEVICE").unwrap_or_default();
    let require = std::env::var("EK_REQUIRE_GPU").is_ok_and(|v| v == "1");
    if want != "cuda" && want != "all" {
        assert!(!require, "{test}: EK_REQUIRE_GPU=1 but EK_TEST_DEVICE={want:?} does not select CUDA");
        skip(test, "set EK_TEST_DEVICE=cuda (or all) to run on a GPU");
        return false;
    }
    let n = ek::device_count(DeviceType::Cuda).unwrap();
    if n == 0 {
        assert!(!require, "{test}: EK_REQUIRE_GPU=1 but no CUDA device was found");
        skip(test, "no CUDA device");
        return false;
    }
    true
}
