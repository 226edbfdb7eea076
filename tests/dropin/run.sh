#!/usr/bin/env bash
# Smoke test of the drop-in bench (make test-dropin, part of make test):
# builds build/dropin_bench with the plain cc line a machine without Go
# uses, then proves a 512-constraint fixture as N=3 circuits, K=2 calls, sync
# and async; every proof is checked by cuzk_verify and compared across calls
# and modes. A tampered public input must then be reported (the library's
# own verification turned off with --config, so the bench's check is what
# catches it). usage: tests/dropin/run.sh  (after make lib build)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/dropin/work
source "$root/tests/fixture.sh"
make_fixture "$work" 512 5
cc=${CC:-cc}
"$cc" -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$root/include" "$root/tests/dropin/dropin_bench.c" \
  -L"$root/build" -lcuzk -lpthread -ldl -Wl,-rpath,'$ORIGIN' -o "$root/build/dropin_bench"
bench=$root/build/dropin_bench
"$bench" --params "$work/c.params" --dump "$work" --circuits 3 --calls 2 --mode both | tee "$work/out.txt"
grep -qx 'metric proofs_ok 1 bool' "$work/out.txt"
grep -q '^proofs: all verified; identical across calls and modes: yes$' "$work/out.txt"
for m in sync async; do
  grep -qE "^metric $m\.call_median [0-9.e+-]+ s$" "$work/out.txt" || { echo "FAIL: no $m.call_median"; exit 1; }
done
# Two dumps side by side, pipelined async calls.
mkdir -p "$work/second" && cp "$work"/*.bin "$work/assignment.json" "$work/second/"
"$bench" --params "$work/c.params" --dump "$work" --dump "$work/second" --calls 3 --mode async --depth 2 >"$work/out2.txt"
grep -qx 'metric proofs_ok 1 bool' "$work/out2.txt"
"$bench" --params "$work/c.params" --srs-only | grep -qE '^metric create_srs [0-9.e+-]+ s$'
# Two host threads at once, each with its own gpu_mtx (the multi-GPU run's
# shape; here both on the one device): every proof verified and equal.
"$bench" --params "$work/c.params" --dump "$work" --circuits 2 --calls 2 --mode sync --threads 2 >"$work/out3.txt"
grep -qx 'metric proofs_ok 1 bool' "$work/out3.txt"
grep -qx 'metric threads 2 count' "$work/out3.txt"
grep -q '^proofs: all verified; identical across calls and modes: yes$' "$work/out3.txt"
grep -q '2 sync threads, each its own gpu_mtx, gpu_index -1,-1' "$work/out3.txt"
# Threads with the async mode, and malformed --gpus, are usage errors (exit 2).
for args in "--threads 2 --mode both" "--threads 2 --mode sync --gpus 0,x" "--threads 3 --mode sync --gpus 0,1"; do
  rc=0
  # shellcheck disable=SC2086
  "$bench" --params "$work/c.params" --dump "$work" $args >/dev/null 2>"$work/usage.err" || rc=$?
  [ "$rc" = 2 ] || { echo "FAIL: $args: exit $rc, want 2"; cat "$work/usage.err"; exit 1; }
done
# Tampered public input: the bench must refuse the proofs (exit 1).
mkdir -p "$work/bad" && cp "$work"/*.bin "$work/assignment.json" "$work/bad/"
printf '\x07' | dd of="$work/bad/inputs.bin" bs=1 seek=32 conv=notrunc status=none
if "$bench" --params "$work/c.params" --dump "$work/bad" --calls 1 --mode sync \
  --config 'verify_proofs = false' >"$work/bad.txt" 2>"$work/bad.err"; then
  echo "FAIL: a proof of a tampered input was accepted"; exit 1
fi
grep -q 'does not verify' "$work/bad.err" || { echo "FAIL: tampered input: unexpected failure"; cat "$work/bad.err"; exit 1; }
echo "dropin bench: smoke test passed"
