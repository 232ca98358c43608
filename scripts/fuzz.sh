#!/usr/bin/env bash
# Coverage-guided fuzzing of the billing and telemetry readers (libFuzzer + ASan + UBSan), and of
# the ledger path behind them (fuzz_ledger: a fuzzed file into a fresh SQLite ledger, then reports,
# a governance check and every output format).
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 10)
#
# FUZZ_SEED (default 1) seeds libFuzzer's mutations, and each target stops after a fixed number of
# inputs (its rate on a 2-core machine here times SECONDS_PER_TARGET) or at SECONDS_PER_TARGET,
# whichever comes first. So `make test` on a clean clone tries a prefix of one fixed sequence of
# inputs on every machine: a CI failure reproduces, and `FUZZ_UNTIMED=1 scripts/fuzz.sh 10` with
# build-fuzz/work/ removed tries every input CI can try, however long that takes here. FUZZ_SEED=0
# draws a fresh seed per run and lifts the input cap, for exploration.
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
seed=${FUZZ_SEED:-1}
[[ $seed =~ ^[0-9]+$ ]] || { echo "fuzz: FUZZ_SEED must be a whole number (0: a fresh seed per run)" >&2; exit 2; }
untimed=${FUZZ_UNTIMED:-0}
targets=(focus aws_cur azure gcp oci dcgm_prometheus dcgm_csv slurm opencost ocp auto ledger)
# Inputs per second each target ran at in CI (2 cores, all targets side by side): the seeded run's
# input cap is this times SECONDS_PER_TARGET.
declare -A rate=([focus]=150 [aws_cur]=180 [azure]=600 [gcp]=1000 [oci]=550 [dcgm_prometheus]=4800
  [dcgm_csv]=1250 [slurm]=1250 [opencost]=850 [ocp]=450 [auto]=180 [ledger]=25)
# fuzz_ledger's first byte picks the format: its index in this list (fuzz/fuzz_ledger.cc).
ledger_formats=(auto focus aws_cur azure gcp oci dcgm_prometheus dcgm_csv opencost ocp)
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
    slurm) echo "$root"/examples/usage/sacct-*.txt ;;
    opencost) echo "$root"/tests/data/opencost/*.csv "$root"/examples/usage/opencost-*.csv ;;
    ocp) echo "$root"/tests/data/ocp/*.csv "$root"/tests/data/ocp/operator/*.csv ;;
    auto) local t; for t in focus aws_cur azure gcp oci dcgm_prometheus dcgm_csv slurm opencost ocp; do seeds_for "$t"; done ;;
  esac
}
# Seeds the samples lack: bytes that are not UTF-8 and NULs (the byte policy, src/billing/guard.h)
# and rows with long tag sets (the caps), one file of each per format.
synthetic_seeds() {
  local t=$1 out=$2 n tags=""
  case $t in
    focus | auto)
      for ((n = 0; n < 1100; n++)); do tags+="${tags:+,}\"\"k$n\"\":\"\"v\"\""; done
      printf 'BilledCost,ChargePeriodStart,BillingCurrency,ChargeDescription,Tags\n1.5,2024-09-01T00:00:00Z,usd,M\xfcnchen \xe2\x82,"{%s}"\n2,2024-09-02T00:00:00Z,EUR,a\x00b,"{""t\xed\xa0\x80"":""\\u0000""}"\n' \
        "$tags" >"$out/synthetic-focus.csv" ;;&
    aws_cur | auto)
      { printf 'lineItem/UsageStartDate,lineItem/UnblendedCost,lineItem/CurrencyCode,lineItem/LineItemDescription'
        for ((n = 0; n < 1100; n++)); do printf ',resourceTags/user:k%d' $n; done
        printf '\n2024-09-01T00:00:00Z,9300000000,usd,caf\xe9'
        for ((n = 0; n < 1100; n++)); do printf ',v'; done; printf '\n'; } >"$out/synthetic-aws.csv" ;;&
    azure | auto)
      printf 'Date,CostInBillingCurrency,BillingCurrencyCode,ProductName,Tags\n09/01/2024,1,EUR,Ger\xe4t,"""team"": ""m\xfcller"""\n4/12/2262,1,eur,x,\n' \
        >"$out/synthetic-azure.csv" ;;&
    gcp | auto)
      tags=""
      for ((n = 0; n < 1100; n++)); do tags+="${tags:+, }{'key': 'k$n', 'value': 'v'}"; done
      printf 'usage_start_time,cost,currency,service.description,labels\n2024-09-01T00:00:00Z,1,usd,Comp\xfcte,"[%s]"\n' "$tags" \
        >"$out/synthetic-gcp.csv" ;;&
    oci | auto)
      printf 'lineItem/intervalUsageStart,cost/myCost,cost/currencyCode,tags/ns.k\n2024-09-01T00:00:00Z,1,usd,\xff\xfe\n' \
        >"$out/synthetic-oci.csv" ;;&
    dcgm_prometheus | auto)
      printf 'DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="n\xf6de"} 50 1725148800000\nDCGM_FI_DEV_GPU_UTIL{gpu="1"} 5 9300000000000000\n' \
        >"$out/synthetic-dcgm.prom" ;;&
    dcgm_csv | auto)
      printf 'metric,gpu,Hostname,value,timestamp\nDCGM_FI_DEV_GPU_UTIL,0,n\xf6de,50,1725148800\n' >"$out/synthetic-dcgm.csv" ;;
  esac
}

[[ -d $samples ]] || echo "fuzz: warning: no samples at $samples (set AICOST_SAMPLES); fuzzing from tests/data only" >&2
for t in "${targets[@]}"; do
  rm -rf "$build/corpus/$t"
  mkdir -p "$build/corpus/$t" "$build/work/$t"
  [[ $t == ledger ]] && continue
  for f in $(seeds_for "$t"); do
    if [[ -f $f ]]; then head -c $max_len "$f" >"$build/corpus/$t/$(basename "$f")"; fi
  done
  synthetic_seeds "$t" "$build/corpus/$t"
done
# fuzz_ledger: every reader's seeds, each behind the byte that picks its format.
for i in "${!ledger_formats[@]}"; do
  [[ ${ledger_formats[$i]} == auto ]] && continue
  for f in "$build/corpus/${ledger_formats[$i]}"/*; do
    [[ -f $f ]] || continue
    { printf "\\x$(printf %02x "$i")"; head -c $((max_len - 1)) "$f"; } >"$build/corpus/ledger/${ledger_formats[$i]}-$(basename "$f")"
  done
done
for t in "${targets[@]}"; do
  case $t in
    auto | ledger) cat "$root"/fuzz/*.dict ;;
    *) cat "$root/fuzz/$t.dict" "$root/fuzz/bytes.dict" ;;
  esac >"$build/$t.dict"
done
mkdir -p "$build/artifacts"

# --- run -------------------------------------------------------------------------------------------
symbolizer=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}${symbolizer:+external_symbolizer_path=$symbolizer:}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1

run_target() {
  local t=$1 bin=$build/fuzz_$1 log=$build/logs/fuzz_$1.log dict=$build/$1.dict
  local regressions=("$root"/fuzz/regressions/"$t"-*)
  {
    if [[ -e ${regressions[0]} ]]; then
      "$bin" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$build/artifacts/$t-" "${regressions[@]}" ||
        return $?
    fi
    echo "fuzz.sh: fuzzing"
    local limits=(-max_total_time="$secs")
    ((seed == 0)) || limits+=(-runs=$((rate[$t] * secs)))
    ((untimed == 0)) || limits=(-runs=$((rate[$t] * secs)))
    "$bin" -seed="$seed" "${limits[@]}" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -dict="$dict" \
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
