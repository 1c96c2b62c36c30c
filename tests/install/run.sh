#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds the applications of examples/installed against it twice —
# with find_package(ortvk) and with pkg-config, the quickstart with the very command line the README shows — and runs
# them, the quickstart through ONNX Runtime with the installed plugin. Checks that ortvk.pc adds no -lvulkan and gives
# a clean plugin path, and that the installed ortvk-info registers the installed plugin. Prints
# "install_consumer: PASS" on success.
#   usage: run.sh BUILD EXAMPLES_DIR ORT_INCLUDE_DIR LIBONNXRUNTIME MODEL
set -euo pipefail
build=$1
examples=$2
ort_include=$3
ort_library=$4
model=$5
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install_consumer: FAIL: $*"; exit 1; }
cmake --install "$build" --prefix "$prefix" >/dev/null
test -e "$prefix/lib/libortvk.so.0" || fail "missing libortvk.so.0 in the install"
readelf -d "$prefix/lib/libortvk.so.0" | grep -q "SONAME.*libortvk.so.0" || fail "wrong SONAME"

# ONNX Runtime laid out as its release archive is: include/ and lib/libonnxruntime.so{,.1}.
mkdir -p "$prefix/ort/lib"
ln -s "$ort_library" "$prefix/ort/lib/libonnxruntime.so.1"
ln -s libonnxruntime.so.1 "$prefix/ort/lib/libonnxruntime.so"
export LD_LIBRARY_PATH="$prefix/ort/lib"

# find_package(ortvk)
cmake -S "$examples/installed" -B "$prefix/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DORT_INCLUDE_DIR="$ort_include" -DORT_LIBRARY="$prefix/ort/lib/libonnxruntime.so" >/dev/null
cmake --build "$prefix/consumer-build" >/dev/null
"$prefix/consumer-build/consumer"
plugin=$(cat "$prefix/consumer-build/ortvk_plugin.txt")
[ "$plugin" = "$prefix/lib/libortvk.so.0" ] || fail "ortvk_PLUGIN is $plugin"
"$prefix/consumer-build/quickstart" "$plugin" "$model" | tee "$prefix/out.txt"
grep -q "relu ok" "$prefix/out.txt" || fail "the CMake-built quickstart"

# pkg-config
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
plugin=$(pkg-config --variable=plugin ortvk)
case "$plugin" in *//*) fail "the plugin path has //: $plugin" ;; esac
[ "$(realpath "$plugin")" = "$(realpath "$prefix/lib/libortvk.so.0")" ] || fail "pkg-config's plugin is $plugin"
libs=$(pkg-config --libs ortvk)
case "$libs" in *vulkan*) fail "pkg-config --libs ortvk links Vulkan: $libs" ;; esac
cc -std=c11 $(pkg-config --cflags ortvk) -DORTVK_PLUGIN_PATH="\"$plugin\"" "$examples/installed/consumer.c" \
   -o "$prefix/consumer-pc" -ldl
"$prefix/consumer-pc"
# The README's build line, with ORT=the folder holding include/ and lib/.
cp "$examples/quickstart.c" "$prefix/quickstart.c"
(cd "$prefix" && cc -std=c11 quickstart.c $(pkg-config --cflags ortvk) -I"$ort_include" -L"$prefix/ort/lib" \
   -lonnxruntime && ./a.out "$(pkg-config --variable=plugin ortvk)" "$model") | tee "$prefix/out.txt"
grep -q "relu ok" "$prefix/out.txt" || fail "the pkg-config-built quickstart"

# The installed ortvk-info registers the installed plugin, whatever the build tree holds (and whatever plugin the
# caller's environment names: ORTVK_EP_LIBRARY would override the installed one by design).
env -u ORTVK_EP_LIBRARY "$prefix/bin/ortvk-info" --ort "$ort_library" | tee "$prefix/out.txt"
grep -q "^ortvk plugin: $prefix/lib/libortvk.so.0\$" "$prefix/out.txt" || fail "the installed ortvk-info's plugin"
echo "install_consumer: PASS"
