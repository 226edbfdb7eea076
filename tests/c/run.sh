#!/usr/bin/env bash
# Builds the C tests against build/libcuzk.so and runs them on a generated
# fixture. usage: tests/c/run.sh  (after make lib)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/tests/c/work
source "$root/tests/fixture.sh"
make_fixture "$work" 1024 3
head -c 1000 "$work/c.params" >"$work/corrupt.params"
cc=${CC:-cc}
flags=(-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$root/include" -L"$root/build" -Wl,-rpath,"$root/build")
"$cc" "${flags[@]}" "$root/tests/c/cuzk_api.c" -lcuzk -o "$work/cuzk_api"
"$cc" "${flags[@]}" "$root/tests/c/supraseal.c" -lcuzk -lpthread -o "$work/supraseal"
"$cc" "${flags[@]}" "$root/tests/c/freed_inputs.c" -lcuzk -o "$work/freed_inputs"
"$cc" "${flags[@]}" "$root/tests/c/bounds.c" -lcuzk -o "$work/bounds"
# The headers compiled against the library's exports (tests/c/exports.c):
# Go's generated header beside a const-free copy of the hand-written ones.
[ -f "$root/build/cgo/libcuzk.h" ] || { echo "FAIL: build/cgo/libcuzk.h missing (make lib writes it)"; exit 1; }
mkdir -p "$work/noconst"
for h in cuzk.h supraseal_c2.h; do sed -E 's/\bconst\b//g' "$root/include/$h" >"$work/noconst/$h"; done
"$cc" -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$work/noconst" -I"$root/build/cgo" -fsyntax-only "$root/tests/c/exports.c"
declared() { grep -ohE '\b(cuzk_[a-z_]+|create_gpu_mutex|destroy_gpu_mutex|create_SRS|evict_SRS|drop_SRS|clone_SRS|generate_groth16_proofs_c|generate_groth16_proofs_start_c|finalize_groth16_proof_c|destroy_pending_proof)\(' "$@" | tr -d '(' | sort -u; }
headers=$(declared "$root/include/cuzk.h" "$root/include/supraseal_c2.h")
gohdr=$(grep -E '^extern ' "$root/build/cgo/libcuzk.h" | grep -oE '\b[A-Za-z_][A-Za-z0-9_]*\(' | tr -d '(' | grep -vE '^_Go' | sort -u)
if [ "$headers" != "$gohdr" ]; then
  echo "FAIL: the headers and capi's exports declare different functions:"
  diff <(echo "$headers") <(echo "$gohdr") || true
  exit 1
fi
echo "exports.c: every header function compiled against capi's export ($(wc -l <<<"$headers") functions)"
# cuda/cuzk_cuda.h's handles are typed: the right calls build, each wrong
# kind does not (tests/c/cuda_handles.c).
"$cc" -std=c11 -Wall -Wextra -Werror -I"$root/cuda" -fsyntax-only "$root/tests/c/cuda_handles.c"
for i in 1 2 3 4 5 6; do
  if "$cc" -std=c11 -Wall -Wextra -Werror -I"$root/cuda" -fsyntax-only -DWRONG=$i "$root/tests/c/cuda_handles.c" 2>/dev/null; then
    echo "FAIL: cuda_handles.c case $i (a handle of another kind) compiled"; exit 1
  fi
done
echo "cuda_handles.c: each handle kind refused by the others' functions (6 cases)"
# Every symbol of both headers is exported.
missing=0
exported=$(nm -D --defined-only "$root/build/libcuzk.so")
for sym in $(grep -ohE '\b(cuzk_[a-z_]+|create_gpu_mutex|destroy_gpu_mutex|create_SRS|evict_SRS|drop_SRS|clone_SRS|generate_groth16_proofs_c|generate_groth16_proofs_start_c|finalize_groth16_proof_c|destroy_pending_proof)\(' "$root/include/cuzk.h" "$root/include/supraseal_c2.h" | tr -d '(' | sort -u); do
  grep -qw "$sym" <<<"$exported" || { echo "FAIL: $sym not exported"; missing=1; }
done
[ $missing -eq 0 ] && echo "nm -D: every header symbol is exported"
# make install lays out the library, the headers and a pkg-config file.
make -s -C "$root" install PREFIX="$work/prefix" >/dev/null
for f in lib/libcuzk.so include/cuzk.h include/supraseal_c2.h lib/pkgconfig/cuzk.pc; do
  [ -f "$work/prefix/$f" ] || { echo "FAIL: make install did not write $f"; missing=1; }
done
[ "$(PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig pkg-config --libs cuzk 2>/dev/null || grep '^Libs' "$work/prefix/lib/pkgconfig/cuzk.pc")" != "" ] && echo "make install: library, headers, cuzk.pc"
"$work/cuzk_api" "$work"
"$work/supraseal" "$work"
"$work/freed_inputs" "$work"
"$work/bounds" "$work"
exit $missing
