#!/usr/bin/env bash
# Rust binding tests (cargo test --offline, std only) on a generated fixture.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/rust/work
source "$root/tests/fixture.sh"
make_fixture "$work" 512 7
# rustup installs cargo under ~/.cargo/bin, which a non-login shell may lack.
command -v cargo >/dev/null 2>&1 || export PATH="$HOME/.cargo/bin:$PATH"
command -v cargo >/dev/null 2>&1 || { echo "FAIL: cargo not found (the Rust binding tests need it)"; exit 1; }
cd "$root/bindings/rust"
CUZK_FIXTURE=$work CUZK_LIB_DIR=$root/build cargo test --offline 2>&1
