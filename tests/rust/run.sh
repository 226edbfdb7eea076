#!/usr/bin/env bash
# Rust binding tests (cargo test --offline, std only) on a generated fixture.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/rust/work
rm -rf "$work" && mkdir -p "$work"
cuzk=$root/bin/cuzk
"$cuzk" generate --constraints 512 --dense 0.3 --r1cs "$work/c.r1cs" --wtns "$work/w.wtns" >/dev/null
"$cuzk" setup --r1cs "$work/c.r1cs" --out "$work/c.params" --seed 7 >/dev/null
"$cuzk" dump-assignment --params "$work/c.params" --r1cs "$work/c.r1cs" --wtns "$work/w.wtns" --out "$work" >/dev/null
cd "$root/bindings/rust"
CUZK_FIXTURE=$work CUZK_LIB_DIR=$root/build cargo test --offline 2>&1
