#!/usr/bin/env bash
# Builds aicost_<version>_<arch>.deb from a build folder with Debian's own tools: `cmake --install`
# into a staging root under /usr, the binaries stripped and the man page gzipped as Debian policy
# asks, Depends from dpkg-shlibdeps, and dpkg-deb --root-owner-group (no fakeroot needed; zstd, which
# dpkg reads since bookworm, packs DuckDB's 55 MB library in an eighth of xz's CPU time).
#
#   scripts/make-deb.sh [BUILD_DIR] [OUT_DIR]     (make deb: build .)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
out=$(cd "${2:-.}" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^project(aicost VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
arch=$(dpkg --print-architecture)
[ -n "$version" ] || { echo "make-deb: no version in CMakeLists.txt's project()" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/aicost-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/aicost_${version}_${arch}
DESTDIR=$stage cmake --install "$build" --prefix /usr >/dev/null

privlib=$(cd "$stage" && find usr/lib -name libduckdb.so -printf '%h\n')
strip --strip-unneeded "$stage/usr/bin/aicost" "$stage/$privlib/libduckdb.so"
gzip -9n "$stage/usr/share/man/man1/aicost.1"
cat > "$stage/usr/share/doc/aicost/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: aicost

Files: usr/bin/aicost usr/share/*
Comment: aicost and its documentation.

Files: $privlib/libduckdb.so
Copyright: 2018-2025 Stichting DuckDB Foundation
License: MIT
Comment: DuckDB's release build, from the npm package @duckdb/node-bindings-linux-x64
 (scripts/install-duckdb.sh pins the version and checksums). Debian packages no DuckDB.
COPYRIGHT

# dpkg-shlibdeps reads debian/control; DuckDB's library is ours (no shlibs file), the rest is Debian's.
mkdir -p "$work/debian"
printf 'Source: aicost\n\nPackage: aicost\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O --ignore-missing-info -l"$stage/$privlib" \
            "$stage/usr/bin/aicost" "$stage/$privlib/libduckdb.so" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: aicost
Version: $version
Architecture: $arch
Maintainer: aicost developers <aicost@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Section: utils
Priority: optional
Description: what training or serving a large AI model will cost
 Estimates the time, memory and cost of training and serving plans, searches for the
 cheapest configuration that meets a deadline or latency target, models failures and
 checkpoints, governs real spend from billing exports and GPU telemetry, and ranks
 the changes that would spend less with what each change risks.
CONTROL
dpkg-deb --root-owner-group -Zzstd --build "$stage" "$out" >/dev/null
echo "$out/aicost_${version}_${arch}.deb"
