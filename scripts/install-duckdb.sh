#!/usr/bin/env bash
# Installs the DuckDB C library that reads Parquet billing exports (docs/LEDGER.md, "Parquet")
# into .deps/duckdb-<version>/ of this checkout (ignored by git): include/duckdb.h and
# lib/libduckdb.so, nothing else. Debian bookworm packages no Arrow or Parquet library; the npm
# registry ships DuckDB's release builds: the header in the `duckdb` package (its source tree),
# the library in `@duckdb/node-bindings-linux-x64`, built from the same DuckDB release.
#
# Pinned: the versions, the sha512 of each tarball (npm's dist.integrity, `npm view PKG@VER
# dist.integrity`) and the sha256 of the two files taken out of them. Idempotent: when both files
# are there with their pinned sha256, nothing is downloaded. Run by scripts/install-deps.sh (so by
# `make run` and `make test`) and by CMake's configure when the files are missing.
set -euo pipefail

version=1.4.4
bindings_version=1.4.4-r.4
registry=${NPM_REGISTRY:-https://registry.npmjs.org}

header_tgz_url="$registry/duckdb/-/duckdb-$version.tgz"
header_tgz_sha512="hEJJ5hyVF0VLj3dmOLpsWrQR0b3d4Ykqtygm6iUXjHJDDnSqg/USKxcb5qvNrOhFYPgktayU6dXCtgPqcmmpog=="
header_member="package/src/duckdb/src/include/duckdb.h"
header_sha256="cbe6a827284375c5a646b8f27dbd3a00808ce8738b5bbb49c190cb1e08540281"

lib_tgz_url="$registry/@duckdb/node-bindings-linux-x64/-/node-bindings-linux-x64-$bindings_version.tgz"
lib_tgz_sha512="jBTL/WvfwxLToFa/pVHfT6elMtltJGnc3wSuxZD9OfMltit9YUdVFS37vBFQzXMT1Z8OWjtSjMh+zPKxOwHLHA=="
lib_member="package/libduckdb.so"
lib_sha256="1ef33048e12235115ac0d277a0aaccbb560e33248144f488b5ac005cd9ba81b5"

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.deps/duckdb-$version"
header="$dest/include/duckdb.h"
lib="$dest/lib/libduckdb.so"

sha256_is() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

if sha256_is "$header" "$header_sha256" && sha256_is "$lib" "$lib_sha256"; then
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "install-duckdb: only a Linux x86-64 build is pinned here; this is $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

echo "install-duckdb: installing DuckDB $version (header) and libduckdb.so ($bindings_version) into $dest" >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/aicost-duckdb.XXXXXX")
trap 'rm -rf "$work"' EXIT

# $1 url, $2 pinned sha512 (base64), $3 member, $4 pinned sha256 of the member, $5 where it goes
fetch_member() {
  local tgz="$work/$(basename "$1")"
  curl -fsSL --retry 3 -o "$tgz" "$1" || { echo "install-duckdb: cannot download $1" >&2; exit 1; }
  local got
  got=$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)
  if [ "$got" != "$2" ]; then
    echo "install-duckdb: $1 has sha512-$got, not the pinned sha512-$2; refusing it" >&2
    exit 1
  fi
  tar -xzf "$tgz" -C "$work" --no-same-owner --no-same-permissions "$3"
  if ! sha256_is "$work/$3" "$4"; then
    echo "install-duckdb: $3 in $1 is not the pinned file (sha256 $4); refusing it" >&2
    exit 1
  fi
  mkdir -p "$(dirname "$5")"
  mv -f "$work/$3" "$5.tmp" && mv -f "$5.tmp" "$5"
}

fetch_member "$header_tgz_url" "$header_tgz_sha512" "$header_member" "$header_sha256" "$header"
fetch_member "$lib_tgz_url" "$lib_tgz_sha512" "$lib_member" "$lib_sha256" "$lib"
chmod 0644 "$header" "$lib"
