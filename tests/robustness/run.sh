#!/usr/bin/env bash
# The robustness suite: corrupted params, r1cs (circom and
# cuzk format) and wtns files through the CLI and the C ABI, and a table of
# C ABI misuse cases, each in a child process under a timeout and an
# address-space limit.
#
#   crashed  the child died of a signal, or the Go runtime's fatal error
#   hung     the child ran past the timeout
#   wrong    a returned proof that does not verify against the fixture's own
#            key, a valid request refused, or a misuse accepted
#   unclear  an error without a clear message: CUZK_ERR_INTERNAL, a Go stack
#            or source path in the message, or an unexpected exit status
#   clear    a non-zero code with a message (CLI: exit 2 with a message)
#   accepted the call succeeded, and any proof it returned verified
#
# A case listed in known-defects.txt (id, then the defect) that fails is
# counted as "known" and does not fail the run; a listed case that passes is
# reported so that its line can be removed. Exit status: 1 on any crashed,
# hung, wrong or unclear case that is not listed, else 0.
#
# usage: tests/robustness/run.sh          (after make lib build)
# env:   ROBUSTNESS_FULL=1    the full corpus (default: the quick one)
#        ROBUSTNESS_SEED=N    the corpus seed (default 1)
#        ROBUSTNESS_JOBS=N    children at once (default 2)
#        ROBUSTNESS_TIMEOUT=S seconds per child (default 20)
#        ROBUSTNESS_FILTER=RE run only the case ids matching RE
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/robustness

# One case (run by xargs below): run_one INDEX ID COMMAND...
if [ "${1:-}" = "--one" ]; then
  shift
  idx=$1 id=$2
  shift 2
  out=$work_dir/out/$idx
  set +e
  # The outer braces keep bash's own "Aborted" notice out of the report.
  { (ulimit -v "$mem_kb"; exec timeout -k 2 "$case_timeout" "$@") >"$out.stdout" 2>"$out.stderr" </dev/null; } 2>/dev/null
  rc=$?
  set -e
  detail=$(head -c 300 "$out.stdout" | head -n 1 | tr '\t' ' ')
  fatal=$(grep -m1 -E '^(fatal error|panic:|SIGSEGV|SIGBUS|unexpected fault)' "$out.stderr" | head -c 200 || true)
  case "$id" in
    abi:* | capi:*)
      case $rc in
        0) outcome=accepted ;;
        3) outcome=clear ;;
        4) outcome=wrong ;;
        5) outcome=unclear ;;
        6) outcome=setup ;;
        124 | 137) outcome=hung; detail="no answer in ${case_timeout}s" ;;
        *) outcome=crashed; detail="exit $rc: ${fatal:-$(tail -n 1 "$out.stderr" | head -c 200)}" ;;
      esac ;;
    cli:* | cli-vk:* | cli-setup:*)
      msg=$(grep -v -E '^time=' "$out.stderr" | head -n 1 | head -c 300 || true)
      case $rc in
        0)
          if [ "${id%%:*}" = cli-vk ] || [ "${id%%:*}" = cli-setup ]; then
            outcome=accepted; detail="exit 0: $(head -c 100 "$out.stdout")"
          elif "$root/bin/cuzk" verify --vk "$fixture/c.params" --proof "$out.proof" --public "$out.public.json" >"$out.verify" 2>&1; then
            outcome=accepted; detail="proof verified with the fixture's key"
          else
            outcome=wrong; detail="returned proof does not verify: $(head -c 200 "$out.verify")"
          fi ;;
        1) if [ "${id%%:*}" = cli-vk ]; then outcome=clear; detail="verify exit 1 (invalid)"; else outcome=unclear; detail="exit 1: $msg"; fi ;;
        2)
          if [ -n "$fatal" ]; then outcome=crashed; detail="exit 2: $fatal"
          elif [ -n "$msg" ]; then outcome=clear; detail=$msg
          else outcome=unclear; detail="exit 2 without a message"; fi ;;
        124 | 137) outcome=hung; detail="no answer in ${case_timeout}s" ;;
        *) outcome=crashed; detail="exit $rc: ${fatal:-$(tail -n 1 "$out.stderr" | head -c 200)}" ;;
      esac ;;
  esac
  rm -f "$out.proof" "$out.public.json" "$out.verify" "$out.params"
  printf '%s\t%s\t%s\n' "$id" "$outcome" "$detail" >"$out.result"
  exit 0
fi

[ -x "$root/bin/cuzk" ] && [ -f "$root/build/libcuzk.so" ] || { echo "run.sh: run 'make lib build' first" >&2; exit 2; }
full=${ROBUSTNESS_FULL:-0}
seed=${ROBUSTNESS_SEED:-1}
jobs=${ROBUSTNESS_JOBS:-2}
export case_timeout=${ROBUSTNESS_TIMEOUT:-20}
export mem_kb=$((4 * 1024 * 1024)) # 4 GiB of address space: a size taken on trust fails fast
filter=${ROBUSTNESS_FILTER:-}
work=$here/work
export work_dir=$work fixture=$work/fx
rm -rf "$work" && mkdir -p "$work/out"

# The fixture: a 64-row circuit, its witness, parameters and assignment, and
# a second witness of the same circuit (fx/b) with other public inputs.
source "$root/tests/fixture.sh"
make_fixture "$fixture" 64 1
mkdir -p "$fixture/b"
"$root/bin/cuzk" generate --constraints 64 --dense 0.3 --seed 2 --r1cs "$fixture/b/c.r1cs" --wtns "$fixture/b/w.wtns" >/dev/null
cmp -s "$fixture/c.r1cs" "$fixture/b/c.r1cs" || { echo "run.sh: generate --seed changed the circuit" >&2; exit 2; }
"$root/bin/cuzk" dump-assignment --params "$fixture/c.params" --r1cs "$fixture/c.r1cs" --wtns "$fixture/b/w.wtns" --out "$fixture/b" >/dev/null
printf '[srs]\nvalidation_record_dir = "%s/record"\n' "$fixture" >"$fixture/config.toml"

cc=${CC:-cc}
"$cc" -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I"$root/include" "$here/driver.c" \
  -L"$root/build" -lcuzk -lpthread -Wl,-rpath,"$root/build" -o "$work/driver"
(cd "$root" && go build -o "$work/mutate" ./tests/robustness/mutate)
# Validation records of the children stay in the work directory (after the
# go build: Go keeps its build cache under XDG_CACHE_HOME too).
export XDG_CACHE_HOME=$work/cache
full_flag=()
[ "$full" = 1 ] && full_flag=(-full)
"$work/mutate" -fixture "$fixture" -out "$work/corpus" -seed "$seed" "${full_flag[@]}" \
  -config-examples "$root/core/config/example.toml,$root/core/config/testdata/reference-cuzk.toml" -fifo "$fixture/fifo" >/dev/null

# The case list: one line per child, id then command, NUL-separated fields.
list=$work/cases
: >"$list"
add() { # add ID COMMAND...
  [ -n "$filter" ] && ! grep -qE -- "$filter" <<<"$1" && return 0
  n=$(( ${n:-0} + 1 ))
  printf '%s\0' "$n" "$@" >"$list.$n"
  printf '%s\n' "$n" >>"$list"
}
cli=("$root/bin/cuzk" prove --config "$fixture/config.toml")
while IFS=$'\t' read -r id kind file; do
  o=$work/out/$(( ${n:-0} + 1 ))
  case $kind in
    params)
      add "cli:$id" "${cli[@]}" --params "$file" --r1cs "$fixture/c.r1cs" --wtns "$fixture/w.wtns" --out "$o.proof" --public "$o.public.json"
      [ "$full" = 1 ] && add "cli-vk:$id" "$root/bin/cuzk" verify --vk "$file" --proof "$fixture/good.proof" --public "$fixture/good.public.json"
      add "capi:$id" "$work/driver" params "$file" "$fixture" ;;
    r1cs | cuzkr1cs)
      add "cli:$id" "${cli[@]}" --params "$fixture/c.params" --r1cs "$file" --wtns "$fixture/w.wtns" --out "$o.proof" --public "$o.public.json"
      add "capi:$id" "$work/driver" r1cs "$file" "$fixture"
      # setup reads the whole circuit: every mutant in the
      # full corpus, the header counts in the quick one.
      if [ "$full" = 1 ] || [[ $id == */count-* ]]; then
        add "cli-setup:$id" "$root/bin/cuzk" setup --config "$fixture/config.toml" --r1cs "$file" --out "$o.params" --seed 1
      fi ;;
    wtns)
      add "cli:$id" "${cli[@]}" --params "$fixture/c.params" --r1cs "$fixture/c.r1cs" --wtns "$file" --out "$o.proof" --public "$o.public.json" ;;
    config)
      # A configuration text to cuzk_config (and, in the full corpus, to
      # the command's --config), under the same memory limit.
      # (the command first: $o is the next case's output)
      [ "$full" = 1 ] && add "cli:$id" "$root/bin/cuzk" prove --config "$file" --params "$fixture/c.params" --r1cs "$fixture/c.r1cs" --wtns "$fixture/w.wtns" --out "$o.proof" --public "$o.public.json"
      add "capi:$id" "$work/driver" config "$file" "$fixture" ;;
  esac
done <"$work/corpus/cases.tsv"
# Non-regular files as inputs: a FIFO nobody writes to, a directory.
mkfifo "$fixture/fifo"
for arg in params r1cs wtns; do
  declare -A in=([params]="$fixture/c.params" [r1cs]="$fixture/c.r1cs" [wtns]="$fixture/w.wtns")
  for special in fifo dir; do
    path=$fixture/fifo
    [ $special = dir ] && path=$fixture/b
    in[$arg]=$path
    o=$work/out/$(( ${n:-0} + 1 ))
    add "cli:$arg/$special" "${cli[@]}" --params "${in[params]}" --r1cs "${in[r1cs]}" --wtns "${in[wtns]}" --out "$o.proof" --public "$o.public.json"
  done
done
add "cli-vk:params/fifo" "$root/bin/cuzk" verify --vk "$fixture/fifo" --proof "$fixture/good.proof" --public "$fixture/good.public.json"
for c in $("$work/driver" list); do
  add "abi:$c" "$work/driver" abi "$c" "$fixture"
done
"$root/bin/cuzk" prove --config "$fixture/config.toml" --params "$fixture/c.params" --r1cs "$fixture/c.r1cs" --wtns "$fixture/w.wtns" \
  --out "$fixture/good.proof" --public "$fixture/good.public.json" >/dev/null 2>&1

total=$(wc -l <"$list")
echo "robustness: $total cases ($([ "$full" = 1 ] && echo full || echo quick) corpus, seed $seed, $jobs at a time, ${case_timeout}s each)"
start=$(date +%s)
export -f 2>/dev/null || true
xargs -a "$list" -P "$jobs" -I{} sh -c 'xargs -0 -a "$1.$2" "$3" --one' _ "$list" {} "$here/run.sh"
elapsed=$(( $(date +%s) - start ))

# The report.
known=$here/known-defects.txt
cat "$work"/out/*.result >"$work/results.tsv"
# Categories: abi, and cli / capi / cli-vk by file kind, in sorted order.
order=$(cut -f1 "$work/results.tsv" | sed -E 's#^(abi):.*#\1#; s#^([a-z-]+):([a-z0-9]+)/.*#\1:\2#' | sort -u | tr '\n' ' ')
awk -F'\t' -v known="$known" -v elapsed="$elapsed" -v order="$order" '
  BEGIN {
    while ((getline line < known) > 0) {
      sub(/#.*/, "", line); split(line, f, /[ \t]+/)
      if (f[1] != "") { row[f[1]] = f[2] }
    }
  }
  {
    id = $1; out = $2; cat = id; sub(/:.*/, "", cat)
    if (cat == "cli" || cat == "capi" || cat == "cli-vk" || cat == "cli-setup") { k = id; sub(/^[^:]*:/, "", k); sub(/\/.*/, "", k); cat = cat ":" k }
    cats[cat] = 1; tried[cat]++; all++
    bad = (out == "crashed" || out == "hung" || out == "wrong" || out == "unclear" || out == "setup")
    if (bad && (id in row)) { n[cat, "known"]++; knownlist = knownlist sprintf("  known    %-44s %-8s %-14s %s\n", id, out, row[id], substr($3, 1, 90)); nknown++ }
    else { n[cat, out]++ }
    if (bad && !(id in row)) { faillist = faillist sprintf("  FAIL     %-44s %-8s %s\n", id, out, substr($3, 1, 110)); nfail++ }
    if (!bad && (id in row)) { fixedlist = fixedlist sprintf("  passes   %-44s %-8s (listed as %s: remove its line)\n", id, out, row[id]) }
    seen[id] = 1
  }
  END {
    printf "%-18s %6s %6s %9s %8s %5s %6s %8s %6s\n", "category", "tried", "clear", "accepted", "crashed", "hung", "wrong", "unclear", "known"
    m = split(order, ord, " ")
    for (i = 1; i <= m; i++) {
      c = ord[i]
      printf "%-18s %6d %6d %9d %8d %5d %6d %8d %6d\n", c, tried[c], n[c, "clear"], n[c, "accepted"], n[c, "crashed"], n[c, "hung"], n[c, "wrong"], n[c, "unclear"] + n[c, "setup"], n[c, "known"]
      tc += tried[c]; tcl += n[c, "clear"]; ta += n[c, "accepted"]; tcr += n[c, "crashed"]; th += n[c, "hung"]; tw += n[c, "wrong"]; tu += n[c, "unclear"] + n[c, "setup"]; tk += n[c, "known"]
    }
    printf "%-18s %6d %6d %9d %8d %5d %6d %8d %6d\n", "total", tc, tcl, ta, tcr, th, tw, tu, tk
    printf "(%d s)\n", elapsed
    if (knownlist != "") printf "known defects (listed in known-defects.txt, not failing the run):\n%s", knownlist
    if (fixedlist != "") printf "listed in known-defects.txt but passing now:\n%s", fixedlist
    if (faillist != "") printf "failures:\n%s", faillist
    for (id in row) if (!(id in seen) && ENVIRON["ROBUSTNESS_FILTER"] == "" && (ENVIRON["ROBUSTNESS_FULL"] == "1" || id !~ /^(cli|capi|cli-vk|cli-setup):/)) printf "  note     %s is listed in known-defects.txt but was not run\n", id
    exit nfail > 0 ? 1 : 0
  }' "$work/results.tsv"
