#!/bin/sh
# demo_smoke: runs ortvk-demo for 2 frames of 64x64 and checks that it wrote its three PNGs. ctest runs it with
# ORTVK_VALIDATION=1 and fails on any "VALIDATION:" line. Exit 77 (skip) when the model has not been fetched.
#   usage: smoke_test.sh path/to/ortvk-demo path/to/ch_PP-OCRv4_det_infer.onnx out-dir
set -eu
demo=$1 model=$2 out=$3
if [ ! -s "$model" ]; then
  echo "SKIP: $model is missing (scripts/fetch-models.sh fetches it)"
  exit 77
fi
rm -rf "$out"
"$demo" --frames 2 --size 64x64 --model "$model" --out "$out"
for png in input.png map.png overlay.png; do
  if [ ! -s "$out/$png" ] || [ "$(head -c 4 "$out/$png" | tail -c 3)" != "PNG" ]; then
    echo "demo_smoke: FAIL: $out/$png is missing or not a PNG"
    exit 1
  fi
done
echo "demo_smoke: PASS"
