//! The loaded library's version string against its number and this crate's version.

#[test]
fn version_string_spells_out_the_number_and_equals_the_crate_version() {
    let v = ek::version();
    let spelled = format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
    assert_eq!(ek::version_string(), spelled);
    // Both come from meson.build's version (scripts/check_versions.sh).
    assert_eq!(ek::version_string(), env!("CARGO_PKG_VERSION"));
}
