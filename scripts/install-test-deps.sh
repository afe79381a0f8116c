#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian 12 machine. Idempotent: packages
# already present are not fetched again.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: clang-19 + HIP headers + device libraries compile HIP for gfx942/gfx90a/gfx1100;
# the hipSPARSE and hipRAND (with rocRAND) headers check translated library calls;
# Chromium drives the docs site's browser tests; Neovim is the editor the language server is tested with.
APT_PACKAGES=(clang-19 lld-19 libamdhip64-dev rocm-device-libs libhipsparse-dev libhiprand-dev librocrand-dev chromium neovim)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python: the package with its test, docs and kernel extras. torch 2.13.0 is the CPU build that
# Triton's interpreter runs on; name it exactly so pip does not pick a CUDA build.
python3 -m pip install -q --disable-pip-version-check -e ".[test,docs,kernels]" "torch==2.13.0"
