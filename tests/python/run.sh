#!/usr/bin/env bash
# Python binding tests (unittest, standard library only) and the example.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/python/work
rm -rf "$work" && mkdir -p "$work"
cuzk=$root/bin/cuzk
"$cuzk" generate --constraints 512 --dense 0.3 --r1cs "$work/c.r1cs" --wtns "$work/w.wtns" >/dev/null
"$cuzk" setup --r1cs "$work/c.r1cs" --out "$work/c.params" --seed 5 >/dev/null
"$cuzk" dump-assignment --params "$work/c.params" --r1cs "$work/c.r1cs" --wtns "$work/w.wtns" --out "$work" >/dev/null
export CUZK_LIB=$root/build/libcuzk.so CUZK_FIXTURE=$work
python3 "$root/bindings/python/example.py" "$work"
cd "$root/tests/python" && python3 -m unittest -v test_cuzk 2>&1
