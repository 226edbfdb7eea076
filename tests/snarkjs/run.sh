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

# snarkjs's own proof, verified by cuzk: a small circuit set up and proved by
# snarkjs alone (its powers of tau, its zkey), its verification_key.json,
# proof.json and public.json given to cuzk verify as they are.
npx circom2 mul.circom --r1cs --wasm --prime bls12381 -o "$work" >"$work/mul.log" 2>&1 \
  || { cat "$work/mul.log"; echo "FAIL: circom2 compile (mul)"; exit 1; }
echo '{"a": "3", "b": "11"}' >"$work/mul_input.json"
node "$work/mul_js/generate_witness.js" "$work/mul_js/mul.wasm" "$work/mul_input.json" "$work/mul.wtns"
{
  npx snarkjs powersoftau new bls12381 4 "$work/pot0.ptau" &&
  npx snarkjs powersoftau contribute "$work/pot0.ptau" "$work/pot1.ptau" --name=cuzk -e=cuzk-crosscheck &&
  npx snarkjs powersoftau prepare phase2 "$work/pot1.ptau" "$work/pot.ptau" &&
  npx snarkjs groth16 setup "$work/mul.r1cs" "$work/pot.ptau" "$work/mul.zkey" &&
  npx snarkjs zkey export verificationkey "$work/mul.zkey" "$work/mul_vk.json" &&
  npx snarkjs groth16 prove "$work/mul.zkey" "$work/mul.wtns" "$work/mul_proof.json" "$work/mul_public.json"
} >"$work/snarkjs.log" 2>&1 || { cat "$work/snarkjs.log"; echo "FAIL: snarkjs setup and prove (mul)"; exit 1; }
if "$cuzk" verify --vk "$work/mul_vk.json" --proof "$work/mul_proof.json" --public "$work/mul_public.json"; then
  ok "cuzk verify accepts snarkjs's own proof (its verification_key.json, proof.json, public.json)"; else fail "cuzk verify rejected snarkjs's proof"; fi
node tamper.js public "$work/mul_public.json" "$work/mul_public_wrong.json"
set +e
"$cuzk" verify --vk "$work/mul_vk.json" --proof "$work/mul_proof.json" --public "$work/mul_public_wrong.json" 2>/dev/null; rc=$?
set -e
if [ "$rc" -eq 1 ]; then ok "cuzk verify rejects snarkjs's proof with a wrong public input (exit 1)"; else fail "snarkjs proof, wrong public input: exit $rc"; fi
# cuzk info names each file of the ecosystem, as made by circom and snarkjs
"$cuzk" info --json "$work/mul.r1cs" "$work/mul.wtns" "$work/mul_vk.json" "$work/mul_proof.json" "$work/mul_public.json" \
  "$work/mul.zkey" "$work/pot.ptau" >"$work/info.json"
kinds=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).map(f => f.kind).join(" "))' "$work/info.json")
if [ "$kinds" = "circom-r1cs circom-wtns snarkjs-vk snarkjs-proof snarkjs-public snarkjs-zkey ptau" ]; then
  ok "cuzk info names circom's and snarkjs's files: $kinds"; else fail "cuzk info: $kinds"; fi

# A circuit over BN254 (circom's default prime) is refused with a clear error.
npx circom2 small_bn254.circom --r1cs -o "$work" >/dev/null 2>&1
set +e
"$cuzk" setup --r1cs "$work/small_bn254.r1cs" --out "$work/bn.params" 2>"$work/bn.err"; rc=$?
set -e
if [ "$rc" -eq 2 ] && grep -q 'not the BLS12-381 scalar field' "$work/bn.err"; then
  ok "a BN254 circuit is refused: $(cat "$work/bn.err")"; else fail "BN254 circuit: exit $rc, $(cat "$work/bn.err")"; fi

echo "snarkjs cross-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
