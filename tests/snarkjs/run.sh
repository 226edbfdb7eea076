#!/usr/bin/env bash
# Independent cross-check of cuzk against circom2 and snarkjs (npm, pinned in
# package.json / package-lock.json). Fails loudly if they cannot be installed.
#   usage: tests/snarkjs/run.sh [path/to/cuzk]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cuzk=$(realpath "${1:-$here/../../bin/cuzk}")
work=$here/work
rm -rf "$work" && mkdir -p "$work"
cd "$here"

passed=0
failed=0
ok()   { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

if ! npm ci --no-audit --no-fund --loglevel=error >"$work/npm.log" 2>&1; then
  cat "$work/npm.log"
  echo "FAIL: could not install circom2/snarkjs/circomlib from npm (see above); this test never skips"
  exit 1
fi
[ -x "$cuzk" ] || { echo "FAIL: no cuzk binary at $cuzk (run make first)"; exit 1; }

msg='cuzk cross-check: SHA-256 of 64-byte message proved on BLS12-381'
npx circom2 sha256_64.circom --r1cs --wasm --prime bls12381 -o "$work" -l node_modules >"$work/circom.log" 2>&1 \
  || { cat "$work/circom.log"; echo "FAIL: circom2 compile"; exit 1; }
grep -E 'constraints|wires|public' "$work/circom.log" | sed 's/\x1b\[[0-9;]*m//g'
node input.js "$msg" >"$work/input.json"
node "$work/sha256_64_js/generate_witness.js" "$work/sha256_64_js/sha256_64.wasm" "$work/input.json" "$work/witness.wtns"

"$cuzk" setup --r1cs "$work/sha256_64.r1cs" --out "$work/sha.params" --seed 42
"$cuzk" prove --params "$work/sha.params" --r1cs "$work/sha256_64.r1cs" --wtns "$work/witness.wtns" \
  --out "$work/proof.bin" --public "$work/public.json"
if node check_public.js "$work/public.json" "$msg"; then ok "public inputs are the message's SHA-256"; else fail "public inputs"; fi

if "$cuzk" verify --vk "$work/sha.params" --proof "$work/proof.bin" --public "$work/public.json"; then
  ok "cuzk verify accepts the proof"; else fail "cuzk verify rejected a good proof"; fi

"$cuzk" export-snarkjs --vk "$work/sha.params" --proof "$work/proof.bin" --public "$work/public.json" --out "$work/js"
if npx snarkjs groth16 verify "$work/js/verification_key.json" "$work/js/public.json" "$work/js/proof.json" | tee "$work/verify.log" \
  && grep -q 'OK!' "$work/verify.log"; then
  ok "snarkjs accepts cuzk's proof"; else fail "snarkjs rejected cuzk's proof"; fi

node tamper.js swap "$work/js/proof.json" "$work/js/proof_tampered.json"
if npx snarkjs groth16 verify "$work/js/verification_key.json" "$work/js/public.json" "$work/js/proof_tampered.json" >"$work/verify_bad.log" 2>&1 \
  && grep -q 'OK!' "$work/verify_bad.log"; then
  fail "snarkjs accepted a tampered proof"; else ok "snarkjs rejects a tampered proof"; fi

node tamper.js public "$work/js/public.json" "$work/js/public_wrong.json"
if npx snarkjs groth16 verify "$work/js/verification_key.json" "$work/js/public_wrong.json" "$work/js/proof.json" >"$work/verify_pub.log" 2>&1 \
  && grep -q 'OK!' "$work/verify_pub.log"; then
  fail "snarkjs accepted a wrong public input"; else ok "snarkjs rejects a wrong public input"; fi

# cuzk's own verifier: a flipped proof byte is invalid (1) or malformed (2), never valid.
# (flipped, not overwritten: the byte may already hold any value)
cp "$work/proof.bin" "$work/proof_bad.bin"
b=$(od -An -tu1 -j100 -N1 "$work/proof.bin" | tr -d ' ')
printf "\\$(printf '%03o' $((b ^ 1)))" | dd of="$work/proof_bad.bin" bs=1 seek=100 conv=notrunc status=none
set +e
"$cuzk" verify --vk "$work/sha.params" --proof "$work/proof_bad.bin" --public "$work/public.json" 2>/dev/null; rc=$?
"$cuzk" verify --vk "$work/sha.params" --proof "$work/proof.bin" --public "$work/js/public_wrong.json" 2>/dev/null; rc2=$?
set -e
if [ "$rc" -ne 0 ]; then ok "cuzk verify refuses a corrupted proof (exit $rc)"; else fail "cuzk verify accepted a corrupted proof"; fi
if [ "$rc2" -eq 1 ]; then ok "cuzk verify rejects a wrong public input (exit 1)"; else fail "cuzk verify: wrong public input gave exit $rc2"; fi

# A circuit over BN254 (circom's default prime) is refused with a clear error.
npx circom2 small_bn254.circom --r1cs -o "$work" >/dev/null 2>&1
set +e
"$cuzk" setup --r1cs "$work/small_bn254.r1cs" --out "$work/bn.params" 2>"$work/bn.err"; rc=$?
set -e
if [ "$rc" -eq 2 ] && grep -q 'not the BLS12-381 scalar field' "$work/bn.err"; then
  ok "a BN254 circuit is refused: $(cat "$work/bn.err")"; else fail "BN254 circuit: exit $rc, $(cat "$work/bn.err")"; fi

echo "snarkjs cross-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
