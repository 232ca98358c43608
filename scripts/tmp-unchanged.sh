#!/usr/bin/env bash
# `make test` leaves /tmp as it found it.
#
#   scripts/tmp-unchanged.sh snapshot FILE   lists the entries of $TMPDIR (default /tmp) into FILE
#   scripts/tmp-unchanged.sh check FILE      fails, naming them, if entries appeared since
#
# Compares names, so an entry made and removed again is fine; an entry that was there before and
# is gone is not this check's business. Other programs writing to /tmp while the tests run would
# show here too: on a shared machine, read the names before blaming a test.
set -euo pipefail
dir=${TMPDIR:-/tmp}
case ${1:-} in
  snapshot) ls -A "$dir" | LC_ALL=C sort >"$2" ;;
  check)
    new=$(ls -A "$dir" | LC_ALL=C sort | LC_ALL=C comm -13 "$2" - || true)
    if [[ -n $new ]]; then
      echo "test: the tests left $(wc -l <<<"$new") new entries in $dir (before: $(wc -l <"$2")):" >&2
      sed 's/^/  /' <<<"$new" >&2
      exit 1
    fi
    echo "test: $dir has the $(wc -l <"$2") entries it had before"
    ;;
  *) echo "usage: $0 snapshot|check FILE" >&2; exit 2 ;;
esac
