#!/usr/bin/env bash
# On a GPU host, from the repository root, with bin/cuzk,
# build/libcuzk.so, build/libcuzk_cuda.so and build/cuda.test copied from
# a build machine (as tests/dropin/device.sh): the device-memory cap's run,
# ~10 minutes at 2^26. The 2^S prepare (generate, tiled setup, dump:
# ~300 s at 2^26 on 16 cores) runs beside the GPU correctness tests, then
# the drop-in bench (one circuit a call, three warm calls a mode, debug
# timelines) under each cap in CAPS (GiB; 0: no cap, the resident
# reference), each into $OUT/<cap>/ with its summary in $OUT/<cap>.txt.
# Environment: DROPIN_LOG2 (S, default 26), CAPS (default "24 0 16"),
# CORRECT_SIZES (default 10,16,20; empty: no correctness tests),
# DROPIN_BENCH_ARGS (passed on to the bench), CPU_CHECK=1 (the CPU backend
# proves the same circuit once, ~2 minutes at 2^26 on 16 cores, and its
# proof is compared with the caps'). A prepare already done on
# this machine (its parameters and dump in DROPIN_WORK) is not done again.
set -uo pipefail
out=${OUT:-/tmp/cuzk-capped-out}
mkdir -p "$out"
S=${DROPIN_LOG2:-26}
caps=${CAPS:-24 0 16}
sizes=${CORRECT_SIZES-10,16,20}
export CUZK_CUDA_LIB=$PWD/build/libcuzk_cuda.so CUZK_CUDA_REQUIRED=1
work=${DROPIN_WORK:-/tmp/cuzk-dropin}/2^$S
if [ -s "$work/c.params" ] && [ -s "$work/dump1" ]; then
  echo "prepared before: $work kept" >"$out/prep.txt"
else
  (OUT=$out/prep DROPIN_LOG2=$S DROPIN_KEY=tiled tests/dropin/device.sh prepare >"$out/prep.txt" 2>&1
    echo "prepare rc=$?" >>"$out/prep.txt") &
fi
if [ -n "$sizes" ]; then
  CUZK_CUDA_SIZES=$sizes ./build/cuda.test -test.v -test.count=1 -test.skip Bench >"$out/correct.log" 2>&1
  echo "correct rc=$?" >>"$out/correct.log"
  grep -E "^--- FAIL|^(PASS|FAIL)$|rc=" "$out/correct.log"
fi
wait
tail -2 "$out/prep.txt"
for cap in $caps; do
  cfg=
  [ "$cap" != 0 ] && cfg=$'[gpus]\nmax_device_memory = "'$cap'GiB"'
  OUT=$out/$cap CUZK_LOG_LEVEL=debug DROPIN_LOG2=$S DROPIN_KEY=tiled DROPIN_NS=1 DROPIN_CALLS=3 \
    DROPIN_CONFIG="$cfg" DROPIN_BENCH_ARGS="${DROPIN_BENCH_ARGS:-} --proofs-out $out/$cap.proof" \
    tests/dropin/device.sh bench >"$out/$cap.txt" 2>&1
  echo "== cap $cap GiB (0: none)"
  grep -E "circuit, (min|median)|^proofs|prefetched|decided on|chunks streamed|cuzk's count" "$out/$cap.txt"
done
# the same dump, key and randomness under every cap: the proofs must be
# the same bytes, and with CPU_CHECK=1 the CPU backend's too (the bench
# compares calls and modes within one run)
first=
for cap in $caps; do
  f=$out/$cap.proof
  if [ ! -s "$f" ]; then
    echo "FAIL: no proof written under cap $cap"
  elif [ -z "$first" ]; then
    first=$f
  elif cmp -s "$first" "$f"; then
    echo "proof under cap $cap equals the one under cap ${first##*/}: $(sha256sum <"$f" | cut -c1-16)"
  else
    echo "FAIL: the proof under cap $cap differs from the one under cap ${first##*/}"
  fi
done
if [ "${CPU_CHECK:-0}" = 1 ] && [ -n "$first" ]; then
  OUT=$out/cpu DROPIN_LOG2=$S DROPIN_KEY=tiled tests/dropin/device.sh cpu >"$out/cpu.txt" 2>&1
  if cmp -s "$first" "$work/cpu.proof"; then
    echo "the CPU backend's proof equals the one under cap ${first##*/}"
  else
    echo "FAIL: the CPU backend's proof differs from the one under cap ${first##*/} (or is missing)"
  fi
fi
# the logs go in one archive beside the summaries
(cd "$out" && tar czf all.tgz --exclude='*.txt' --exclude=all.tgz -- * && find . -mindepth 1 -not -name '*.txt' -not -name all.tgz -delete)
