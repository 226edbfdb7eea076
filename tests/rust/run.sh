#!/usr/bin/env bash
# Rust binding tests (cargo --offline, std only):
# - the cuzk crate's tests as a user runs them, `cargo test --offline` with no
#   CUZK_FIXTURE: they generate their own fixture (bindings/rust/tests/common/
#   fixture.rs), removed first so that the generation itself is tested;
# - the prove example, `cargo run --offline --example prove`, which proves and
#   verifies on that fixture, then on run.sh's own through CUZK_FIXTURE;
# - tests/rust/dependent, a crate that uses the supraseal-c2 crate through
#   [patch.crates-io] with bellperson's call shapes, run as a plain binary
#   without LD_LIBRARY_PATH (it must find libcuzk.so on its own).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/rust/work
source "$root/tests/fixture.sh"
make_fixture "$work" 512 7
# rustup installs cargo under ~/.cargo/bin, which a non-login shell may lack.
command -v cargo >/dev/null 2>&1 || export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo >/dev/null 2>&1 || { echo "FAIL: cargo not found (the Rust binding tests need it)"; exit 1; }
export CUZK_LIB_DIR=$root/build
# One target directory for the three crates (cuzk is built once).
export CARGO_TARGET_DIR=$root/bindings/rust/target
unset CUZK_FIXTURE

status=0
rm -rf "$CARGO_TARGET_DIR/debug/cuzk-fixture"
(cd "$root/bindings/rust" && cargo test --offline --no-fail-fast 2>&1) || status=1
(cd "$root/bindings/rust" && cargo run --offline --example prove 2>&1) || { echo "FAIL: example prove"; status=1; }
(cd "$root/bindings/rust" && CUZK_FIXTURE=$work cargo run --offline --example prove 2>&1) ||
  { echo "FAIL: example prove (CUZK_FIXTURE=$work)"; status=1; }

export CUZK_FIXTURE=$work

(cd "$root/tests/rust/dependent" && cargo build --offline 2>&1)
bin=$CARGO_TARGET_DIR/debug/cuzk-dependent
# Not `cargo run`, which would set LD_LIBRARY_PATH itself.
if env -u LD_LIBRARY_PATH "$bin"; then
  echo "dependent: ok ($bin, libcuzk.so found without LD_LIBRARY_PATH)"
else
  echo "FAIL: dependent ($bin, run without LD_LIBRARY_PATH)"
  status=1
fi
exit $status
