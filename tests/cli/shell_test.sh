#!/usr/bin/env bash
# `aicost completion bash|zsh|fish` and `aicost man`, run in the shells and in groff as people use
# them: each shell completes commands, subcommands, options and the values a check allows, after
# global options and their values; every command and option `--help` lists is offered (so the
# scripts are checked against CLI11's own help, not against themselves); the man page renders
# without a groff warning and names every command.
#
#   tests/cli/shell_test.sh AICOST
set -u
aicost=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aicost-shell.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for sh in bash zsh fish; do
  "$aicost" completion "$sh" >"$tmp/aicost.$sh" || fail "aicost completion $sh failed"
done
"$aicost" completion tcsh >/dev/null 2>"$tmp/err" && fail "completion tcsh was accepted"
grep -q "bash,zsh,fish" "$tmp/err" || fail "completion tcsh: no list of shells: $(cat "$tmp/err")"

# The commands and options `aicost [CMD...] --help` lists (CLI11's own rendering).
help_commands() { "$aicost" "$@" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}'; }
help_options() { "$aicost" "$@" --help | grep -oE '^ +(-[a-zA-Z],)?--[a-z-]+' | tr ',' '\n' | tr -d ' '; }

# --- bash: the words offered for a command line whose last word is being completed.
bash_complete() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _aicost; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$tmp/aicost.bash" "$@" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect_bash() {  # expect_bash "WANT" WORDS...
  local want=$1; shift
  local got; got=$(bash_complete "$@")
  [ "$got" = "$want" ] || fail "bash: '$*' offers '$got', expected '$want'"
}
expect_bash "ledger" aicost led
expect_bash "change changes check" aicost ledger ch
expect_bash "best-mfu cheapest fastest" aicost search --objective ""
expect_bash "gpus instances models servers" aicost catalog ""
expect_bash "report" aicost --catalog mine.yaml ledger re            # a global option's value is skipped
expect_bash "--granularity" aicost ledger report --by tag:team --gr  # and a subcommand's
expect_bash "" aicost ledger --db ""                                  # a file: bash's own names
expect_bash "--db --dry-run" aicost ledger check --d                         # ledger's option still applies

# Every command and option --help lists is offered, at every level.
check_level() {  # check_level CMD...: what `aicost CMD... --help` lists is what bash offers
  local want got
  want=$(help_commands "$@" | sort | tr '\n' ' ' | sed 's/ $//')
  if [ -n "$want" ]; then
    got=$(bash_complete aicost "$@" "")
    [ "$got" = "$want" ] || fail "bash: 'aicost $*' offers '$got', --help lists '$want'"
  fi
  got=" $(bash_complete aicost "$@" -) "
  for o in $(help_options "$@"); do
    case "$got" in *" $o "*) ;; *) fail "bash: 'aicost $* -' does not offer $o" ;; esac
  done
}
check_level
for c in $(help_commands); do
  check_level "$c"
  for s in $(help_commands "$c"); do check_level "$c" "$s"; done
done

# --- zsh: the completion system's functions replaced by ones that print what they are given.
zsh_complete() {
  zsh -f -c '
    compdef() { :; }
    _describe() { local -a items=(${(P)4%%:*}); print -l -- ${(M)items:#${words[CURRENT]}*}; }
    compadd() { shift; print -l -- "$@"; }
    _files() { print -- "<files>"; }
    source "$1"; shift
    words=("$@"); CURRENT=$#
    _aicost' _ "$tmp/aicost.zsh" "$@" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect_zsh() {
  local want=$1; shift
  local got; got=$(zsh_complete "$@")
  [ "$got" = "$want" ] || fail "zsh: '$*' offers '$got', expected '$want'"
}
expect_zsh "change changes check commitments compact ingest init report sources validate" aicost ledger ""
expect_zsh "best-mfu cheapest fastest" aicost search --objective ""
expect_zsh "report" aicost --catalog mine.yaml ledger re
expect_zsh "<files>" aicost ledger --db ""

# --- fish: `complete -C` answers as an interactive fish would.
fish_complete() {
  fish --no-config -c "source $tmp/aicost.fish; complete -C '$*'" | cut -f1 | sort | tr '\n' ' ' | sed 's/ $//'
}
expect_fish() {
  local want=$1; shift
  local got; got=$(fish_complete "$@")
  [ "$got" = "$want" ] || fail "fish: '$*' offers '$got', expected '$want'"
}
expect_fish "ledger" aicost led
expect_fish "change changes check" aicost ledger ch
expect_fish "best-mfu cheapest fastest" aicost search --objective ""
expect_fish "report" aicost --catalog mine.yaml ledger re
expect_fish "--granularity" aicost ledger report --gr

# --- the man page: renders without a warning, and has a section for every command.
"$aicost" man >"$tmp/aicost.1" || fail "aicost man failed"
groff -man -Tutf8 -ww -z "$tmp/aicost.1" 2>"$tmp/groff.err"
[ -s "$tmp/groff.err" ] && fail "groff warns: $(head -5 "$tmp/groff.err")"
for c in $(help_commands); do
  grep -q "^\.SS \"aicost $c" "$tmp/aicost.1" || fail "man: no section for aicost $c"
  for s in $(help_commands "$c"); do
    grep -q "^\.SS \"aicost $c $s" "$tmp/aicost.1" || fail "man: no section for aicost $c $s"
  done
done
grep -q '^\.TH AICOST 1 .*"aicost '"$("$aicost" --version | cut -d' ' -f2)"'"' "$tmp/aicost.1" ||
  fail "man: .TH does not carry the version --version prints"

[ "$failures" = 0 ] && echo "shell: all checks passed"
exit $((failures > 0))
