#!/usr/bin/env bash
# The GPU-only checks, in one run of under 8 minutes (each step has its own time limit) on a machine with a real Vulkan GPU (the project's device
# machine: one NVIDIA H200). Builds ortvk, then: lists the Vulkan devices and ortvk's EP devices, runs the whole
# ctest suite on the GPU (the default device is the most capable one), the Vulkan timeline semaphore FD import
# test (skipped on lavapipe, proof of the feature only here), and the benchmarks. Prints everything; record the
# output in docs/gpu-results.md. Changes no setting of the card.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
section() { printf '\n==== %s (t=%ss)\n' "$1" "$(( $(date +%s) - start ))"; }

section "machine"
uname -a
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>/dev/null || echo "nvidia-smi: not available"
grep -m1 "model name" /proc/cpuinfo; nproc

section "dependencies"
./scripts/deps.sh >/tmp/gpu-check-deps.log 2>&1 || { tail -20 /tmp/gpu-check-deps.log; exit 1; }
./scripts/fetch-models.sh >/dev/null 2>&1 || echo "models: not fetched (model tests will skip)"
ls /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>/dev/null

section "build"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build build-gpu -j "$(nproc)" 2>&1 | tail -3

section "Vulkan devices"
vulkaninfo --summary 2>/dev/null | sed -n '/Devices:/,$p' | head -40

section "ortvk EP devices (ORT 1.30.0)"
./build-gpu/ortvk-info

section "ctest (validation layer on), default device"
timeout 150 ctest --test-dir build-gpu --output-on-failure -j 4 -LE valgrind -E "bench_smoke|run_conformance" 2>&1 | tail -40

section "Vulkan timeline semaphore FD import"
ctest --test-dir build-gpu -R "vk_timeline|interop" -V 2>&1 | grep -E "SKIP|PASS|FAIL|timeline" | head -20

section "benchmarks: import, frame path, semaphores"
ORTVK_VALIDATION=0 timeout 90 ./build-gpu/ortvk-bench 2>&1 | tail -60

section "benchmark: the PP-OCRv4 detector on ortvk against ORT's CPU EP (640x640, 960x544)"
ORTVK_VALIDATION=0 timeout 75 ./build-gpu/ortvk-bench --compare-model .cache/models/ch_PP-OCRv4_det_infer.onnx \
  --compare-frames 5 --threads "$(nproc)" 2>&1 | tail -10

section "demo"
ORTVK_VALIDATION=0 timeout 40 ./build-gpu/ortvk-demo --size 640x640 --out build-gpu/demo-out 2>&1 | tail -25

section "done"
echo "gpu-check finished in $(( $(date +%s) - start ))s"
