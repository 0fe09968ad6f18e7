#!/usr/bin/env bash
# What a first build costs: the README's two commands ("On a fresh machine")
# on a fresh clone, timed one after the other, with the disk target/ takes
# after each. On demand only, never part of the tests. Figures go to the
# README; note the load (printed first) beside them.
#   bench/first-build.sh [COMMIT]     (default: HEAD of this checkout)
# The crates are downloaded before the clock starts (a fresh machine downloads
# them too, at the speed of its network); everything else starts cold.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
commit=$(git -C "$repo" rev-parse "${1:-HEAD}")
dest=$(mktemp -d "${TMPDIR:-/tmp}/memctl-first-build.XXXXXX")
git clone -q "$repo" "$dest/memctl"
cd "$dest/memctl"
git checkout -q "$commit"
cargo fetch --locked -q
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time: apt-get install time)" >&2; exit 1; }
echo "commit $commit, $(nproc) cores, $(uptime)"

# The README's demo command, then its test command, each exactly as printed there.
demo=$(sed -n 's/^\(cargo run .*\)$/\1/p' README.md | head -n 1)
tests=$(sed -n 's/^\(cargo test .*\)$/\1/p' README.md | head -n 1)
step() {
  local name=$1 command=$2
  /usr/bin/time -v bash -c "$command" >"$dest/$name.out" 2>"$dest/$name.err" || true
  printf '%s: %s\n' "$name" "$command"
  printf '  wall %s, peak RSS %s KB, crates compiled %s, %s\n' \
    "$(sed -n 's/.*Elapsed (wall clock) time.*: //p' "$dest/$name.err")" \
    "$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dest/$name.err")" \
    "$(grep -c '^ *Compiling ' "$dest/$name.err" || true)" \
    "$(grep -E '^ *Finished ' "$dest/$name.err" | tail -n 1 | sed 's/^ *//')"
  printf '  target/ %s\n' "$(du -sh target | cut -f1)"
}
step demo "$demo"
grep -E '^ *Compiling ' "$dest/demo.err" | grep -v ' (/' | awk '{print $2}' | sort >"$dest/demo.crates"
step tests "$tests"
grep -E '^ *Compiling ' "$dest/tests.err" | grep -v ' (/' | awk '{print $2}' | sort >"$dest/tests.crates"
echo "dependencies compiled by both (a second build, or the host side of one the tests' proc-macros need): $(comm -12 "$dest/demo.crates" "$dest/tests.crates" | tr '\n' ' ')"
echo "tests: $(grep -E '^test result:' "$dest/tests.out" | awk '{p+=$4; f+=$6; i+=$8} END {print p" passed, "f" failed, "i" ignored"}')"
echo "logs in $dest"
