#!/usr/bin/env bash
# Builds gpu-bundle/: everything scripts/gpu-check.sh needs on a bare, offline GPU machine that has no apt, npm,
# glslc or Vulkan loader: a Release build (plugin, tools, tests; stripped), ORT 1.30.0 (xz), the models, and
# Debian's libvulkan1 and vulkan-validationlayers as .deb files to unpack with `dpkg -x`, and libonnx-testdata's
# test_relu (model and data set, which the examples and test_session read) under testdata/. Kept under ~40 MiB so
# that it travels with the working tree (64 MiB in all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out="$root/gpu-bundle"
build="$out/build"

./scripts/deps.sh
rm -rf "$out"
mkdir -p "$out/debs" "$out/ort" "$out/models" "$out/testdata"

# Tests run against ORT 1.30.0 only there (the newest runtime: one ORT library travels).
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DORTVK_ORT_VERSIONS=1.30.0 >/dev/null
cmake --build "$build" -j "$(nproc)"

# Keep what runs (executables, the plugin) and what ctest reads; drop objects, caches and generated sources.
find "$build" -type f ! \( -name CTestTestfile.cmake -o -name '*.so' -o -name '*.so.*' -o -perm -u+x \) -delete
find "$build" -type d -name CMakeFiles -prune -exec rm -rf {} +
find "$build" -type f -perm -u+x -exec sh -c '[ "$(head -c 4 "$1" | tail -c 3)" = ELF ] && strip --strip-unneeded "$1"' _ {} \;
find "$build" -type d -empty -delete

xz -T0 -6 -c .cache/ort/1.30.0/libonnxruntime.so.1 > "$out/ort/libonnxruntime.so.1.xz"
cp .cache/models/*.onnx "$out/models/"
# ctest names it by its installed path: gpu-check.sh copies it back to /usr/share/libonnx-testdata/data/node/.
cp -r /usr/share/libonnx-testdata/data/node/test_relu "$out/testdata/"
(cd "$out/debs" && apt-get download libvulkan1 libglvnd0 libglx0 libegl1 libgl1 vulkan-validationlayers >/dev/null)

# The absolute paths baked into CTestTestfile.cmake: gpu-check.sh rewrites them to where it runs (and ROOT with
# them), so neither is in the checksums.
echo "$root" > "$out/ROOT"
(cd "$out" && find . -type f ! \( -name SHA256SUMS -o -name ROOT -o -name CTestTestfile.cmake \) -print0 | sort -z |
  xargs -0 sha256sum > SHA256SUMS)
echo "gpu-bundle: $(du -sh "$out" | cut -f1) in $out (carry gpu-bundle with the working tree)"
