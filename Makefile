# The two commands a new machine needs: `make run` and `make test`. Both install missing Debian
# packages first (scripts/install-deps.sh, idempotent) and build in Release.
BUILD ?= build
JOBS ?= $(shell nproc)
EXAMPLE ?= examples/gpt3-175b-a100.yaml

.PHONY: all deps configure build run test bench clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/apps/aicost/aicost estimate $(EXAMPLE)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/bench/aicost_bench --benchmark_counters_tabular=true

clean:
	rm -rf $(BUILD)
