#!/usr/bin/env bash
# `make lint`: first clang-format 14 with .clang-format over every tracked C++ file (tests and
# benchmarks too): a file it would change fails, and `clang-format-14 -i FILE` fixes it. Then
# clang-tidy 14 with the checks in .clang-tidy over the project's own translation units (src/,
# apps/, python/; tests and benchmarks are left out), from the build's compile_commands.json.
# Every finding is an error (WarningsAsErrors); exit 1 lists them.
set -euo pipefail
build=${1:-build}
jobs=${2:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$build/compile_commands.json" ]; then
  echo "lint: $build/compile_commands.json is missing: run 'make build' first" >&2
  exit 2
fi
command -v run-clang-tidy-14 >/dev/null || { echo "lint: run-clang-tidy-14 is missing: run scripts/install-deps.sh (Debian clang-tidy-14)" >&2; exit 2; }
command -v clang-format-14 >/dev/null || { echo "lint: clang-format-14 is missing: run scripts/install-deps.sh" >&2; exit 2; }
unformatted=()
while IFS= read -r -d '' f; do
  clang-format-14 --dry-run -Werror "$root/$f" >/dev/null 2>&1 || unformatted+=("$f")
done < <(git -C "$root" ls-files -z -- '*.cc' '*.h')
if ((${#unformatted[@]})); then
  printf '  %s\n' "${unformatted[@]}" >&2
  echo "lint: these files are not formatted as .clang-format says; run clang-format-14 -i on them" >&2
  exit 1
fi
log=$(mktemp "${TMPDIR:-/tmp}/aicost-lint.XXXXXX")
trap 'rm -f "$log"' EXIT
start=$(date +%s)
if run-clang-tidy-14 -p "$build" -j "$jobs" -quiet "$root/(src|apps|python)/" > "$log" 2>&1; then
  echo "lint: clean ($(( $(date +%s) - start )) s)"
else
  # The findings with their source lines, without clang-tidy's command lines and counts.
  sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -v -e '^clang-tidy-14 ' -e 'warnings generated' -e '^Suppressed ' \
    -e '^Use -header-filter' -e 'treated as errors' -e '^$' >&2 || true
  echo "lint: clang-tidy found the problems above (checks and reasons in .clang-tidy)" >&2
  exit 1
fi
