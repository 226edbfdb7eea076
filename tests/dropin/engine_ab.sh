#!/usr/bin/env bash
# On a GPU host, from the repository root, after `tests/dropin/device.sh
# prepare` (the circuit, witness and parameters kept in DROPIN_WORK): the
# engine path (`cuzk bench`: N partitions a proof, DROPIN_CALLS proofs) in
# each variant of VARIANTS, the list run ROUNDS times (default 2) so that
# the variants alternate, every run at debug level. One line a run: seconds
# a proof, the GPU's busy share (NVML), and from the partitions' timelines
# the median time in the device lock and the median idle gap from one
# region's end to the next one's start (with the synthesis and a, b, c's
# readiness).
#   usage: VARIANTS="auto blocking" tests/dropin/engine_ab.sh
# Variants: auto, spin, yield, blocking (gpus.host_sync); threadsN
# (synthesis.threads = N); parallelN (synthesis.max_parallel = N); procsN
# (GOMAXPROCS=N); bin:PATH (the cuzk binary at PATH, defaults: an A/B of
# two builds). Environment: DROPIN_LOG2 (default 24), DROPIN_NS (its last
# N, default 10), DROPIN_CALLS (3), DROPIN_WORK, DROPIN_PARAMS_DIR as for
# device.sh; logs under $OUT/engine-ab.
set -uo pipefail
S=${DROPIN_LOG2:-24}
ns=${DROPIN_NS:-10}
n=${ns##* }
calls=${DROPIN_CALLS:-3}
work=${DROPIN_WORK:-/tmp/cuzk-dropin}/2^$S
pdir=${DROPIN_PARAMS_DIR:-${DROPIN_WORK:-/tmp/cuzk-dropin}}/2^$S
out=${OUT:-/tmp/cuzk-dropin-out}/engine-ab
mkdir -p "$out"
[ -f "$work/w1.wtns" ] && [ -f "$work/c.r1cs" ] || {
  echo "engine_ab: no $work/c.r1cs or w1.wtns (run tests/dropin/device.sh prepare)"
  exit 1
}
[ -n "${CUZK_CUDA_LIB:-}" ] || [ ! -f build/libcuzk_cuda.so ] || export CUZK_CUDA_LIB=$PWD/build/libcuzk_cuda.so
# summary LOG: medians over the partitions of the time in the lock, the
# synthesis and a, b, c's readiness against the region's start, and of the
# gap between regions (acquired_at_ms of one less released_at_ms of the one
# before, within a job)
summary() {
  grep 'msg="partition proved"' "$1" | awk '{
      split("", f)
      for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
      if (f["acquired_at_ms"] != "") print f["job"], f["acquired_at_ms"], f["released_at_ms"], f["locked_ms"], f["synth_ms"], f["abc_ready_ms"]
    }' | sort -k1,1 -k2,2n | awk '
      $1 == job { print "gap", $2 - rel }
      { job = $1; rel = $3; print "locked", $4; print "synth", $5; if ($6 != "") print "abc_ready", $6 }' |
    sort -k1,1 -k2,2n | awk '{ v[$1, ++c[$1]] = $2 }
      END {
        for (k in c) { m = c[k]; med[k] = (m % 2) ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2 }
        printf "medians: locked %.1f ms (%d), gap %.2f ms (%d), synth %.1f ms, abc_ready %.1f ms (%d)",
          med["locked"], c["locked"], med["gap"], c["gap"], med["synth"], med["abc_ready"], c["abc_ready"]
      }'
}
run() { # run VARIANT ROUND
  local v=$1 cfg=$'[logging]\nlevel = "debug"' bin=bin/cuzk envs=()
  case $v in
  auto | spin | yield | blocking) cfg+=$'\n[gpus]\nhost_sync = "'$v'"' ;;
  threads[0-9]*) cfg+=$'\n[synthesis]\nthreads = '${v#threads} ;;
  parallel[0-9]*) cfg+=$'\n[synthesis]\nmax_parallel = '${v#parallel} ;;
  procs[0-9]*) envs=(GOMAXPROCS="${v#procs}") ;;
  bin:*) bin=${v#bin:} ;;
  *) echo "engine_ab: unknown variant $v"; exit 1 ;;
  esac
  local label=${v//[^A-Za-z0-9]/_}-$2
  printf '%s\n' "$cfg" >"$out/$label.toml"
  env "${envs[@]}" "$bin" bench --r1cs "$work/c.r1cs" --wtns "$work/w1.wtns" --params "$pdir/c.params" \
    --trusted-params --partitions "$n" --proofs "$calls" --config "$out/$label.toml" >"$out/$label.log" 2>&1
  echo "$label: exit $?, $(grep -m1 '^throughput' "$out/$label.log" | cut -d' ' -f2-3)," \
    "$(grep -m1 '^GPU 0 busy' "$out/$label.log" | sed 's/.*: //') NVML, $(summary "$out/$label.log")"
}
for round in $(seq 1 "${ROUNDS:-2}"); do
  for v in ${VARIANTS:-auto blocking}; do run "$v" "$round"; done
done | tee "$out/summary.txt"
