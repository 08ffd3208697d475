//! Finds libek: `EK_LIB_DIR` when set, else `pkg-config --libs-only-L ek`.
//! Link arguments do not flow to the run-time loader: tests and programs still
//! need `LD_LIBRARY_PATH` (or an installed library), e.g. under `meson devenv`.
use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=EK_LIB_DIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-changed=build.rs");

    let mut dirs: Vec<String> = Vec::new();
    if let Some(dir) = env::var_os("EK_LIB_DIR") {
        dirs.push(dir.to_string_lossy().into_owned());
    } else {
        match Command::new("pkg-config").args(["--libs-only-L", "ek"]).output() {
            Ok(out) if out.status.success() => {
                let text = String::from_utf8_lossy(&out.stdout);
                for flag in text.split_whitespace() {
                    if let Some(dir) = flag.strip_prefix("-L") {
                        dirs.push(dir.to_string());
                    }
                }
            }
            Ok(out) => println!(
                "cargo:warning=pkg-config --libs-only-L ek failed ({}); set EK_LIB_DIR or PKG_CONFIG_PATH",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            Err(e) => println!(
                "cargo:warning=could not run pkg-config ({e}); set EK_LIB_DIR or PKG_CONFIG_PATH"
            ),
        }
    }
    for dir in &dirs {
        println!("cargo:rustc-link-search=native={dir}");
    }
    // Exposed to dependents' build scripts as DEP_EK_LIB_DIR (links = "ek").
    if let Some(first) = dirs.first() {
        println!("cargo:lib_dir={first}");
    }
    println!("cargo:rustc-link-lib=dylib=ek");
}
