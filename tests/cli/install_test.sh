#!/usr/bin/env bash
# `make install` and `make deb` as a packager runs them: `cmake --install` into a DESTDIR puts the
# binary, its private libduckdb, the man page, the three completions and the docs where each
# belongs; the installed binary runs from anywhere (its data is inside it, its rpath finds
# libduckdb, Parquet included); the .deb carries the same tree, Depends computed by dpkg-shlibdeps,
# and its binary runs once unpacked.
#
#   tests/cli/install_test.sh BUILD_DIR SOURCE_DIR
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/aicost-install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# check_tree ROOT: the installed files under ROOT/usr and the binary running from elsewhere.
check_tree() {
  local r=$1/usr
  for f in bin/aicost share/man/man1/aicost.1* share/bash-completion/completions/aicost \
           share/zsh/vendor-completions/_aicost share/fish/vendor_completions.d/aicost.fish \
           share/doc/aicost/README.md share/doc/aicost/OPTIMIZE.md share/doc/aicost/examples/gpt3-175b-a100.yaml; do
    ls $r/$f >/dev/null 2>&1 || fail "$1: $f not installed"
  done
  ls "$r"/lib*/aicost/libduckdb.so >/dev/null 2>&1 || fail "$1: libduckdb.so not in a private lib folder"
  (cd "$tmp" && env -u AICOST_CATALOG "$r/bin/aicost" --version) | grep -q '^aicost [0-9]' || fail "$1: --version"
  (cd "$tmp" && "$r/bin/aicost" estimate "$r/share/doc/aicost/examples/gpt3-175b-a100.yaml" -o json) >"$tmp/est.json" ||
    fail "$1: the installed binary cannot estimate the installed example"
  grep -q '"total_usd"' "$tmp/est.json" || fail "$1: estimate printed no total"
  ldd "$r/bin/aicost" | grep -q 'libduckdb.so => .*/lib.*/aicost/libduckdb.so' || fail "$1: rpath does not find libduckdb: $(ldd "$r/bin/aicost" | grep duckdb)"
}

DESTDIR=$tmp/root cmake --install "$build" --prefix /usr >"$tmp/install.log" 2>&1 || fail "cmake --install: $(tail -3 "$tmp/install.log")"
check_tree "$tmp/root"
cmp -s "$tmp/root/usr/share/bash-completion/completions/aicost" <("$build/apps/aicost/aicost" completion bash) ||
  fail "the installed bash completion is not what aicost completion bash prints"

mkdir "$tmp/deb"
deb=$("$src/scripts/make-deb.sh" "$build" "$tmp/deb" 2>"$tmp/deb.err") || fail "make-deb: $(cat "$tmp/deb.err")"
if [ -f "$deb" ]; then
  dpkg-deb -f "$deb" Package Version Depends >"$tmp/control"
  grep -q '^Package: aicost$' "$tmp/control" || fail "deb: no Package: aicost"
  grep -q "^Version: $("$build/apps/aicost/aicost" --version | cut -d' ' -f2)$" "$tmp/control" || fail "deb: Version is not --version's"
  for lib in libc6 libsqlite3 libpq5 libyaml-cpp libjemalloc2; do
    grep -q "^Depends:.*$lib" "$tmp/control" || fail "deb: Depends lacks $lib: $(grep Depends "$tmp/control")"
  done
  dpkg-deb -x "$deb" "$tmp/unpacked"
  check_tree "$tmp/unpacked"
  dpkg-deb -c "$deb" | awk '{print $2}' | sort -u | grep -qv '^root/root$' && fail "deb: files not owned by root/root"
fi

[ "$failures" = 0 ] && echo "install: all checks passed"
exit $((failures > 0))
