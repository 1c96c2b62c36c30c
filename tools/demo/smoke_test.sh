#!/bin/sh
# demo_smoke: runs ortvk-demo for 2 frames of 64x64 and checks that it wrote its three PNGs; then that an --out it
# cannot write to fails before the first frame, and that a model of another output shape (PP-OCR's classifier, when
# fetched) is named in plain words. ctest runs it with ORTVK_VALIDATION=1 and fails on any "VALIDATION:" line.
# Exit 77 (skip) when the model has not been fetched.
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
# An --out that is a file: refused at once, no frame run.
: > "$out/not-a-folder"
if "$demo" --frames 2 --size 64x64 --model "$model" --out "$out/not-a-folder" > "$out/log" 2>&1 ||
   ! grep -q "cannot write there" "$out/log" || grep -q "^frame " "$out/log"; then
  echo "demo_smoke: FAIL: --out to a file was not refused before the frames:"; cat "$out/log"
  exit 1
fi
other="$(dirname "$model")/ch_ppocr_mobile_v2.0_cls_infer.onnx"
if [ -s "$other" ]; then
  if "$demo" --frames 1 --size 64x64 --model "$other" --out "$out" > "$out/log" 2>&1 ||
     ! grep -q "needs a text detector" "$out/log" || grep -q -- "->" "$out/log"; then
    echo "demo_smoke: FAIL: a model of another shape:"; cat "$out/log"
    exit 1
  fi
fi
echo "demo_smoke: PASS"
