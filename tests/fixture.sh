# Sourced by the binding tests: make_fixture DIR CONSTRAINTS SEED writes a
# synthetic circuit (c.r1cs), its witness, development parameters
# (c.params) and the dump-assignment files into DIR, with bin/cuzk.
make_fixture() {
  local dir=$1 constraints=$2 seed=$3 cuzk
  cuzk=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bin/cuzk
  rm -rf "$dir" && mkdir -p "$dir"
  "$cuzk" generate --constraints "$constraints" --dense 0.3 --r1cs "$dir/c.r1cs" --wtns "$dir/w.wtns" >/dev/null
  "$cuzk" setup --r1cs "$dir/c.r1cs" --out "$dir/c.params" --seed "$seed" >/dev/null
  "$cuzk" dump-assignment --params "$dir/c.params" --r1cs "$dir/c.r1cs" --wtns "$dir/w.wtns" --out "$dir" >/dev/null
}
