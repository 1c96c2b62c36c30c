#!/usr/bin/env bash
# Fetches the real ONNX Runtime shared library from the npm package onnxruntime-node (no install scripts run),
# checks the tarball against a pinned sha512, and keeps only libonnxruntime.so.1 under .cache/ort/<version>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache/ort"

# version -> npm dist.integrity, pinned so that a changed tarball is refused.
declare -A integrity=(
  [1.30.0]="sha512-twhs1C2C/BFkz1yc5OY0KIU2GUq6DURO7hD4bx5Q2Qy3nAMJwRXW8xU3NVczE29VA9lolLOYepoD8fjTGOfIqw=="
  [1.24.3]="sha512-JH7+czbc8ALA819vlTgcV+Q214/+VjGeBHDjX81+ZCD0PCVCIFGFNtT0V4sXG/1JXypKPgScQcB3ij/hk3YnTg=="
)
versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(1.30.0 1.24.3)

for v in "${versions[@]}"; do
  out="$cache/$v/libonnxruntime.so.1"
  [ -s "$out" ] && continue
  want=${integrity[$v]:-}
  [ -n "$want" ] || { echo "fetch-ort: no pinned integrity for onnxruntime-node@$v" >&2; exit 1; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  tgz=$("$root/scripts/npm-pack-verified.sh" "onnxruntime-node@$v" "$want" "$tmp")
  tar -xzf "$tgz" -C "$tmp" package/bin/napi-v6/linux/x64/libonnxruntime.so.1
  mkdir -p "$cache/$v"
  mv "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$out.part"
  mv "$out.part" "$out"
  rm -rf "$tmp"
  trap - EXIT
  echo "fetch-ort: $out"
done
