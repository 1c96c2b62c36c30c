#!/usr/bin/env bash
# The GPU-only checks, in one run of under 8 minutes (each step has its own time limit) on a machine with a real
# Vulkan GPU (the project's device machine: one NVIDIA H200). Lists the Vulkan devices and ortvk's EP devices, runs
# the ctest suite on the GPU (the default device is the most capable one), the Vulkan timeline semaphore FD import
# test (skipped on lavapipe, proof of the feature only here), the benchmarks and the demo. Prints everything;
# record the output in docs/gpu-results.md. Changes no setting of the card.
#
# Two ways to run it:
# - offline, from gpu-bundle/ (`make gpu-bundle` here first, then carry gpu-bundle with the working tree): for a
#   bare machine without apt, npm, glslc or a Vulkan loader, such as the device machine;
# - otherwise it installs what it needs (scripts/deps.sh) and builds build-gpu/.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
section() { printf '\n==== %s (t=%ss)\n' "$1" "$(( $(date +%s) - start ))"; }

section "machine"
uname -a
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>/dev/null || echo "nvidia-smi: not available"
grep -m1 "model name" /proc/cpuinfo; nproc

section "dependencies"
if [ -f gpu-bundle/ROOT ]; then
  echo "offline: from gpu-bundle/"
  (cd gpu-bundle && sha256sum -c --quiet SHA256SUMS) || { echo "gpu-bundle: checksum mismatch"; exit 1; }
  # The loader into / (as the machine would have it installed), with the GL dispatch libraries NVIDIA's Vulkan ICD
  # (libGLX_nvidia.so.0) links against; the validation layer beside, found by path.
  for f in gpu-bundle/debs/lib*.deb; do dpkg -x "$f" /; done
  ldconfig
  vvl=/tmp/ortvk-validation-layers
  rm -rf "$vvl" && dpkg -x gpu-bundle/debs/vulkan-validationlayers_*.deb "$vvl"
  export VK_LAYER_PATH="$vvl/usr/share/vulkan/explicit_layer.d"
  export LD_LIBRARY_PATH="$vvl/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # A driver whose ICD file is outside the loader's search path (the device machine's NVIDIA driver).
  if ! ls /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1; then
    for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
      [ -f "$icd" ] && export VK_DRIVER_FILES="$icd" && echo "ICD: $icd"
    done
  fi
  mkdir -p .cache/ort/1.30.0 .cache/models
  if command -v xz >/dev/null; then
    xz -dc gpu-bundle/ort/libonnxruntime.so.1.xz > .cache/ort/1.30.0/libonnxruntime.so.1
  else
    python3 -c 'import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
      gpu-bundle/ort/libonnxruntime.so.1.xz .cache/ort/1.30.0/libonnxruntime.so.1
  fi
  cp gpu-bundle/models/*.onnx .cache/models/
  # libonnx-testdata's test_relu at Debian's path, where the examples' ctest commands and test_session read it.
  mkdir -p /usr/share/libonnx-testdata/data/node
  cp -r gpu-bundle/testdata/test_relu /usr/share/libonnx-testdata/data/node/
  build=gpu-bundle/build
  # ctest's files name the folder the bundle was built in: point them here.
  built_in=$(cat gpu-bundle/ROOT)
  find "$build" -name CTestTestfile.cmake -exec sed -i "s#$built_in#$PWD#g" {} +
  echo "$PWD" > gpu-bundle/ROOT
  export ORTVK_ORT_LIBRARY="$PWD/.cache/ort/1.30.0/libonnxruntime.so.1" ORTVK_EP_LIBRARY="$PWD/$build/libortvk.so"
else
  ./scripts/deps.sh >/tmp/gpu-check-deps.log 2>&1 || { tail -20 /tmp/gpu-check-deps.log; exit 1; }
  build=build-gpu
fi
ls /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>/dev/null

if [ "$build" = build-gpu ]; then
  section "build"
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null &&
    cmake --build build-gpu -j "$(nproc)" 2>&1 | tail -3
fi

section "Vulkan devices"
vulkaninfo --summary 2>/dev/null | sed -n '/Devices:/,$p' | head -40 || true
command -v vulkaninfo >/dev/null || echo "vulkaninfo: not installed (ortvk-info below lists the devices)"

# Where the loader finds no usable driver on its own, the first ICD file that gives ortvk a device.
if ! ./$build/ortvk-info >/dev/null 2>&1; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/*.json; do
    [ -f "$icd" ] && VK_DRIVER_FILES="$icd" ./$build/ortvk-info >/dev/null 2>&1 &&
      export VK_DRIVER_FILES="$icd" && echo "ICD: $icd" && break
  done
fi

section "ortvk EP devices (ORT 1.30.0)"
./$build/ortvk-info || true
# Without a device, the loader says which driver it tried and why it failed.
./$build/ortvk-info 2>/dev/null | grep -q "EP devices: [1-9]" ||
  VK_LOADER_DEBUG=error,warn,driver ./$build/ortvk-info 2>&1 | grep -iE "driver|icd|error|fail" | head -30

section "ctest (validation layer on), default device"
timeout 240 ctest --test-dir "$build" --output-on-failure -j 8 -LE valgrind \
  -E "bench_smoke|run_conformance|install_consumer" 2>&1 | tail -40
# Every test's whole output, kept before the next ctest replaces it.
cp "$build/Testing/Temporary/LastTest.log" "$build/ctest-suite.log" 2>/dev/null &&
  echo "full log: $build/ctest-suite.log"

section "Vulkan timeline semaphore FD import"
ctest --test-dir "$build" -R "vk_timeline" -LE valgrind -V 2>&1 | grep -E "SKIP|PASS|FAIL|timeline" | head -20

section "differential fuzzing against ORT's CPU EP on the GPU (validation on; its own barriers and subgroups)"
ORTVK_VALIDATION=1 timeout 80 ./$build/fuzz_diff --seed 254 --seconds 60 --jobs 8 >"$build/fuzz-gpu.log" 2>&1
grep -A3 "^FINDING" "$build/fuzz-gpu.log" | head -60; grep -E "^summary|^fuzz_diff:" "$build/fuzz-gpu.log"
echo "full log: $build/fuzz-gpu.log"

section "benchmarks: import, frame path, semaphores"
ORTVK_VALIDATION=0 timeout 60 ./$build/ortvk-bench 2>&1 | tail -60

section "benchmark: the PP-OCRv4 detector on ortvk against ORT's CPU EP (640x640, 960x544)"
ORTVK_VALIDATION=0 timeout 75 ./$build/ortvk-bench --compare-model .cache/models/ch_PP-OCRv4_det_infer.onnx \
  --compare-frames 5 --threads "$(nproc)" 2>&1 | tail -10

section "the detector with the CPU forms of the kernels (ORTVK_KERNEL_FORMS=cpu), to compare with the GPU's own above"
ORTVK_VALIDATION=0 ORTVK_KERNEL_FORMS=cpu timeout 50 ./$build/ortvk-bench --compare-model \
  .cache/models/ch_PP-OCRv4_det_infer.onnx --compare-sizes 640x640 --compare-frames 5 --threads "$(nproc)" 2>&1 |
  tail -4

section "the detector converted to float16 (--float16: 16-bit texel views, float16 chains fused), 640x640"
ORTVK_VALIDATION=0 timeout 45 ./$build/ortvk-bench --compare-model .cache/models/ch_PP-OCRv4_det_infer.onnx \
  --compare-sizes 640x640 --compare-frames 5 --threads "$(nproc)" --float16 2>&1 | tail -4

section "the detector's device time per op at 640x640 and 960x544 (ORT's CPU EP per op beside it)"
ORTVK_VALIDATION=0 timeout 60 ./$build/ortvk-bench --compare-model .cache/models/ch_PP-OCRv4_det_infer.onnx \
  --compare-sizes 640x640,960x544 --compare-frames 5 --threads "$(nproc)" --profile 2>&1 |
  grep -A18 -E "device time per op|slowest nodes"

# 15 runs a chain: on a GPU a node's time is close to the Runs' scatter (ortvk-bench marks it "<" where within).
section "matrix products in both forms (the GPU's tiles through shared memory, then ORTVK_KERNEL_FORMS=cpu)"
for forms in "" cpu; do
  ORTVK_VALIDATION=0 ORTVK_KERNEL_FORMS=$forms timeout 30 ./$build/ortvk-bench --ops matmul,conv3x3,conv1x1,convres \
    --compare-frames 15 --threads "$(nproc)" 2>&1 | grep -E "MatMul|Conv" || true
done

section "element-wise (the lanes' blocks), depthwise, one LSTM step, quantized Convs and MatMul, a small model's Run"
ORTVK_VALIDATION=0 timeout 30 ./$build/ortvk-bench --ops add,sigmoid,mulch,dw3x3,lstm,qconv3x3,qdqconv3x3,qmatmul,qdw3x3,small \
  --compare-frames 15 --threads "$(nproc)" 2>&1 |
  grep -E "Add|Sigmoid|Mul|depthwise|LSTM|QLinear|QDQ|ortvk .* us" || true

section "demo"
ORTVK_VALIDATION=0 timeout 40 ./$build/ortvk-demo --model .cache/models/ch_PP-OCRv4_det_infer.onnx --size 640x640 \
  --out $build/demo-out 2>&1 | tail -25

section "done"
echo "gpu-check finished in $(( $(date +%s) - start ))s"
