#!/usr/bin/env bash
# Installs the build into a scratch prefix, then builds examples/installed against it twice — with
# find_package(ortvk) and with pkg-config — and runs it. Prints "install_consumer: PASS" on success.
set -euo pipefail
build=$1
example=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -e "$prefix/lib/libortvk.so.0" || { echo "missing libortvk.so.0 in the install"; exit 1; }
readelf -d "$prefix/lib/libortvk.so.0" | grep -q "SONAME.*libortvk.so.0" || { echo "wrong SONAME"; exit 1; }

cmake -S "$example" -B "$prefix/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/consumer-build" >/dev/null
"$prefix/consumer-build/consumer"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
plugin=$(pkg-config --variable=plugin ortvk)
cc -std=c11 $(pkg-config --cflags ortvk) -DORTVK_PLUGIN_PATH="\"$plugin\"" "$example/consumer.c" \
   -o "$prefix/consumer-pc" -ldl
"$prefix/consumer-pc"
echo "install_consumer: PASS"
