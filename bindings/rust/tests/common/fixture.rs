//! Where the tests and examples find their fixture: a 512-constraint
//! synthetic circuit, its development parameters and its assignment, as
//! tests/fixture.sh writes them with the repository's `bin/cuzk`.
//!
//! - `CUZK_FIXTURE` set: that directory, used as it is (tests/rust/run.sh
//!   sets it for the crates that share its fixture).
//! - unset: `<target>/<profile>/cuzk-fixture`, generated on first use. A
//!   missing `bin/cuzk` is built with `go build` first. The generation runs
//!   under an exclusive file lock, so that parallel test binaries, and
//!   concurrent `cargo test` runs, share one fixture; within a process a
//!   `OnceLock` does it once. A `stamp` file, written last, records the
//!   `bin/cuzk` it came from: a rebuilt `bin/cuzk` (or an interrupted
//!   generation) regenerates it.
//!
//! Anything that prevents the fixture from existing panics with what to do:
//! a test that cannot find its fixture fails, it never skips.
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The fixture's size and setup seed, those tests/rust/run.sh uses.
const CONSTRAINTS: u32 = 512;
const SEED: u32 = 7;

/// The repository's root (bindings/rust/../..).
fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The fixture directory, generated if needed (see the module's doc).
pub fn dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| match std::env::var_os("CUZK_FIXTURE") {
        Some(d) => {
            let d = PathBuf::from(d);
            assert!(
                d.join("c.params").is_file(),
                "CUZK_FIXTURE={}: no c.params there (unset CUZK_FIXTURE to let the tests generate their fixture, \
                 or point it at a directory written by tests/fixture.sh)",
                d.display()
            );
            d
        }
        None => generated(),
    })
    .clone()
}

/// `<target>/<profile>`: test binaries run from `<target>/<profile>/deps`,
/// examples from `<target>/<profile>/examples`.
fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent()
        .and_then(Path::parent)
        .unwrap_or_else(|| panic!("{}: not inside a cargo target directory", exe.display()))
        .to_path_buf()
}

fn generated() -> PathBuf {
    let base = profile_dir();
    let dir = base.join("cuzk-fixture");
    let lock_path = base.join("cuzk-fixture.lock");
    let lock = std::fs::File::create(&lock_path).unwrap_or_else(|e| panic!("{}: {e}", lock_path.display()));
    lock.lock().unwrap_or_else(|e| panic!("locking {}: {e}", lock_path.display()));

    let cuzk = cuzk_binary();
    let stamp = stamp_of(&cuzk);
    if std::fs::read_to_string(dir.join("stamp")).ok().as_deref() == Some(stamp.as_str()) {
        return dir;
    }
    // tests/fixture.sh is the fixture's one definition (run.sh and the other
    // binding tests use it too); it clears the directory first.
    let script = root().join("tests/fixture.sh");
    let out = Command::new("bash")
        .arg("-c")
        .arg(r#"set -e; source "$1"; make_fixture "$2" "$3" "$4""#)
        .arg("fixture")
        .arg(&script)
        .arg(&dir)
        .arg(CONSTRAINTS.to_string())
        .arg(SEED.to_string())
        .output()
        .unwrap_or_else(|e| panic!("running bash for {}: {e}", script.display()));
    assert!(
        out.status.success(),
        "generating the test fixture in {} with {} failed ({}):\n{}",
        dir.display(),
        cuzk.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(dir.join("stamp"), stamp).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// The repository's bin/cuzk (the path tests/fixture.sh runs), built with
/// `go build` when missing.
fn cuzk_binary() -> PathBuf {
    let root = root();
    let bin = root.join("bin/cuzk");
    if bin.is_file() {
        return bin;
    }
    let how = format!(
        "{} is missing and the tests need it to generate their fixture: run `make build` in {}, \
         or set CUZK_FIXTURE to a directory written by tests/fixture.sh",
        bin.display(),
        root.display()
    );
    let out = Command::new("go")
        .args(["build", "-o", "bin/cuzk", "./core/cmd/cuzk"])
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("{how} (building it with `go build` failed: go: {e})"));
    assert!(out.status.success(), "{how} (`go build` failed: {}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    bin
}

/// What identifies the fixture: its parameters and the binary's size and
/// modification time.
fn stamp_of(cuzk: &Path) -> String {
    let m = std::fs::metadata(cuzk).unwrap_or_else(|e| panic!("{}: {e}", cuzk.display()));
    let mtime = m.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map_or(0, |d| d.as_nanos());
    format!("constraints {CONSTRAINTS} seed {SEED} cuzk {} bytes, modified {mtime} ns\n", m.len())
}
