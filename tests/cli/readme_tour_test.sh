#!/usr/bin/env bash
# The README's tour shows what aicost prints. Every command block whose first line is
# "$ aicost ..." is run (in a scratch folder where examples/ is the repository's), and each line
# shown under a command must be a line of what it printed: "..." stands for text left out (a whole
# line of its own, or part of a line: the parts shown must appear in that order, the first at the
# start of the line and the last at its end unless "..." is there). The tour drifted once.
#
#   tests/cli/readme_tour_test.sh AICOST SOURCE_DIR
set -u
aicost=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aicost-readme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ln -s "$src/examples" "$tmp/examples"
cd "$tmp" || exit 1

# shown LINE: true when some line of $tmp/out is LINE with "..." matching any text.
shown() {
  awk -v want="$1" '
    BEGIN { n = split(want, part, /\.\.\./) }
    {
      line = $0; pos = 1; ok = 1
      for (i = 1; i <= n; i++) {
        if (part[i] == "") continue
        at = index(substr(line, pos), part[i])
        if (at == 0 || (i == 1 && at != 1)) { ok = 0; break }
        pos += at - 1 + length(part[i])
      }
      if (ok && part[n] != "" && pos != length(line) + 1) ok = 0
      if (ok) { found = 1; exit }
    }
    END { exit found ? 0 : 1 }' "$tmp/out"
}

failures=0 commands=0 in_block=0 cmd=""
while IFS= read -r line; do
  if [[ $line == '```'* ]]; then in_block=$((1 - in_block)); cmd=""; continue; fi
  ((in_block)) || continue
  if [[ $line == '$ aicost '* ]]; then
    cmd=${line#'$ aicost '}
    commands=$((commands + 1))
    # shellcheck disable=SC2086
    "$aicost" $cmd >"$tmp/out" 2>&1
    continue
  fi
  [[ -n $cmd && -n $line && $line != '...' ]] || continue
  if ! shown "$line"; then
    echo "README: 'aicost $cmd' does not print: $line" >&2
    failures=$((failures + 1))
  fi
done <"$src/README.md"
((commands > 0)) || { echo "README: no \$ aicost block found" >&2; exit 1; }
((failures == 0)) || exit 1
echo "README: the output of its $commands commands is what aicost prints"
