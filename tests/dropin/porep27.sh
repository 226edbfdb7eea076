#!/usr/bin/env bash
# On an H200 host (141 GiB device memory, 125 GiB RAM, 64 GiB disk), from
# the repository root, with bin/cuzk, build/libcuzk.so, build/dropin_bench
# and build/cuda.test copied from a build machine: a 32 GiB PoRep
# partition's size (a domain of 2^27 rows, 3% non-boolean, tiled key)
# through generate_groth16_proofs_c, in two runs of under ten minutes.
#   usage: tests/dropin/porep27.sh [prepare] [run]   (no argument: both)
# prepare: libcuzk_cuda.so built with nvcc when it was not copied (beside
#          the rest), the GPU correctness tests at CORRECT_SIZES (default
#          10,16,20; empty: none) beside the lean prepare (~290 s): the 71 GB key in
#          /dev/shm, the 16 GiB dump on disk, no circuit or witness file
# run:     under each device-memory cap in CAPS (GiB, default "24 16"):
#          one circuit a call, CALLS (default 3) calls; then resident, as
#          bellperson calls it (no configuration but verify_proofs =
#          false: a tiled key's proofs do not verify): 10 circuits a call
#          passing one a, b, c (a PoRep's ten partitions), two calls (the
#          first after create_SRS, a warm one), the file removed once
#          create_SRS returns (UNLINK=0: kept). Each run's first proof is compared byte for
#          byte with the resident call's (same assignment, r and s).
#          ABC=copies: each of the ten circuits passes a copy of a, b, c
#          of its own, as ten distinct partitions do (64 GB at 2^26).
#          RESIDENT=0: no resident call; the caps' proofs are compared
#          with REF (default $OUT/27-resident.proof), a resident proof of
#          the same dump and key from an earlier run: e.g.
#          tests/dropin/testdata/porep27-resident.proof (the 10-circuit
#          call's proofs on the H100 host at 4f23f01, equal there to the
#          16 and 24 GiB caps').
# Summaries in $OUT/27-*.txt, the bench logs (debug timelines) and the
# host memory sampled each second (27-*.mem.log) in $OUT/27.tgz.
set -uo pipefail
out=${OUT:-/tmp/cuzk-porep27-out}
mkdir -p "$out"
steps=${*:-prepare run}
has() { [[ " $steps " == *" $1 "* ]]; }
caps=${CAPS:-24 16}
calls=${CALLS:-3}
sizes=${CORRECT_SIZES-10,16,20}
abcflag=--shared-abc
[ "${ABC:-shared}" = copies ] && abcflag=
# DROPIN_LOG2 (default 27) and DROPIN_PARAMS_DIR (/dev/shm/cuzk) rehearse
# the steps at a small size.
S=${DROPIN_LOG2:-27}
export DROPIN_LOG2=$S DROPIN_KEY=tiled DROPIN_PARAMS_DIR=${DROPIN_PARAMS_DIR:-/dev/shm/cuzk} DROPIN_LEAN=1
params=$DROPIN_PARAMS_DIR/2^$S/c.params
dump=${DROPIN_WORK:-/tmp/cuzk-dropin}/2^$S/dump1
# libcuzk_cuda.so, when it was not copied, is built beside the prepare
# (which needs no GPU); wait_build waits for it before anything loads it.
build_pid=
if [ ! -f build/libcuzk_cuda.so ] && command -v nvcc >/dev/null; then
  (start=$(date +%s)
    make -j16 -C cuda CUDA_ARCH="${CUDA_ARCH:-sm_90}" OUT="$PWD/build" BENCH=1 >"$out/27-build.log" 2>&1 || exit 1
    echo "libcuzk_cuda.so built in $(($(date +%s) - start)) s") &
  build_pid=$!
fi
wait_build() {
  [ -n "$build_pid" ] || return 0
  wait "$build_pid" || { tail -20 "$out/27-build.log"; exit 1; }
  build_pid=
}
export CUZK_CUDA_LIB=$PWD/build/libcuzk_cuda.so
if has prepare; then
  if [ -s "$params" ] && [ -s "$dump" ]; then
    echo "prepared before: $params and $dump kept" | tee "$out/27-prepare.txt"
  else
    (OUT=$out/prep tests/dropin/device.sh prepare >"$out/27-prepare.txt" 2>&1
      echo "prepare rc=$?" >>"$out/27-prepare.txt") &
  fi
  if [ -n "$sizes" ]; then
    wait_build
    CUZK_CUDA_REQUIRED=1 CUZK_CUDA_SIZES=$sizes ./build/cuda.test -test.v -test.count=1 \
      -test.skip 'Bench|^TestABIGenerated$' >"$out/27-correct.log" 2>&1
    echo "correct rc=$?" >>"$out/27-correct.log"
    grep -E '^--- FAIL|^(PASS|FAIL)$|rc=|^--- PASS: TestStreamedSet' "$out/27-correct.log"
  fi
  wait_build
  wait
  cat "$out/27-prepare.txt"
fi
wait_build
# bench LABEL CONFIG ARGS...: one bench run, its summary in $OUT/27-LABEL.txt
bench() {
  local label=$1 cfg=$2
  shift 2
  nvidia-smi --query-gpu=memory.used --format=csv,noheader >"$out/27-$label.txt" 2>&1
  free -g | head -2 >>"$out/27-$label.txt"
  local start rc
  start=$(date +%s)
  CUZK_LOG_LEVEL=debug build/dropin_bench --params "$params" --dump "$dump" --mode sync \
    --config "verify_proofs = false"$'\n'"$cfg" --no-verify $abcflag --proofs-out "$out/27-$label.proof" "$@" \
    >"$out/27-$label.log" 2>&1 &
  local pid=$!
  # Host memory each second (the process's RSS, the host's available,
  # shared and page-locked memory, in KiB), kept if the kernel kills it.
  while kill -0 "$pid" 2>/dev/null; do
    echo "$(date +%T) rss $(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null)" \
      "$(awk '/^(MemAvailable|Cached|Shmem|Unevictable|Mlocked|AnonPages):/ {printf "%s %s ", $1, $2}' /proc/meminfo)"
    sleep 1
  done >"$out/27-$label.mem.log"
  wait "$pid"
  rc=$?
  {
    echo "exit $rc, $(($(date +%s) - start)) s"
    grep -m3 '^dropin_bench:' "$out/27-$label.log"
    sed -n '/^drop-in bench/,/^proofs:/p' "$out/27-$label.log"
    grep -E '^metric ' "$out/27-$label.log"
    awk '$3 ~ /^[0-9]+$/ && $3 + 0 > r + 0 {r = $3 + 0}
      {for (i = 3; i < NF; i++) if ($i == "MemAvailable:" && (a == "" || $(i + 1) + 0 < a)) a = $(i + 1) + 0}
      END {printf "sampled each second: peak RSS %.1f GiB, least available %.1f GiB\n", r / 1048576, a / 1048576}' "$out/27-$label.mem.log"
  } >>"$out/27-$label.txt"
  echo "== $label"
  grep -E '^exit|circuit, (min|median)|^call|first|^peak|device memory|utilisation, mean|^proofs|^sampled|code [0-9]|host short|waiting for host' "$out/27-$label.txt"
}
if has run; then
  [ -s "$params" ] && [ -s "$dump" ] || { echo "run: no $params or $dump (run prepare first)"; exit 1; }
  for cap in $caps; do
    bench "cap$cap" $'[gpus]\nmax_device_memory = "'"$cap"'GiB"' --circuits 1 --calls "$calls"
  done
  unlink=--unlink-params
  [ "${UNLINK:-1}" = 0 ] && unlink=
  ref=${REF:-$out/27-resident.proof}
  [ "${RESIDENT:-1}" = 0 ] || bench resident "" --circuits 10 --calls 2 $unlink
  for cap in $caps; do
    f=$out/27-cap$cap.proof
    if [ -s "$ref" ] && [ -s "$f" ] && cmp -s <(head -c 384 "$ref") "$f"; then
      echo "the proof under a $cap GiB cap equals the resident call's first, byte for byte"
    else
      echo "FAIL: the proof under a $cap GiB cap differs from the resident call's first (or one is missing)"
    fi
  done
  (cd "$out" && tar czf 27.tgz -- 27-*.log && rm -f -- 27-*.log)
fi
