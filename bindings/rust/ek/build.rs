//! The rpath of ek-sys (`DEP_EK_LIB_DIR`) for this package's own tests and
//! examples: Cargo gives a build script's link arguments to its package's
//! targets only, so ek-sys's do not reach them.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_EK_LIB_DIR");
    let unix = std::env::var("CARGO_CFG_TARGET_OS").map_or(false, |os| os != "windows");
    if let (Ok(dir), true) = (std::env::var("DEP_EK_LIB_DIR"), unix) {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
