#!/usr/bin/env bash
# Installs the Debian packages aicost needs to build and test (chromium: the headless browser of the
# `-o html` report tests), then the DuckDB C library (Parquet, scripts/install-duckdb.sh) and the
# chart library of HTML reports (scripts/install-vega.sh), both pinned, checksummed, into .deps/.
# Idempotent: installs only what is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libcli11-dev libyaml-cpp-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsqlite3-dev sqlite3 libpq-dev postgresql libssl-dev libcpp-httplib-dev libjemalloc-dev libzstd-dev libarchive-dev zlib1g-dev
  curl ca-certificates openssl
  clang libclang-rt-14-dev clang-tidy-14 clang-format-14  # clang-tidy-14, clang-format-14: make lint
  pybind11-dev python3-pybind11 python3-dev python3-pytest python3-pandas
  jupyter-nbconvert python3-ipykernel  # the notebook test (examples/notebooks/) runs it with nbconvert
  zsh fish groff-base dpkg-dev  # the tests run the shell completions, render the man page, build the .deb
  chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

"$(dirname "$0")/install-vega.sh"
exec "$(dirname "$0")/install-duckdb.sh"
