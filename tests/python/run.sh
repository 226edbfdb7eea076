#!/usr/bin/env bash
# Python binding tests (unittest, standard library only) and the example:
# the binding against the headers, the .wtns reader, pip install into a
# temporary directory, and the prover.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/python/work
source "$root/tests/fixture.sh"
make_fixture "$work" 512 5
export CUZK_LIB=$root/build/libcuzk.so CUZK_FIXTURE=$work
python3 "$root/bindings/python/example.py" "$work"
cd "$root/tests/python" && python3 -m unittest -v test_library test_wtns test_install test_cuzk 2>&1
