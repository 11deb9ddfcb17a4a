#!/usr/bin/env bash
# Seeds a corpus from the seed globs ('|'-separated), then fuzzes for the given seconds, starting from the corpus, the
# seeds and the kept findings (each of which must run clean first). Exit 0 means no finding; a finding leaves its
# input in WORK/artifacts and fails. Prints the run count (stat::number_of_executed_units).
# With RUNS > 0 it stops after that many inputs instead (SECONDS becomes a safety limit of 4x): from a fixed SEED the
# same inputs then run on every machine, however fast, so what passes here passes in CI.
#   run_fuzz.sh FUZZER WORK SECONDS 'GLOB|GLOB...' [FINDINGS_FOLDER] [SEED (0: random)] [RUNS (0: until SECONDS)]
set -euo pipefail
FUZZER="$1"; WORK="$2"; SECONDS_TO_RUN="$3"; SEED_GLOBS="${4:-}"; FINDINGS="${5:-}"; SEED="${6:-0}"; RUNS="${7:-0}"
CORPUS="$WORK/corpus"; SEEDS="$WORK/seeds"
mkdir -p "$CORPUS" "$SEEDS" "$WORK/artifacts"
if [ -z "$(ls -A "$SEEDS")" ]; then
  IFS='|' read -r -a globs <<<"$SEED_GLOBS"
  for g in "${globs[@]}"; do
    for f in $g; do
      # Named by content, not by path: the seeds' order steers the mutations, so a clone anywhere fuzzes alike.
      [ -f "$f" ] && [ "$(stat -c %s "$f")" -lt 65536 ] && cp "$f" "$SEEDS/$(md5sum <"$f" | cut -c1-12)-$(basename "$f")"
    done
  done
fi
KEPT=()
if [ -n "$FINDINGS" ] && [ -d "$FINDINGS" ]; then KEPT=("$FINDINGS"); fi
LIMIT=(-max_total_time="$SECONDS_TO_RUN")
if [ "$RUNS" -gt 0 ]; then LIMIT=(-runs="$RUNS" -max_total_time="$((SECONDS_TO_RUN * 4))"); fi
echo "$(basename "$FUZZER"): $(ls "$SEEDS" | wc -l) seeds, ${#KEPT[@]} findings folder, ${LIMIT[*]}, seed $SEED"
set +e
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 "$FUZZER" "$CORPUS" "$SEEDS" "${KEPT[@]}" -seed="$SEED" \
  "${LIMIT[@]}" -rss_limit_mb=4096 -malloc_limit_mb=4096 -timeout=20 \
  -artifact_prefix="$WORK/artifacts/" -print_final_stats=1 >"$WORK/last.log" 2>&1
rc=$?
set -e
grep -E "stat::number_of_executed_units|stat::peak_rss_mb|ERROR|SUMMARY|Test unit written" "$WORK/last.log" || true
[ "$rc" -eq 0 ] || tail -60 "$WORK/last.log"
exit "$rc"
