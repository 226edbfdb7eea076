#!/usr/bin/env bash
# On a GPU host (Go not needed): builds libcuzk_cuda.so with nvcc, runs
# the GPU correctness tests (every result against the CPU backend, on fresh
# random inputs), the timing tables and the whole-partition bench, with the
# Go test binary built here by `make cuda-test-bin`. Logs and tables go
# under $OUT.
#   usage: cuda/run-device.sh [build] [correct] [bench] [partition] [engine]
#                             [sweep] [nopool] [profile] [sanitize]
#          (from the repository root; no arguments: build correct bench)
# `engine` runs the bench command (bin/cuzk, copied from the build machine) through the
# engine on the GPU: a 2^20-row synthetic circuit with a real development
# setup, so every proof is verified (CUZK_ENGINE_ARGS overrides the flags).
# `sweep` times the G1 MSM at 2^24 for each window size in SWEEP_C (default
# 15 17). `nopool` runs with CUZK_CUDA_MSM_POOL=0 (the msm_pool option off:
# the MSM's scratch handed back after each MSM): checks at VARIANT_SIZES
# (default 10,16,20), the MSM table, the 2^24 partition.
# Steps may be split over several runs, keeping build/libcuzk_cuda.so
# from the first.
# `profile` runs Nsight Compute (ncu, clocks left alone) on the accumulation
# kernel of a 2^PROFILE_LOG2 (default 24) G1 MSM: issue slots, stall
# reasons, pipes, occupancy, into ncu.txt. `sanitize` runs the MSM, h and
# prep checks at 2^10 under compute-sanitizer's memcheck (out-of-bounds and
# misaligned accesses).
# Without `build`, a libcuzk_cuda.so already in build/ is used.
# Logs are packed in $OUT/logs.tgz.
# Environment: CUZK_CUDA_SIZES (correctness sizes, default 10,16,20,24),
# CUZK_CUDA_EACH=1 (the correctness tests on each GPU of the host in turn),
# CUZK_CUDA_PARTITION (partition sizes, default 24,26),
# CUZK_CUDA_PARTITION_CPU (sizes also proved on the CPU, default 24),
# CUZK_CUDA_PARTITION_DENSE (dense-constraint shares, default 0.03,0.2),
# CUZK_CUDA_PARTITION_KEY=setup (a real development setup, ~1 min at 2^24:
# the partition proofs are then verified; default: a tiled key),
# CUZK_CUDA_PARTITION_CAP_GIB (the partition bench's library capped, e.g. 23
# as the engine caps it under gpus.max_device_memory = "24GiB"),
# CUZK_CUDA_DEVICE_PREP=0 (the partition bench with the prep on the host;
# gpus.device_prep = false in the engine), VARIANT_SIZES (the nopool
# step's correctness sizes). The library reads no environment: the test
# binary maps CUZK_CUDA_PROFILE=1 (MSM phase timing), CUZK_CUDA_MSM_C
# (window bits) and CUZK_CUDA_MSM_POOL=0 onto its options
# (cuzk_cuda_set_options). For the test binary run by hand:
# CUZK_CUDA_BENCH_CPU=0 (bench tables without the CPU columns),
# CUZK_CUDA_BENCH_G1=k (the G1 MSM table at 2^k only, no G2: window sweeps),
# CUZK_CUDA_BENCH_CPU_MAX=k (the MSM tables' CPU column up to 2^k).
# The same timings as Go benchmarks, by kernel and size, without the
# variables: ./build/cuda.test -test.run '^$' -test.bench 'NTT|H|MSMG1|MSMG2|Subgroup|Partition'
# (e.g. -test.bench 'Partition/2\^24/dense=0.03/device-prep').
set -uo pipefail
out=${OUT:-/tmp/cuzk-device}
mkdir -p "$out"
# The logs travel in one archive (logs.tgz; machine.txt stays beside it),
# the library alone.
# Packed on exit, also when `timeout` stops the script.
# shellcheck disable=SC2317  # run by the EXIT trap
pack_logs() {
  local logs
  logs=$(cd "$out" && ls -- *.log ncu.txt 2>/dev/null)
  [ -n "$logs" ] || return 0
  # shellcheck disable=SC2086
  (cd "$out" && tar czf logs.tgz $logs && rm -f $logs)
}
trap pack_logs EXIT
trap 'exit 143' TERM
root=$(pwd)
steps=${*:-build correct bench}
has() { [[ " $steps " == *" $1 "* ]]; }
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2
  nproc
} 2>&1 | tee "$out/machine.txt"
if has build; then
  start=$(date +%s)
  make -j4 -C cuda CUDA_ARCH="${CUDA_ARCH:-sm_90}" OUT="$root/build" BENCH=1 NVCCFLAGS_EXTRA="-Xptxas=-v" >"$out/build.log" 2>&1
  echo "build: $(( $(date +%s) - start )) s" | tee -a "$out/machine.txt"
  cp build/libcuzk_cuda.so "$out/" 2>/dev/null
fi
[ -f build/libcuzk_cuda.so ] || { echo "FAIL: no libcuzk_cuda.so"; tail -30 "$out/build.log"; exit 1; }
export CUZK_CUDA_LIB=$root/build/libcuzk_cuda.so CUZK_CUDA_REQUIRED=1
export CUZK_CUDA_SIZES=${CUZK_CUDA_SIZES:-10,16,20,24}
status=0
if has correct; then
  # CUZK_CUDA_EACH=1: on every GPU of the host in turn (CUDA_VISIBLE_DEVICES),
  # one log each (a multi-GPU host)
  gpus=0
  if [ "${CUZK_CUDA_EACH:-0}" = 1 ]; then
    gpus=$(seq 0 $(($(nvidia-smi -L | wc -l) - 1)))
  fi
  for g in $gpus; do
    log=$out/correctness.log
    [ "${CUZK_CUDA_EACH:-0}" = 1 ] && log=$out/correctness-gpu$g.log
    # every test but the benches (a list of names left new tests out) and
    # the generated-file check, which reads the source tree (make test runs it)
    env ${CUZK_CUDA_EACH:+CUDA_VISIBLE_DEVICES=$g} ./build/cuda.test -test.v -test.count=1 \
      -test.skip 'Bench|^TestABIGenerated$' 2>&1 | tee "$log" |
      grep -E '^(---|ok|FAIL|PASS)|Error|Messages|equal' || true
    grep -q '^--- FAIL' "$log" && status=1
    grep -q '^PASS' "$log" || status=1
  done
fi
if has bench; then
  CUZK_CUDA_BENCH=1 ./build/cuda.test -test.v -test.count=1 -test.run 'BenchTable|BenchMSM|BenchSubgroup' 2>&1 | tee "$out/bench.log" | grep -E '^\||FAIL|Error' || status=1
fi
if has partition; then
  CUZK_CUDA_PARTITION=${CUZK_CUDA_PARTITION:-24,26} CUZK_CUDA_PARTITION_CPU=${CUZK_CUDA_PARTITION_CPU:-24} \
    ./build/cuda.test -test.v -test.count=1 -test.timeout 30m -test.run 'BenchPartition' 2>&1 | tee "$out/partition.log" | grep -E '^\||FAIL|Error|Messages' || status=1
fi
if has sweep; then
  for c in ${SWEEP_C:-15 17}; do
    echo "window bits $c" | tee -a "$out/sweep.log"
    CUZK_CUDA_MSM_C=$c CUZK_CUDA_BENCH=1 CUZK_CUDA_BENCH_CPU=0 CUZK_CUDA_BENCH_G1=24 CUZK_CUDA_PROFILE=1 ./build/cuda.test -test.v \
      -test.count=1 -test.run 'BenchMSM' 2>&1 | tee -a "$out/sweep.log" | grep -E '^\||FAIL|Error' || status=1
  done
fi
if has nopool; then
  CUZK_CUDA_MSM_POOL=0 CUZK_CUDA_SIZES=${VARIANT_SIZES:-10,16,20} ./build/cuda.test -test.v -test.count=1 \
    -test.run 'HMSM|Query|MSMG1|MSMG2|InPasses|Proof' 2>&1 | tee "$out/nopool-correctness.log" | grep -E '^(---|ok|FAIL|PASS)|Error|Messages' || true
  grep -q '^PASS' "$out/nopool-correctness.log" || status=1
  CUZK_CUDA_MSM_POOL=0 CUZK_CUDA_BENCH=1 CUZK_CUDA_BENCH_CPU=0 CUZK_CUDA_PROFILE=1 ./build/cuda.test -test.v -test.count=1 \
    -test.run 'BenchMSM' 2>&1 | tee "$out/nopool-bench.log" | grep -E '^\||FAIL|Error' || status=1
  CUZK_CUDA_MSM_POOL=0 CUZK_CUDA_PARTITION=24 CUZK_CUDA_PARTITION_CPU=${CUZK_CUDA_PARTITION_CPU:-24} ./build/cuda.test -test.v \
    -test.count=1 -test.timeout 30m -test.run 'BenchPartition' 2>&1 | tee "$out/nopool-partition.log" | grep -E '^\||FAIL|Error|Messages' || status=1
fi
if has profile; then
  ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [ -z "$ncu_bin" ]; then
    echo "profile: no ncu here" | tee "$out/ncu.txt"
  else
    # at 2^24 by default (2^20's grid is 2.2 waves: its tail hides the kernel's own limits)
    CUZK_CUDA_BENCH=1 CUZK_CUDA_BENCH_CPU=0 CUZK_CUDA_BENCH_G1=${PROFILE_LOG2:-24} "$ncu_bin" --clock-control none \
      --kernel-name regex:k_subsum --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
      --section LaunchStats --section SchedulerStats --section InstructionStats \
      ./build/cuda.test -test.count=1 -test.run 'BenchMSM' >"$out/ncu.txt" 2>&1 || status=1
    grep -E "Duration|Throughput|Issue Slots|Stall|Occupancy|Registers" "$out/ncu.txt" | head -40
  fi
fi
if has sanitize; then
  san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
  if [ -z "$san" ]; then
    echo "sanitize: no compute-sanitizer here" | tee "$out/sanitize.log"
  else
    CUZK_CUDA_SIZES=10 "$san" --tool memcheck --error-exitcode 9 ./build/cuda.test -test.count=1 \
      -test.run 'HMatches|HMSM|Query|Proof|MSMG1|MSMG2|SubgroupCheck' >"$out/sanitize.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|^(---|PASS|FAIL)" "$out/sanitize.log" | head -20
  fi
fi
if has engine; then
  [ -x bin/cuzk ] || { echo "FAIL: bin/cuzk missing (build it with make, then copy it here)"; exit 1; }
  # shellcheck disable=SC2086
  ./bin/cuzk bench ${CUZK_ENGINE_ARGS:---constraints 1048576 --dense 0.03 --partitions 4 --proofs 4 --concurrency 2 --baseline --cache /tmp/cuzk-cache} \
    2>&1 | tee "$out/engine.log" || status=1
fi
exit $status
