#!/usr/bin/env bash
# Runs the benchmark program and writes docs/BENCHMARKS.md. On demand only:
# timings are never part of the test suite. Installs ripgrep and GNU time
# (the baselines and the memory probe) from the system packages if missing.
#   bench/run.sh [--sizes 1000,10000,100000]
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v rg >/dev/null || missing+=(ripgrep)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}" >&2
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
fi
cargo build --release -p memctl -p memctl-bench
exec target/release/memctl-bench --memctl target/release/memctl --out docs/BENCHMARKS.md "$@"
