#!/usr/bin/env bash
# Compares LangGraph.js's cost per checkpointed step with sanad's (see README.md).
# RUNS=N runs each side N times and compares the medians. Exits 1 when sanad is
# less than 12 times faster (target_ratio).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
runs="${RUNS:-1}"
target=12

die() { echo "compare.sh: $*" >&2; exit 1; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, got '$runs'"
command -v node >/dev/null || die "node is required"
command -v go >/dev/null || die "go is required"

if [[ ! -d "$here/node_modules" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund) >&2 || die "npm ci failed in $here"
fi

# p50 NAME OUTPUT: prints OUTPUT's step_us_p50 (a JSON object, alone or on its last line).
p50() {
  node -e '
    const [name, out] = process.argv.slice(1);
    let v;
    try { v = JSON.parse(out.trim()); } catch { try { v = JSON.parse(out.trim().split("\n").pop()); } catch {} }
    const x = v?.step_us_p50;
    if (typeof x !== "number" || !(x > 0)) {
      console.error(`compare.sh: ${name} printed no positive step_us_p50:\n${out}`);
      process.exit(1);
    }
    console.log(x);
  ' "$1" "$2"
}

lg=() sd=()
for ((i = 1; i <= runs; i++)); do
  echo "run $i/$runs: langgraph" >&2
  out="$(cd "$here" && node bench.mjs)" || die "node bench.mjs failed"
  echo "$out" >&2
  lg+=("$(p50 "node bench.mjs" "$out")")

  echo "run $i/$runs: sanad" >&2
  if ! out="$(cd "$root" && go run ./cmd/sanad bench workflow --json)"; then
    die "'go run ./cmd/sanad bench workflow --json' failed in $root; this tree may not have the workflow bench yet"
  fi
  echo "$out" >&2
  sd+=("$(p50 "sanad bench workflow --json" "$out")")
done

node -e '
  const [target, runs, ...rest] = process.argv.slice(1).map(Number);
  const median = (v) => { v = [...v].sort((a, b) => a - b); const m = v.length >> 1; return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2; };
  const lg = median(rest.slice(0, runs)), sd = median(rest.slice(runs));
  const ratio = Math.round((lg / sd) * 100) / 100;
  console.log(JSON.stringify({ langgraph_step_us_p50: lg, sanad_step_us_p50: sd, ratio, target_ratio: target }));
  const of = runs > 1 ? ` (medians of ${runs} runs)` : "";
  console.log(`LangGraph.js takes ${lg} us per checkpointed step and sanad ${sd} us${of}: sanad is ${ratio}x faster, target ${target}x: ${ratio >= target ? "met" : "NOT met"}.`);
  process.exit(ratio >= target ? 0 : 1);
' "$target" "$runs" "${lg[@]}" "${sd[@]}"
