# The two commands a new machine needs: `make run` and `make test`. Both install missing Debian
# packages first (scripts/install-deps.sh, idempotent) and build in Release. `make test` runs ctest
# (with a throwaway PostgreSQL server), fuzzes every billing reader for FUZZ_SECONDS each, and fails
# when the tests left anything new in /tmp (scripts/tmp-unchanged.sh).
BUILD ?= build
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 10
EXAMPLE ?= examples/gpt3-175b-a100.yaml

.PHONY: all deps configure build run test lint docs bench install deb clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DAICOST_REQUIRE_PYTHON=ON >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/apps/aicost/aicost estimate $(EXAMPLE)

# The PostgreSQL half of the store tests runs against a throwaway server (unix socket only) in a
# fresh folder under /tmp (short socket paths, and reachable by the `postgres` user when run as
# root from a private checkout); it is stopped and removed however ctest ends, or on Ctrl-C.
PG_TEST_SERVER = scripts/pg-test-server.sh

test: build
	@scripts/tmp-unchanged.sh snapshot $(BUILD)/tmp-before.txt
	@pgdir=$$(mktemp -d /tmp/aicost-pg.XXXXXX) || exit 1; \
	trap '$(PG_TEST_SERVER) stop "$$pgdir"' EXIT; trap 'exit 130' INT TERM; \
	url=$$($(PG_TEST_SERVER) start "$$pgdir") || exit 1; \
	echo "test: PostgreSQL at $$url"; \
	AICOST_TEST_PG_URL="$$url" AICOST_TEST_PG_REQUIRED=1 ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	scripts/fuzz.sh $(FUZZ_SECONDS)
	@scripts/tmp-unchanged.sh check $(BUILD)/tmp-before.txt

# `make lint`: clang-tidy with the checks in .clang-tidy over src/, apps/ and python/ (scripts/lint.sh).
lint: build
	scripts/lint.sh $(BUILD) $(JOBS)

# `make docs`: regenerates the README's picture, docs/images/ledger-check.png, in headless Chromium.
docs: build
	scripts/docs-screenshot.sh $(BUILD)/apps/aicost/aicost docs/images

bench: build
	$(BUILD)/bench/aicost_bench --benchmark_counters_tabular=true

# `make install [PREFIX=/usr/local] [DESTDIR=stage]`: the binary, DuckDB's library, the man page,
# bash/zsh/fish completions and the docs (apps/aicost/CMakeLists.txt has the list).
PREFIX ?= /usr/local
install: build
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

# `make deb`: aicost_<version>_<arch>.deb in this folder, built with Debian's dpkg tools.
deb: build
	scripts/make-deb.sh $(BUILD) .

clean:
	rm -rf $(BUILD)
