# Entry points: `make demo` (the main job) and `make test` (the whole suite). Both install what they need.
BUILD ?= build
ASAN_BUILD ?= build-asan
RELEASE_BUILD ?= build-release
JOBS ?= $(shell nproc)

.PHONY: all deps build test check asan release demo info clean fuzz fuzz-long tsan gpu-bundle

all: build

deps:
	./scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The whole suite: the regular build (valgrind_* included), then the same tests under AddressSanitizer and
# UndefinedBehaviorSanitizer (with a bounded session of the differential fuzzer, fuzz_diff_smoke), then the hardening builds: a bounded libFuzzer session and the thread tests under
# ThreadSanitizer (docs/reliability.md), and a Release build (-O3 finds uninitialised paths -O2 does not).
test: check asan fuzz tsan release

check: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Builds only what the demo runs (the plugin and ortvk-demo), then runs it.
demo: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target ortvk ortvk-demo
	$(BUILD)/ortvk-demo

info: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target ortvk ortvk-info
	./$(BUILD)/ortvk-info

asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DORTVK_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

release: deps
	cmake -S . -B $(RELEASE_BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(RELEASE_BUILD) -j $(JOBS)

# ---- hardening builds (docs/reliability.md): clang, each in its own build directory ------------------------------
FUZZ_BUILD ?= build-fuzz
TSAN_BUILD ?= build-tsan
FUZZ_SECONDS ?= 600

$(FUZZ_BUILD)/CMakeCache.txt:
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORTVK_FUZZ=ON

# libFuzzer on the importer: 60 s on a scratch copy of tests/fuzz/corpus, plus a check that the corpus is current.
fuzz: deps $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_import fuzz_make_seeds
	ctest --test-dir $(FUZZ_BUILD) --output-on-failure -R '^fuzz_'

# A longer session by hand: make fuzz-long FUZZ_SECONDS=600 (crash inputs land in $(FUZZ_BUILD)/tests).
fuzz-long: deps $(FUZZ_BUILD)/CMakeCache.txt
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_import
	cd $(FUZZ_BUILD)/tests && ORTVK_VALIDATION=1 ORT_DISABLE_TELEMETRY=1 ORTVK_EP_LIBRARY=$(abspath $(FUZZ_BUILD))/libortvk.so \
	  ORTVK_ORT_LIBRARY=$(CURDIR)/.cache/ort/1.30.0/libonnxruntime.so.1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  sh $(CURDIR)/tests/fuzz/run_smoke.sh ../fuzz_import $(CURDIR)/tests/fuzz/corpus $(FUZZ_SECONDS)

# The differential fuzzer (tests/fuzz/fuzz_diff.c) under ASan/UBSan with the validation layer on: generated one-node
# models of every claimed op on ortvk and on ORT's CPU EP alone. `make test` runs a bounded seeded session (the
# fuzz_diff_smoke test of the ASan build); this runs a longer one: make fuzz-diff FUZZ_DIFF_CASES=20000 (or
# FUZZ_DIFF_SECONDS=1800 to stop scheduling after that long; FUZZ_DIFF_FLAGS=--all also runs the known-open findings
# of tests/fuzz/diff_known.c). Every finding prints a command line that reruns it.
# lavapipe's one-time leak needs the driver mapped at exit to be suppressed (CMakeLists.txt, ORTVK_SANITIZER_ENV).
LAVAPIPE_ICD := $(firstword $(wildcard /usr/lib/*/libvulkan_lvp.so))
KEEP_LAVAPIPE := $(if $(LAVAPIPE_ICD),LD_PRELOAD=$(LAVAPIPE_ICD) ASAN_OPTIONS=verify_asan_link_order=0)
FUZZ_DIFF_CASES ?= 20000
FUZZ_DIFF_SECONDS ?= 0
FUZZ_DIFF_SEED ?= 1
FUZZ_DIFF_FLAGS ?=

.PHONY: fuzz-diff
fuzz-diff: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DORTVK_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target ortvk fuzz_diff
	ORTVK_VALIDATION=1 ORT_DISABLE_TELEMETRY=1 ORTVK_EP_LIBRARY=$(abspath $(ASAN_BUILD))/libortvk.so \
	  ORTVK_ORT_LIBRARY=$(CURDIR)/.cache/ort/1.30.0/libonnxruntime.so.1 $(KEEP_LAVAPIPE) \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(ASAN_BUILD)/fuzz_diff --seed $(FUZZ_DIFF_SEED) --cases $(FUZZ_DIFF_CASES) --seconds $(FUZZ_DIFF_SECONDS) \
	  --jobs $(JOBS) $(FUZZ_DIFF_FLAGS)

$(TSAN_BUILD)/CMakeCache.txt:
	CC=clang cmake -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORTVK_TSAN=ON

# ThreadSanitizer on the thread tests only (ONNX Runtime and lavapipe are not instrumented: tests/tsan.supp).
tsan: deps $(TSAN_BUILD)/CMakeCache.txt
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target test_concurrency test_host_timeline
	ctest --test-dir $(TSAN_BUILD) --output-on-failure -R '^(test_concurrency@|test_host_timeline$$)'

# What scripts/gpu-check.sh needs on an offline GPU machine (no apt, npm, glslc or Vulkan loader): see the script.
gpu-bundle:
	./scripts/gpu-bundle.sh

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(RELEASE_BUILD) $(FUZZ_BUILD) $(TSAN_BUILD) gpu-bundle
