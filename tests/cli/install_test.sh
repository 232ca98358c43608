#!/usr/bin/env bash
# `make install` and `make deb` as a packager runs them: `cmake --install` into a DESTDIR puts the
# binary, its private libduckdb, the man page, the three completions and the docs where each
# belongs; the installed binary runs from anywhere (its data is inside it, its rpath finds
# libduckdb, Parquet included); the .deb carries the same tree, Depends computed by dpkg-shlibdeps,
# and its binary runs once unpacked. The Python package (docs/PYTHON.md) goes into the prefix's
# dist-packages: PYTHON imports it from there alone, estimates, and reads Parquet through the
# private libduckdb its module finds by its own rpath.
#
#   tests/cli/install_test.sh BUILD_DIR SOURCE_DIR PYTHON
set -u
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
python=${3:-}  # empty when the build has no Python module (a plain cmake without pybind11)
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
  check_python "$1"
}

# check_python ROOT: the installed package, imported by PYTHON from ROOT's dist-packages only (run
# from elsewhere, no PYTHONPATH into the build), estimates the installed example and ingests a
# Parquet copy of the FOCUS example (written by the installed libduckdb) into a new ledger.
check_python() {
  local r=$1/usr pkg
  [ -n "$python" ] || return 0
  pkg=$(ls -d "$r"/lib/python3*/dist-packages 2>/dev/null | head -1)
  [ -f "$pkg/aicost/__init__.py" ] && ls "$pkg"/aicost/_native*.so >/dev/null 2>&1 ||
    { fail "$1: the Python package is not in $r/lib/python3*/dist-packages"; return; }
  rm -f "$tmp/focus.parquet" "$tmp/py.db"
  # The Parquet file is written in a process of its own: one that had loaded libduckdb already
  # would hand the module that copy, whatever the module's rpath.
  (cd "$tmp" && "$python" - "$r"/lib*/aicost/libduckdb.so "$src/examples/governance/focus-ai-lab-2025-05-06.csv" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
db, con = ctypes.c_void_p(), ctypes.c_void_p()
assert lib.duckdb_open(None, ctypes.byref(db)) == 0 and lib.duckdb_connect(db, ctypes.byref(con)) == 0
sql = "COPY (FROM read_csv('%s', all_varchar = true)) TO 'focus.parquet' (FORMAT parquet)" % sys.argv[2]
assert lib.duckdb_query(con, sql.encode(), None) == 0
PY
  ) >"$tmp/py.log" 2>&1 || { fail "$1: writing Parquet with the installed libduckdb: $(tail -1 "$tmp/py.log")"; return; }
  (cd "$tmp" && env -u AICOST_DUCKDB_LIB PYTHONPATH="$pkg" PYTHONDONTWRITEBYTECODE=1 "$python" - \
     "$r/share/doc/aicost/examples/gpt3-175b-a100.yaml" <<'PY'
import os, sys
import aicost
assert aicost.__file__.startswith(os.environ["PYTHONPATH"]), aicost.__file__
assert aicost.estimate(sys.argv[1])["cost"]["total_usd"] > 0
got = aicost.Ledger("py.db").ingest(["focus.parquet"])
assert got[0]["outcome"] == "loaded" and got[0]["records"] > 0, got
PY
  ) >"$tmp/py.log" 2>&1 || fail "$1: the installed Python package: $(tail -1 "$tmp/py.log")"
}

# parquet_without_duckdb ROOT: with its private libduckdb gone, the package still imports, and a
# Parquet file is refused with an error that names the missing library.
parquet_without_duckdb() {
  local pkg
  [ -n "$python" ] || return 0
  pkg=$(ls -d "$1"/usr/lib/python3*/dist-packages | head -1)
  rm -f "$1"/usr/lib*/aicost/libduckdb.so "$tmp/py.db"
  (cd "$tmp" && env -u AICOST_DUCKDB_LIB PYTHONPATH="$pkg" PYTHONDONTWRITEBYTECODE=1 "$python" -c '
import aicost
try:
    print(aicost.Ledger("py.db").ingest(["focus.parquet"]))
except aicost.Error as e:
    print(e)
') >"$tmp/py.log" 2>&1
  grep -q 'focus.parquet.*libduckdb.so' "$tmp/py.log" ||
    fail "$1: a Parquet file without libduckdb: $(tail -1 "$tmp/py.log")"
}

DESTDIR=$tmp/root cmake --install "$build" --prefix /usr >"$tmp/install.log" 2>&1 || fail "cmake --install: $(tail -3 "$tmp/install.log")"
check_tree "$tmp/root"
parquet_without_duckdb "$tmp/root"
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
