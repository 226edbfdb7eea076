#!/usr/bin/env bash
# On a GPU host (Go not needed), from the repository root, with bin/cuzk,
# build/libcuzk.so and build/libcuzk_cuda.so copied from a build machine
# (libcuzk_cuda.so is built here with nvcc when it was not copied): makes a
# synthetic circuit with a domain of 2^S rows, its development parameters and
# its dumped assignment, then runs the drop-in bench for each N in
# DROPIN_NS. Logs go under $OUT (packed into $OUT/logs.tgz on exit).
#   usage: tests/dropin/device.sh [prepare] [srs] [bench] [cpu] [multi] [engine]   (no argument: the first three)
# prepare: cuzk generate + setup + dump-assignment (timed; a 2^24 setup takes
#          about a minute on 16 cores), into DROPIN_WORK (kept between runs)
# srs:     create_SRS timed in two processes one after the other (cold, warm)
# bench:   build/dropin_bench for each N, both modes
# Environment: DROPIN_LOG2 (S, default 24), DROPIN_DENSE (share of dense
# constraints, default 0.03), DROPIN_NS (default "1 10"), DROPIN_CALLS (3),
# DROPIN_DUMPS (distinct witnesses, default 1: one dump proved N times),
# DROPIN_DEPTH (async depth, 1), DROPIN_WORK (default /tmp/cuzk-dropin),
# DROPIN_CONFIG (engine TOML, applied with cuzk_config; default: none, the
# library's defaults as bellperson gets them), DROPIN_KEY=tiled (a tiled
# benchmark key, seconds at any size: proofs do not verify, so the engine's
# verification and the bench's are turned off and the proofs are compared
# across calls, modes and with DROPIN_CPU=1 the CPU backend's),
# CUZK_LOG_LEVEL=debug (each partition's timeline in the bench logs),
# DROPIN_BENCH_ARGS (more bench flags, split on spaces, e.g. --keep-abc),
# DROPIN_ENGINE_ARGS (more cuzk bench flags for the engine step, e.g.
# --concurrency 2), DROPIN_PARAMS_DIR (where the parameter file goes,
# default DROPIN_WORK: /dev/shm where the disk cannot hold it, as a
# 2^27-domain key's ~71 GB on a 64 GiB disk), DROPIN_LEAN=1 (prepare keeps
# only what the srs and bench steps read: the circuit and witnesses go),
# DROPIN_SRS_RUNS (the srs step's loads, default "unchecked checked
# recorded"), DROPIN_SRS_LIBS (libcuzk.so builds whose loads alternate,
# e.g. "current /tmp/old/libcuzk.so current /tmp/old/libcuzk.so").
set -uo pipefail
root=$(pwd)
out=${OUT:-/tmp/cuzk-dropin-out}
mkdir -p "$out"
pack_logs() {
  local logs
  logs=$(cd "$out" && ls -- *.log 2>/dev/null)
  [ -n "$logs" ] || return 0
  # shellcheck disable=SC2086
  (cd "$out" && tar czf logs.tgz $logs && rm -f $logs)
}
trap pack_logs EXIT
trap 'exit 143' TERM
S=${DROPIN_LOG2:-24}
dense=${DROPIN_DENSE:-0.03}
ns=${DROPIN_NS:-1 10}
calls=${DROPIN_CALLS:-3}
ndumps=${DROPIN_DUMPS:-1}
depth=${DROPIN_DEPTH:-1}
work=${DROPIN_WORK:-/tmp/cuzk-dropin}/2^$S
config=${DROPIN_CONFIG:-}
key=${DROPIN_KEY:-setup}
noverify=()
if [ "$key" = tiled ]; then
  config=$'verify_proofs = false\n'"$config"
  noverify=(--no-verify)
fi
cfgargs=()
[ -n "$config" ] && cfgargs=(--config "$config")
benchargs=()
read -r -a benchargs <<<"${DROPIN_BENCH_ARGS:-}"
steps=${*:-prepare srs bench}
pdir=${DROPIN_PARAMS_DIR:-${DROPIN_WORK:-/tmp/cuzk-dropin}}/2^$S
srsruns=${DROPIN_SRS_RUNS:-unchecked checked recorded}
has() { [[ " $steps " == *" $1 "* ]]; }
cuzk=$root/bin/cuzk
timed() { # timed LOG CMD...: runs CMD, appends its output and wall time to LOG
  local log=$1 t0 rc
  shift
  echo "\$ $*" >>"$log"
  t0=$(date +%s.%N)
  "$@" >>"$log" 2>&1
  rc=$?
  echo "wall $(awk -v a="$t0" -v b="$(date +%s.%N)" "BEGIN{printf \"%.2f\", b-a}") s, exit $rc" | tee -a "$log"
  return $rc
}
# gpus_key LINE: the configuration with LINE in its [gpus] table (added
# when it has none: a second [gpus] table would be a TOML error)
gpus_key() {
  if grep -qx '\[gpus\]' <<<"$config"; then
    awk -v l="$1" '{print} $0 == "[gpus]" {print l}' <<<"$config"
  else
    printf '%s\n[gpus]\n%s\n' "$config" "$1"
  fi
}
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1 || echo "no nvidia-smi"
  nproc
  free -g | head -2
} 2>&1 | tee "$out/machine.log"

# (prepare alone loads no GPU: porep27.sh builds beside it)
if [ ! -f "$root/build/libcuzk_cuda.so" ] && [ "$steps" != prepare ]; then
  if command -v nvcc >/dev/null; then
    timed "$out/build.log" make -C "$root/cuda" OUT="$root/build" CUDA_ARCH="${CUDA_ARCH:-sm_90}" -j4 || exit 1
  else
    echo "no build/libcuzk_cuda.so and no nvcc: the bench runs on the CPU backend" | tee -a "$out/machine.log"
  fi
fi
# The plain cc line (no Go needed): the same as make dropin-bench.
cc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -I"$root/include" "$root/tests/dropin/dropin_bench.c" \
  -L"$root/build" -lcuzk -lpthread -ldl -Wl,-rpath,'$ORIGIN' -o "$root/build/dropin_bench" || exit 1

# The synthetic circuit has 3 inputs; rows = constraints + inputs must fit 2^S.
constraints=$(((1 << S) - 64))
dumps=()
for j in $(seq 1 "$ndumps"); do dumps+=(--dump "$work/dump$j"); done
if has prepare; then
  mkdir -p "$work" "$pdir"
  log=$out/prepare-2^$S.log
fi
if has prepare && [ "$key" = tiled ] && [ "${DROPIN_LEAN:-0}" = 1 ] && ! has engine; then
  # one process per witness writes only what the srs and bench steps read:
  # the tiled key and the dump, no circuit or witness file
  timed "$log" "$cuzk" generate --constraints "$constraints" --dense "$dense" --seed 1 \
    --tiled-params "$pdir/c.params" --tiled-seed 7 --dump "$work/dump1" || exit 1
  for j in $(seq 2 "$ndumps"); do
    timed "$log" "$cuzk" generate --constraints "$constraints" --dense "$dense" --seed "$j" --dump "$work/dump$j" || exit 1
  done
  ls -la "$work" "$pdir" >>"$log"
  df -h "$work" "$pdir" >>"$log"
elif has prepare; then
  timed "$log" "$cuzk" generate --constraints "$constraints" --dense "$dense" --seed 1 --r1cs "$work/c.r1cs" --wtns "$work/w1.wtns" || exit 1
  for j in $(seq 2 "$ndumps"); do # other witnesses of the same circuit
    timed "$log" "$cuzk" generate --constraints "$constraints" --dense "$dense" --seed "$j" --r1cs "$work/tmp.r1cs" --wtns "$work/w$j.wtns" || exit 1
    rm -f "$work/tmp.r1cs"
  done
  if [ "$key" = tiled ]; then
    timed "$log" "$cuzk" setup --tiled --r1cs "$work/c.r1cs" --out "$pdir/c.params" --seed 7 || exit 1
  else
    timed "$log" "$cuzk" setup --r1cs "$work/c.r1cs" --out "$pdir/c.params" --seed 7 || exit 1
  fi
  for j in $(seq 1 "$ndumps"); do
    timed "$log" "$cuzk" dump-assignment --trusted-params --params "$pdir/c.params" --r1cs "$work/c.r1cs" \
      --wtns "$work/w$j.wtns" --out "$work/dump$j" || exit 1
    [ "$j" = 1 ] || rm -f "$work/w$j.wtns" # the engine step proves w1 again
  done
  [ "${DROPIN_LEAN:-0}" = 1 ] && rm -f "$work/c.r1cs" "$work"/w*.wtns
  ls -la "$work" "$pdir" >>"$log"
  df -h "$work" "$pdir" >>"$log"
fi
# srs: create_SRS in separate processes: unchecked (srs.skip_subgroup_check,
# the baseline), then validated with an empty validation record (the
# subgroup check runs: on the GPU when there is one), then again (the
# record knows the file). setup recorded the file in the default cache,
# so these use a record directory of their own.
if has srs; then
  log=$out/srs-2^$S.log
  # DROPIN_SRS_LIBS: libcuzk.so builds to alternate (current: the one in
  # build/), each in turn copied into build/ for its loads, the record
  # emptied for each; build/'s own is put back at the end.
  libs=${DROPIN_SRS_LIBS:-current}
  cp "$root/build/libcuzk.so" "$work/libcuzk-current.so"
  for lib in $libs; do
    src=$lib
    [ "$lib" = current ] && src=$work/libcuzk-current.so
    cp "$src" "$root/build/libcuzk.so" || exit 1
    rec=$work/srs-record
    rm -rf "$rec"
    for run in $srsruns; do
      c=$config$'\n[srs]\nvalidation_record_dir = "'$rec'"'
      [ $run = unchecked ] && c=$config$'\n[srs]\nskip_subgroup_check = true'
      echo "== create_SRS, $run ($lib)" >>"$log"
      timed "$log" "$root/build/dropin_bench" --params "$pdir/c.params" --config "$c" --srs-only
    done
  done
  cp "$work/libcuzk-current.so" "$root/build/libcuzk.so"
  grep -E "^== |^metric create_srs" "$log"
fi
if has bench; then
  for n in $ns; do
    log=$out/bench-2^$S-n$n.log
    timed "$log" "$root/build/dropin_bench" --params "$pdir/c.params" "${dumps[@]}" --circuits "$n" \
      --calls "$calls" --depth "$depth" --mode both "${cfgargs[@]}" "${noverify[@]}" "${benchargs[@]}"
    sed -n '/^drop-in bench/,/^proofs:/p' "$log"
  done
fi
# multi: a host with two or more GPUs: the sync calls of N
# circuits (the last of DROPIN_NS) pinned to GPU 0 (gpu_index 0), spread over
# every GPU (-1), then two host threads pinned to GPU 0 and GPU 1, each with
# its own gpu_mtx; every run's proofs are compared across calls (and with
# the setup key verified); the bench prints throughput, each GPU's
# utilisation and the engine's busy time per device. On a host with one
# GPU: pinned, spread, two threads both pinned to GPU 0 (each its own
# gpu_mtx: the device's interlock serializes them), and two threads pinned
# to GPU 0 and GPU 1, which must be refused at once with the library's
# message for a gpu_index that names no device (checked).
if has multi; then
  n=${ns##* }
  log=$out/multi-2^$S-n$n.log
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  specs=("--gpu-index 0" "--gpu-index -1" "--threads 2 --gpus 0,1")
  [ "$gpus" = 1 ] && specs=("--gpu-index 0" "--gpu-index -1" "--threads 2 --gpus 0,0" "--threads 2 --gpus 0,1")
  for spec in "${specs[@]}"; do
    echo "== $spec" >>"$log"
    # shellcheck disable=SC2086
    timed "$log" "$root/build/dropin_bench" --params "$pdir/c.params" "${dumps[@]}" --circuits "$n" \
      --calls "$calls" --mode sync "${cfgargs[@]}" "${noverify[@]}" $spec
    rc=$?
    if [ "$gpus" = 1 ] && [ "$spec" = "--threads 2 --gpus 0,1" ]; then
      if [ $rc -ne 0 ] && grep -q "gpu_index 1: engine: no such device" "$log"; then
        echo "one GPU: gpu_index 1 refused with the library's message, as it must be" | tee -a "$log"
      else
        echo "FAIL: one GPU: gpu_index 1 was not refused with the library's message (exit $rc)" | tee -a "$log"
      fi
    fi
  done
  grep -E "^== |^circuit, (min|median)|^throughput|utilisation, mean|^engine busy|^proofs:|gpu_index 1" "$log"
fi
# cpu: the first circuit proved by the CPU backend (no CUDA library), its
# proof compared byte for byte with the GPU's (same r, s): the check for a
# tiled key, whose proofs do not verify.
if has cpu; then
  log=$out/cpu-2^$S.log
  timed "$log" "$root/build/dropin_bench" --params "$pdir/c.params" "${dumps[@]}" --circuits 1 --calls 1 \
    --mode sync "${cfgargs[@]}" "${noverify[@]}" --proofs-out "$work/gpu.proof"
  # no CUDA library: cuda_lib in the config's [gpus] table
  nolib='cuda_lib = "/nonexistent/libcuzk_cuda.so"'
  gpucfg=$(gpus_key "$nolib")
  timed "$log" "$root/build/dropin_bench" --params "$pdir/c.params" "${dumps[@]}" --circuits 1 --calls 1 \
    --mode sync --config "$gpucfg" "${noverify[@]}" --proofs-out "$work/cpu.proof"
  if cmp "$work/gpu.proof" "$work/cpu.proof"; then
    echo "GPU proof equals the CPU backend's, byte for byte" | tee -a "$log"
  else
    echo "FAIL: GPU proof differs from the CPU backend's" | tee -a "$log"
  fi
fi
# engine: the same circuit through the engine (cuzk bench: one proof of N
# partitions per call, DROPIN_CALLS proofs, each verified unless the key is
# tiled), on every GPU found (gpus.devices empty: partitions spread) and on
# GPU 0 alone (gpus.devices = [0]); the bench prints throughput and each
# device's utilisation. Needs prepare's c.r1cs and w1.wtns (kept unless
# DROPIN_LEAN=1).
if has engine; then
  n=${ns##* }
  log=$out/engine-2^$S-n$n.log
  [ -f "$work/w1.wtns" ] || { echo "engine: no $work/w1.wtns (run prepare without DROPIN_LEAN=1)" | tee -a "$log"; exit 1; }
  engineargs=()
  read -r -a engineargs <<<"${DROPIN_ENGINE_ARGS:-}"
  devsets="all 0"
  [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -gt 1 ] || devsets=all # one GPU: the same run
  for devs in $devsets; do
    c=$config
    if [ $devs = 0 ]; then
      c=$(gpus_key "devices = [0]")
    fi
    # cuzk reads its log level from the configuration: CUZK_LOG_LEVEL
    # (debug: each partition's timeline) goes there, and no --quiet
    quiet=(--quiet)
    if [ -n "${CUZK_LOG_LEVEL:-}" ] && ! grep -qx '\[logging\]' <<<"$c"; then
      c=$c$'\n[logging]\nlevel = "'$CUZK_LOG_LEVEL'"'
      quiet=()
    fi
    echo "== devices $devs" >>"$log"
    eargs=()
    if [ -n "$c" ]; then # cuzk bench reads its configuration from a file
      printf '%s\n' "$c" >"$work/engine-$devs.toml"
      eargs=(--config "$work/engine-$devs.toml")
    fi
    timed "$log" "$cuzk" bench --r1cs "$work/c.r1cs" --wtns "$work/w1.wtns" --params "$pdir/c.params" \
      --trusted-params --partitions "$n" --proofs "$calls" "${quiet[@]}" "${eargs[@]}" "${engineargs[@]}"
  done
  grep -E "^== |throughput|^device |^GPU |^peak RSS|verif" "$log"
fi
