#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs every libFuzzer target for SECONDS each, two at a time, with seed corpora generated into a
# temp dir (never into the repo), and prints libFuzzer's final stats line per target.
#
#   tests/fuzz/run_fuzzers.sh SECONDS [BUILD_DIR] [TARGET...]
#
# BUILD_DIR defaults to build-fuzz (configure: CC=clang CXX=clang++ cmake -S . -B build-fuzz
# -DTPUSCOPE_BUILD_FUZZERS=ON -DTPUSCOPE_BUILD_GUI=OFF -DTPUSCOPE_BUILD_TESTS=OFF
# -DTPUSCOPE_BUILD_BENCH=OFF; build: cmake --build build-fuzz --target fuzzers).
# Env: TPUSCOPE_CLI (a tpuscope-cli for synthetic seeds), JOBS (parallel targets, default 2),
# FUZZ_WORK (keep corpora, logs and crashers there instead of a fresh temp dir).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
seconds="${1:?usage: run_fuzzers.sh SECONDS [BUILD_DIR] [TARGET...]}"
build="${2:-$repo/build-fuzz}"
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$build"/tests/fuzz/fuzz_*; do [ -x "$f" ] && targets+=("$(basename "$f" | sed 's/^fuzz_//')"); done
fi
work="${FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/tpuscope-fuzz.XXXXXX")}"
mkdir -p "$work"
samples="$repo/../shared/samples"

# Synthetic XSpace seeds (and share files made from them) when a tpuscope-cli is at hand.
cli="${TPUSCOPE_CLI:-}"
synth=()
if [ -n "$cli" ] && [ -x "$cli" ]; then
  for s in bench:40 origin-story; do
    out="$work/synth_${s%%:*}.xplane.pb"
    "$cli" synth "$s" -o "$out" >/dev/null && synth+=("$out")
    "$cli" share "$out" -o "${out%.xplane.pb}.tpuscope" >/dev/null 2>&1 || true
  done
fi
python3 "$here/make_seeds.py" "$work/seeds" "$samples" "${synth[@]}"

run_one() {
  local t="$1" corpus="$work/corpus/$1"
  mkdir -p "$corpus" "$work/artifacts/$t"
  [ -d "$work/seeds/$t" ] && cp -n "$work/seeds/$t"/* "$corpus"/ 2>/dev/null || true
  nice "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/$t/" "$corpus" >"$work/$t.log" 2>&1 || true
  local done_line
  done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$work/$t.log" | tail -1 || true)"
  local crashes
  crashes="$(ls "$work/artifacts/$t" | wc -l)"
  printf '%-14s %s  artifacts=%s\n' "$t" "${done_line:-(no DONE line; see $work/$t.log)}" "$crashes"
}

echo "work dir: $work"
jobs="${JOBS:-2}"
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
