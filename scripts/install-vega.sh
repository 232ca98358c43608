#!/usr/bin/env bash
# Installs the chart library of `-o html` reports (docs/REPORTS.md) into .deps/vega/ of this
# checkout (ignored by git): the minified browser builds of Vega, Vega-Lite and vega-embed from the
# npm registry, and their licences (BSD-3-Clause, University of Washington Interactive Data Lab).
# CMake compiles the three files into the binary (cmake/embed_vega.cmake), so a report is one
# self-contained file and nothing is downloaded when aicost runs or when a report is viewed.
#
# Pinned: the versions, the sha512 of each tarball (npm's dist.integrity, `npm view PKG@VER
# dist.integrity`) and the sha256 of the file taken out of it. Idempotent: when the files are there
# with their pinned sha256, nothing is downloaded. Run by scripts/install-deps.sh (so by `make run`
# and `make test`) and by CMake's configure when the files are missing.
set -euo pipefail

registry=${NPM_REGISTRY:-https://registry.npmjs.org}

# name version tarball-sha512 member member-sha256
pins=(
  "vega 6.4.0 rHXCq2LpEWCLMjXBEj7hocY9G0/i5TGYRayGGSj06VTF4+l2IG2Z7oeZKCjWbUh/7hTE/mVhbaOPB72wCElh6g== build/vega.min.js 8f6a3587cf8d4f42c7e08120e3eb05d067e746d554e39d2dcf52acc0bd5ba28f"
  "vega-lite 6.5.0 fMXF6s0MrIg0UTWnLIfeFtgSLzVhyzSKobzGrh5rhS+mL6FOYFG3m7ouJ4U23gj65EK+gl9FIIT5w7wLNaAzkA== build/vega-lite.min.js 83e215e84e308ee8688fa6503ba0f1cf8a3c05c0d61df2841a0b92bf86809e00"
  "vega-embed 7.3.0 wQ8s5GaSzqoKgmRfbRolgBrjE2CP7ZKHXqH7NijxMqPjpdWxSs4Dn8tvp9g0giQvh2cK+3p56sxjWWM0wNngGw== build/vega-embed.min.js b1455caba2fb1a72fb46025ba0ba1316e2dbc7f0dd40a3f6040172bf9c08ba91"
)

root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.deps/vega"

sha256_is() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

all_there=1
for pin in "${pins[@]}"; do
  read -r name version sha512 member sha256 <<<"$pin"
  sha256_is "$dest/$(basename "$member")" "$sha256" && [ -f "$dest/LICENSE.$name" ] || all_there=0
done
[ "$all_there" = 1 ] && exit 0

echo "install-vega: installing Vega, Vega-Lite and vega-embed (pinned) into $dest" >&2
work=$(mktemp -d "${TMPDIR:-/tmp}/aicost-vega.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"

for pin in "${pins[@]}"; do
  read -r name version sha512 member sha256 <<<"$pin"
  url="$registry/$name/-/$name-$version.tgz"
  tgz="$work/$name-$version.tgz"
  curl -fsSL --retry 3 -o "$tgz" "$url" || { echo "install-vega: cannot download $url" >&2; exit 1; }
  got=$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)
  if [ "$got" != "$sha512" ]; then
    echo "install-vega: $url has sha512-$got, not the pinned sha512-$sha512; refusing it" >&2
    exit 1
  fi
  mkdir -p "$work/$name"
  tar -xzf "$tgz" -C "$work/$name" --no-same-owner --no-same-permissions "package/$member" package/LICENSE
  if ! sha256_is "$work/$name/package/$member" "$sha256"; then
    echo "install-vega: $member in $url is not the pinned file (sha256 $sha256); refusing it" >&2
    exit 1
  fi
  { echo "$name $version (npm), $member"; echo; cat "$work/$name/package/LICENSE"; } >"$work/LICENSE.$name"
  out="$dest/$(basename "$member")"
  mv -f "$work/$name/package/$member" "$out.tmp" && mv -f "$out.tmp" "$out"
  mv -f "$work/LICENSE.$name" "$dest/LICENSE.$name"
  chmod 0644 "$out" "$dest/LICENSE.$name"
done
