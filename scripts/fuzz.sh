#!/usr/bin/env bash
# Coverage-guided fuzzing of the billing and telemetry readers (libFuzzer + ASan + UBSan).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 10)
#
# Configures and builds fuzz/ into build-fuzz/ with clang, builds a seed corpus per target from the
# public samples (../shared/data/billing-samples, or $AICOST_SAMPLES) and tests/data, replays
# fuzz/regressions/, then fuzzes every target for SECONDS_PER_TARGET (targets run side by side,
# $FUZZ_JOBS at a time, default nproc). Prints one line per target and exits 1 on any crash,
# sanitizer report, broken invariant, timeout or memory blow-up, naming the reproducer (a new one
# lands in build-fuzz/artifacts/). Replay one with: build-fuzz/fuzz_<format> <file>. A crash found
# here is kept as fuzz/regressions/<target>-<short-name> and replayed first on every run.
#
# Idempotent. Inputs found by earlier runs stay in build-fuzz/work/<target>/ and are replayed
# first; delete that folder to start from the seeds alone.
set -euo pipefail

secs=${1:-10}
[[ $secs =~ ^[0-9]+$ && $secs -gt 0 ]] || { echo "usage: $0 [SECONDS_PER_TARGET]" >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-fuzz
samples=${AICOST_SAMPLES:-$root/../shared/data/billing-samples}
jobs=${FUZZ_JOBS:-$(nproc)}
targets=(focus aws_cur azure gcp oci dcgm_prometheus dcgm_csv auto)
max_len=65536

# --- build -------------------------------------------------------------------------------------
mkdir -p "$build/logs"
if [[ ! -f $build/build.ninja ]]; then
  cxx=$(command -v clang++ || command -v clang++-14 || true)
  [[ -n $cxx ]] || { echo "fuzz: clang++ not found (scripts/install-deps.sh installs clang)" >&2; exit 1; }
  if ! cmake -S "$root/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" >"$build/logs/configure.log" 2>&1; then
    cat "$build/logs/configure.log" >&2
    rm -f "$build/build.ninja"  # configure again next time
    exit 1
  fi
fi
if ! cmake --build "$build" >"$build/logs/build.log" 2>&1; then
  grep -v '^\[[0-9]*/[0-9]*\] ' "$build/logs/build.log" >&2 || true
  echo "fuzz: build failed (full log: $build/logs/build.log)" >&2
  exit 1
fi

# --- seed corpora, rebuilt every run; big files cut to their first 64 KiB --------------------------
seeds_for() {
  local s=$samples
  case $1 in
    focus) echo "$s"/focus-sample-data/*.csv "$s"/focus-spec-examples/*.csv ;;
    aws_cur) echo "$s"/koku/aws_test_cur.csv "$s"/focus-converters/aws_cur_legacy_sample-*.csv ;;
    azure) echo "$s"/koku/azure_*.csv "$s"/focus-converters/azure_ea_sample-*.csv \
                "$s"/microsoft-finops-toolkit/EA_*.csv "$s"/opencost/azure_billingexport_*.csv ;;
    gcp) echo "$s"/koku/gcp_billing_export_*.csv ;;
    oci) echo "$s"/focus-converters/oci_reports_cost-*.csv ;;
    dcgm_prometheus) echo "$root"/tests/data/dcgm/*.prom ;;
    dcgm_csv) echo "$s"/datadog-dcgm-fixture/*.csv "$s"/nvidia-dcgm-exporter/*.csv ;;
    auto) local t; for t in focus aws_cur azure gcp oci dcgm_prometheus dcgm_csv; do seeds_for "$t"; done ;;
  esac
}
[[ -d $samples ]] || echo "fuzz: warning: no samples at $samples (set AICOST_SAMPLES); fuzzing from tests/data only" >&2
for t in "${targets[@]}"; do
  rm -rf "$build/corpus/$t"
  mkdir -p "$build/corpus/$t" "$build/work/$t"
  for f in $(seeds_for "$t"); do
    if [[ -f $f ]]; then head -c $max_len "$f" >"$build/corpus/$t/$(basename "$f")"; fi
  done
done
cat "$root"/fuzz/*.dict >"$build/auto.dict"
mkdir -p "$build/artifacts"

# --- run -------------------------------------------------------------------------------------------
symbolizer=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}${symbolizer:+external_symbolizer_path=$symbolizer:}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1

run_target() {
  local t=$1 bin=$build/fuzz_$1 log=$build/logs/fuzz_$1.log dict=$root/fuzz/$1.dict
  [[ $t == auto ]] && dict=$build/auto.dict
  local regressions=("$root"/fuzz/regressions/"$t"-*)
  {
    if [[ -e ${regressions[0]} ]]; then
      "$bin" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$build/artifacts/$t-" "${regressions[@]}" ||
        return $?
    fi
    echo "fuzz.sh: fuzzing"
    "$bin" -max_total_time="$secs" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -dict="$dict" \
      -artifact_prefix="$build/artifacts/$t-" -print_final_stats=1 "$build/work/$t" "$build/corpus/$t"
  } >"$log" 2>&1
}

rm -f "$build"/logs/*.rc
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then wait -n || true; running=$((running - 1)); fi
  ( rc=0; run_target "$t" || rc=$?; echo $rc >"$build/logs/fuzz_$t.rc" ) &
  running=$((running + 1))
done
wait

final_stat() { sed -n "s/^stat::$1: *//p" "$2" | tail -1; }
failed=0
for t in "${targets[@]}"; do
  log=$build/logs/fuzz_$t.log
  rc=$(cat "$build/logs/fuzz_$t.rc" 2>/dev/null || echo 1)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1 || true)
  if [[ $rc -eq 0 ]]; then
    printf 'fuzz_%-16s ok    %9s execs %6s/s  %s\n' "$t" "$(final_stat number_of_executed_units "$log")" \
      "$(final_stat average_exec_per_sec "$log")" "${cov:-cov: ?}"
    continue
  fi
  failed=1
  printf 'fuzz_%-16s FAIL  (exit %s) %s\n' "$t" "$rc" \
    "$(grep -Em1 '^==[0-9]+== ?ERROR|^SUMMARY|runtime error|invariant broken|Timeout|out-of-memory|uncaught exception|terminate called|deadly signal' "$log" || true)"
  # A new crash is written to artifacts/; a failing regression is the file it was replaying.
  reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
  if [[ -z $reproducer ]] && ! grep -q '^fuzz.sh: fuzzing$' "$log"; then
    reproducer=$(sed -n 's/^Running: //p' "$log" | tail -1)
  fi
  echo "  reproducer: ${reproducer:-none written}   replay: $build/fuzz_$t ${reproducer:-<file>}"
  echo "  log: $log"
done
exit $failed
