#!/bin/sh
# A bounded libFuzzer session on a scratch copy of the seed corpus, so the repository's corpus is never modified
# (libFuzzer adds the inputs it finds to the first corpus directory it is given). Crash inputs land in the current
# directory (crash-*, leak-*, timeout-*), which for ctest is the fuzz build's tests/ directory.
#   usage: run_smoke.sh FUZZER CORPUS SECONDS [more libFuzzer flags]
set -eu
fuzzer=$1 corpus=$2 seconds=$3
shift 3
work=$(mktemp -d "${TMPDIR:-/tmp}/ortvk-fuzz-corpus-XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$corpus"/* "$work"/
"$fuzzer" -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=30 -print_final_stats=1 "$@" "$work"
