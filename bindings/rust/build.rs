//! Links libcuzk.so (from CUZK_LIB_DIR, or the repository's build/
//! directory) by absolute path, and compiles the C layout probe used by the
//! layout tests.
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
    let lib = lib_dir.join("libcuzk.so");
    let lib = lib.canonicalize().unwrap_or_else(|e| {
        panic!("{}: {e} (run `make lib`, or set CUZK_LIB_DIR to the directory holding libcuzk.so)", lib.display())
    });

    // How binaries find libcuzk.so at run time. A dependency's
    // rustc-link-arg (an rpath) never reaches its dependents' binaries, but
    // its rustc-link-search and rustc-link-lib do. So "-lcuzk" resolves to a
    // one-line linker script in OUT_DIR that names the real library by
    // absolute path; as libcuzk.so carries no DT_SONAME (Go's c-shared output
    // sets none), the linker records that path as the binary's DT_NEEDED, and
    // every binary linking this crate (bellperson's, a test's) loads the
    // library it was linked against, with no LD_LIBRARY_PATH or rpath.
    // tests/rust/run.sh checks this on a dependent crate's binary.
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let stub = out.join("link");
    std::fs::create_dir_all(&stub).unwrap();
    std::fs::write(stub.join("libcuzk.so"), format!("INPUT(\"{}\")\n", lib.display())).unwrap();
    println!("cargo:rustc-link-search=native={}", stub.display());
    println!("cargo:rustc-link-lib=dylib=cuzk");
    // For dependents' build scripts (DEP_CUZK_LIB).
    println!("cargo:lib={}", lib.display());

    // The layout probe: offsets and sizes of the C structs, as the C
    // compiler sees them in the real headers.
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
