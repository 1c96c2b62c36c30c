#!/usr/bin/env bash
# info_cli: ortvk-info's command line and messages. A bad argument is named (exit 2); no EP device exits 1 and ortvk's
# warning names the file and line that logged it (not the logging helper's); ORTVK_VALIDATION=1 is confirmed; the
# plugin it registered is printed. Prints "info_cli: PASS".
#   usage: info_test.sh path/to/ortvk-info
set -uo pipefail
info=$1
fail() { echo "info_cli: FAIL: $*"; exit 1; }

out=$("$info" --bogus 2>&1); rc=$?
[ $rc -eq 2 ] || fail "--bogus exited $rc, not 2"
grep -q "unknown argument --bogus" <<<"$out" || fail "--bogus is not named: $out"
out=$("$info" --ep 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "missing value for --ep" <<<"$out" || fail "--ep without a value: exit $rc: $out"

# No driver for the loader: VK_DRIVER_FILES takes precedence over VK_ICD_FILENAMES (a machine may set it to find
# its driver, as the GPU machine's did), so both name a missing file; VK_ADD_DRIVER_FILES (which adds drivers where
# neither is set) and VK_LOADER_DRIVERS_SELECT go, so that no loader version finds one.
out=$(env -u VK_ADD_DRIVER_FILES -u VK_LOADER_DRIVERS_SELECT VK_DRIVER_FILES=/nonexistent.json \
  VK_ICD_FILENAMES=/nonexistent.json ORTVK_VALIDATION=0 "$info" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "no Vulkan device: exit $rc, not 1: $out"
grep -q "ortvk EP devices: 0" <<<"$out" || fail "no Vulkan device: no count of 0: $out"
grep -q "factory.c:[0-9]* CreateEpFactories\] no Vulkan devices" <<<"$out" || fail "the warning names no caller: $out"
grep -q "ort_status.c" <<<"$out" && fail "a log line names the logging helper: $out"

out=$(ORTVK_VALIDATION=1 "$info" 2>&1); rc=$?
[ $rc -eq 0 ] || fail "ORTVK_VALIDATION=1: exit $rc: $out"
grep -q "^Vulkan validation layer: on (ORTVK_VALIDATION=1)" <<<"$out" || fail "validation is not confirmed: $out"
grep -q "^ortvk plugin: /.*libortvk\.so" <<<"$out" || fail "no absolute plugin path: $out"
echo "info_cli: PASS"
