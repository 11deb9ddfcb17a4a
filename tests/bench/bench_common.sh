# Sourced by bench_vs_ort.sh and bench_int8_vs_ort.sh after they set `here` (this folder): the repository root and the
# options both take (-b BUILD_DIR -B BACKEND -t THREADS -n RUNS -m MS -r ROUNDS -c CORPUS -o ROWS.jsonl) with their
# defaults.
# shellcheck shell=sh disable=SC2034,SC2154  # `here` comes from, and the options go to, the sourcing script
root=$(cd "$here/../.." && pwd)
build="$root/build/h-bench"
backend=cpu-onednn
threads="1 2"
runs=10
# -m MS: each turn times at least MS milliseconds (more runs than RUNS for fast models): a 1 ms model timed 10 times
# is one time slice of the machine, and a hiccup in it moves the median.
min_ms=400
# Ours and ORT take turns ROUNDS times per model and thread count, at least RUNS timed runs each turn; the medians pool
# every turn's runs, so a busy spell of the machine falls on both sides instead of on one.
rounds=3
# -c quick|full: the models of the benchmark corpus (tests/bench/corpus.py; `corpus.py make` exports them first).
corpus=""
# -o FILE: every row also appended to FILE as one JSON object (tests/bench/corpus_table.py joins fp32 and int8 runs).
rows_out=""
# bench_option OPT ARG: sets the shared option OPT (as getopts names it) to ARG; fails for any other option.
bench_option() {
  case $1 in
    b) build=$2 ;; B) backend=$2 ;; t) threads=$2 ;; n) runs=$2 ;; m) min_ms=$2 ;; r) rounds=$2 ;;
    c) corpus=$2 ;; o) rows_out=$2 ;;
    *) return 1 ;;
  esac
}

# corpus_models KIND: the corpus's model specs (PATH[@NAME=D1,...]) of KIND (fp32 or int8), one per line; an int8
# spec ends in |FP32_PATH, its fp32 model.
corpus_models() {
  case $corpus in
    quick) /usr/bin/python3 "$here/corpus.py" list --quick --kind "$1" --with-fp32 ;;
    full) /usr/bin/python3 "$here/corpus.py" list --kind "$1" --with-fp32 ;;
    *) echo "unknown corpus '$corpus' (quick or full)" >&2; return 1 ;;
  esac
}
