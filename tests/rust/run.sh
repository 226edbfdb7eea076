#!/usr/bin/env bash
# Rust binding tests (cargo test --offline, std only) on a generated fixture.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/rust/work
source "$root/tests/fixture.sh"
make_fixture "$work" 512 7
cd "$root/bindings/rust"
CUZK_FIXTURE=$work CUZK_LIB_DIR=$root/build cargo test --offline 2>&1
