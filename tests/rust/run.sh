#!/usr/bin/env bash
# Rust binding tests (cargo --offline, std only) on a generated fixture: the
# cuzk crate's tests, then tests/rust/dependent, a crate that uses the
# supraseal-c2 crate through [patch.crates-io] with bellperson's call shapes,
# run as a plain binary without LD_LIBRARY_PATH (it must find libcuzk.so on
# its own).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/rust/work
source "$root/tests/fixture.sh"
make_fixture "$work" 512 7
# rustup installs cargo under ~/.cargo/bin, which a non-login shell may lack.
command -v cargo >/dev/null 2>&1 || export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo >/dev/null 2>&1 || { echo "FAIL: cargo not found (the Rust binding tests need it)"; exit 1; }
export CUZK_FIXTURE=$work CUZK_LIB_DIR=$root/build
# One target directory for the three crates (cuzk is built once).
export CARGO_TARGET_DIR=$root/bindings/rust/target

status=0
(cd "$root/bindings/rust" && cargo test --offline --no-fail-fast 2>&1) || status=1

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
