//! Links libcuzk.so (from CUZK_LIB_DIR, or the repository's build/
//! directory) and compiles the C layout probe used by the layout tests.
use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest.join("../..");
    let lib_dir = env::var("CUZK_LIB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join("build"));
    println!("cargo:rerun-if-env-changed=CUZK_LIB_DIR");
    println!("cargo:rustc-link-search=native={}", lib_dir.display());
    println!("cargo:rustc-link-lib=dylib=cuzk");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());

    // The layout probe: offsets and sizes of the C structs, as the C
    // compiler sees them in the real headers.
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let probe = manifest.join("tests/layout_probe.c");
    println!("cargo:rerun-if-changed={}", probe.display());
    let include = root.join("include");
    println!("cargo:rerun-if-changed={}", include.display());
    let obj = out.join("layout_probe.o");
    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let ok = Command::new(&cc)
        .args(["-c", "-fPIC", "-O0", "-I"])
        .arg(&include)
        .arg(&probe)
        .arg("-o")
        .arg(&obj)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ok, "compiling {} with {} failed", probe.display(), cc);
    let ar = Command::new("ar")
        .arg("crs")
        .arg(out.join("liblayout_probe.a"))
        .arg(&obj)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(ar, "ar failed");
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=layout_probe");
}
