//! Finds libek and links it: `EK_LIB_DIR` when set, else pkg-config's `ek`
//! (searched along `PKG_CONFIG_PATH`). When neither finds it the build stops
//! here, saying so, rather than at the link with `unable to find library -lek`.
//!
//! The directory linked from is written into an rpath (`-Wl,-rpath,DIR`) so
//! that programs start without `LD_LIBRARY_PATH` when libek is in a
//! non-system prefix. Cargo applies a build script's link arguments to its own
//! package's targets only, so the directory is also exported to dependents'
//! build scripts as `DEP_EK_LIB_DIR` (`links = "ek"`): the `ek` crate and a
//! consuming binary's `build.rs` turn it into their own rpath (see README).
//!
//! On docs.rs (`DOCS_RS` set) nothing is linked: documentation needs no libek.
use std::env;
use std::path::Path;
use std::process::{exit, Command};

fn main() {
    println!("cargo:rerun-if-env-changed=EK_LIB_DIR");
    for var in ["PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-env-changed=DOCS_RS");
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("DOCS_RS").is_some() {
        return;
    }
    let dirs = match env::var("EK_LIB_DIR") {
        Ok(dir) => {
            if !has_libek(&dir) {
                fail(&format!("EK_LIB_DIR={dir} holds no libek.so (nor libek.a)"));
            }
            vec![dir]
        }
        Err(_) => pkg_config_dirs(),
    };
    let rpath = env::var("CARGO_CFG_TARGET_OS").map_or(false, |os| os != "windows");
    for dir in &dirs {
        println!("cargo:rustc-link-search=native={dir}");
        if rpath {
            println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
        }
    }
    // DEP_EK_LIB_DIR for dependents; absent when libek is in a system directory
    // (pkg-config then prints no -L, and the loader finds it without an rpath).
    if let Some(first) = dirs.first() {
        println!("cargo:lib_dir={first}");
    }
    println!("cargo:rustc-link-lib=dylib=ek");
}

/// The `-L` directories of `pkg-config --libs ek` (none for a system prefix).
fn pkg_config_dirs() -> Vec<String> {
    let out = match Command::new("pkg-config").args(["--libs-only-L", "ek"]).output() {
        Ok(out) => out,
        Err(e) => fail(&format!("could not run pkg-config ({e})")),
    };
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let why = err.lines().next().unwrap_or("");
        fail(&format!("pkg-config found no `ek` ({})", why.trim().trim_end_matches('.')));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .filter_map(|flag| flag.strip_prefix("-L"))
        .map(str::to_string)
        .collect()
}

fn has_libek(dir: &str) -> bool {
    ["libek.so", "libek.a", "libek.dylib", "ek.lib"]
        .iter()
        .any(|name| Path::new(dir).join(name).exists())
}

fn fail(why: &str) -> ! {
    eprintln!(
        "error: ek-sys cannot find libek: {why}.\n\
         Install libek (`meson setup build --prefix PREFIX && meson install -C build`), then either\n  \
         export PKG_CONFIG_PATH=PREFIX/lib/<arch>/pkgconfig   (the directory holding ek.pc), or\n  \
         export EK_LIB_DIR=PREFIX/lib/<arch>                  (the directory holding libek.so).\n\
         For the uninstalled build dir: PKG_CONFIG_PATH=BUILD/meson-uninstalled."
    );
    exit(1);
}
