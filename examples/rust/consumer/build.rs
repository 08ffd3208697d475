//! Writes the directory ek-sys linked libek from into this program's rpath,
//! so it starts without LD_LIBRARY_PATH. Cargo applies a build script's link
//! arguments to its own package only: ek-sys's rpath does not reach a
//! dependent's binaries, but its `DEP_EK_LIB_DIR` reaches this script.
fn main() {
    println!("cargo:rerun-if-env-changed=DEP_EK_LIB_DIR");
    if let Ok(dir) = std::env::var("DEP_EK_LIB_DIR") {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
}
