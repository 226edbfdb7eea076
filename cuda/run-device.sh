#!/usr/bin/env bash
# On the GPU machine (no Go there): builds libcuzk_cuda.so with nvcc, runs
# the GPU correctness tests (every result against the CPU backend, on fresh
# random inputs) and the timing table, with the Go test binary built here
# by `make cuda-test-bin`. Logs and tables go under $OUT.
#   usage: cuda/run-device.sh   (from the repository root)
set -uo pipefail
out=${OUT:-/tmp/cuzk-device}
mkdir -p "$out"
root=$(pwd)
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2
  nproc
} 2>&1 | tee "$out/machine.txt"
make -C cuda CUDA_ARCH="${CUDA_ARCH:-sm_90}" OUT="$root/build" NVCCFLAGS_EXTRA="-Xptxas=-v" 2>&1 | tee "$out/build.log"
[ -f build/libcuzk_cuda.so ] || { echo "FAIL: no libcuzk_cuda.so"; exit 1; }
export CUZK_CUDA_LIB=$root/build/libcuzk_cuda.so CUZK_CUDA_REQUIRED=1
export CUZK_CUDA_SIZES=${CUZK_CUDA_SIZES:-10,16,20,24}
status=0
./build/cuda.test -test.v -test.count=1 -test.run 'NTT|HMatches|Proof|MSMG1|MSMG2' 2>&1 | tee "$out/correctness.log" || status=1
CUZK_CUDA_BENCH=1 ./build/cuda.test -test.v -test.count=1 -test.run 'BenchTable|BenchMSM' 2>&1 | tee "$out/bench.log" || status=1
exit $status
