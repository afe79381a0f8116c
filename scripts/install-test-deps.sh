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

# ROCm 6.4 development headers (Debian 12's HIP headers are 5.2: no hip_bf16.h, hip_fp8.h, *_sync
# warp functions, hipBLAS/rocBLAS/hipFFT/hipCUB/rocThrust/hipSOLVER/MIOpen headers). Debian's unstable
# suite has them; they are fetched with a private apt state (own sources list, lists and cache; an
# empty dpkg status) and unpacked with `dpkg -x`, so the system's apt configuration and installed
# packages stay as they are. Versions are pinned: a newer upload must not change the test results
# silently. A pin that the mirror no longer has fails this step with the reason written next to the
# folder (the tests then skip with it); update the pin and the expected results together.
# src/xlate/hip_headers.py finds the folder (or $XLATE_ROCM_INCLUDE).
ROCM_DIR="${XLATE_ROCM_DIR:-/opt/xlate/rocm-6.4}"
ROCM_PINS=(
  libamdhip64-dev=6.4.3-5
  libhipblas-dev=6.4.4-1
  libhipblas-common-dev=7.1.0-1+b1
  librocblas-dev=6.4.4-4
  libhipcub-dev=6.4.3-2
  librocprim-dev=6.4.3-2
  librocthrust-dev=6.4.4-1
  libhipfft-dev=6.4.3-2
  libhipsparse-dev=6.4.3-1
  libhiprand-dev=6.4.3-1
  librocrand-dev=6.4.3-1
  libhipsolver-dev=6.4.1-1
  libmiopen-dev=6.4.3+dfsg-1+b1
  # ROCTx (roctracer/roctx.h), the profiler markers NVTX ranges map to.
  libroctx-dev=6.4.1-1
  # Three libraries that rows name but that Debian has no ROCm 6.4 build of: the uploads in this suite
  # are the nearest. They are header-compatible with the HIP 6.4 headers above, and the probes
  # (src/xlate/kb/_proofs.py) record the release each of these sides was proven against, read from
  # the headers. hipBLASLt 1.1 (ROCm 7.1; the same upload series as libhipblas-common-dev above):
  libhipblaslt-dev=7.1.1+dfsg-4
  # RCCL of ROCm 5.4 (NCCL API 2.13); its only newer build is in the experimental suite:
  librccl-dev=5.4.3-3+b1
  # The AMD SMI library 27.1 (Debian numbers the source package 10.1):
  libamd-smi-dev=10.1-1
  # Not available, so their rows stay unproven (the reasons are in _proofs.py): rocWMMA (the only
  # upload, in experimental, lacks the internal/ headers that rocwmma.hpp includes), hipTensor and
  # hipFile (never uploaded).
  # AMD's regex translator, the reference benchmarks/bench_vs_hipify.py measures the translator and
  # explain against (a Perl script; unpacked to usr/bin/hipify-perl, never put on PATH).
  hipify-perl=7.0.2+dfsg-1
)

# The system's Debian mirror (the URI that serves its own release), with its signing keyring; the
# suite is swapped for `sid`. Prints "URI KEYRING"; no host is named here.
system_debian_mirror() {
  local codename
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  [ -n "$codename" ] || { echo "no VERSION_CODENAME in /etc/os-release" >&2; return 1; }
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822 stanzas are separated by blank lines; take the first whose Suites list the codename.
    awk -v want="$codename" '
      function flush() { if (ok && deb && uri != "") { print uri, (key == "" ? "-" : key); found = 1; exit } ok = 0; deb = 0; uri = ""; key = "" }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]*#/ { next }
      tolower($1) == "types:"     { deb = 0; for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
      tolower($1) == "uris:"      { uri = $2 }
      tolower($1) == "signed-by:" { key = $2 }
      tolower($1) == "suites:"    { for (i = 2; i <= NF; i++) if ($i == want) ok = 1 }
      END { if (!found) { if (ok && deb && uri != "") print uri, (key == "" ? "-" : key) } }
    ' "$f" | head -n1 | grep . && return 0
  done
  if [ -f /etc/apt/sources.list ]; then
    # deb [options] URI suite components...
    awk -v want="$codename" '
      $1 != "deb" { next }
      { key = "-"; i = 2
        if ($2 ~ /^\[/) { for (; i <= NF; i++) { if ($i ~ /^\[?signed-by=/) { key = $i; sub(/^\[?signed-by=/, "", key); sub(/\]$/, "", key) } if ($i ~ /\]$/) { i++; break } } }
        if ($(i + 1) == want) { print $i, key; exit } }
    ' /etc/apt/sources.list | grep . && return 0
  fi
  echo "no apt source for suite $codename in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list" >&2
  return 1
}

fetch_rocm_headers() {
  local pins_text base state
  pins_text="$(printf '%s\n' "${ROCM_PINS[@]}")"
  if [ -f "$ROCM_DIR/.pins" ] && [ "$(cat "$ROCM_DIR/.pins")" = "$pins_text" ]; then
    return 0  # already unpacked with exactly these versions
  fi
  base="$(dirname "$ROCM_DIR")"
  if ! mkdir -p "$base" 2>/dev/null || [ ! -w "$base" ]; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO mkdir -p "$base" && $SUDO chown "$(id -u):$(id -g)" "$base"
  fi
  state="$base/apt-state"
  mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/parts" "$state/debs" || return 1
  # As root, apt downloads as its sandbox user: let it write the download folder.
  if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then chown _apt "$state/debs"; fi

  local mirror uri key
  mirror="$(system_debian_mirror)" || return 1
  read -r uri key <<<"$mirror"
  if [ "$key" != "-" ]; then
    echo "deb [signed-by=$key] $uri sid main" >"$state/sources.list"
  else
    echo "deb $uri sid main" >"$state/sources.list"
  fi
  local apt_opts=(
    -o "Dir::Etc::SourceList=$state/sources.list" -o "Dir::Etc::SourceParts=$state/parts"
    -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$state/parts"
    -o "Dir::State=$state" -o "Dir::State::Lists=$state/lists" -o "Dir::State::status=/dev/null"
    -o "Dir::Cache=$state/cache"
  )
  local need=() pin file
  for pin in "${ROCM_PINS[@]}"; do
    file="${pin%%=*}_${pin#*=}_"; file="${file//:/%3a}"
    compgen -G "$state/debs/${file}*.deb" >/dev/null || need+=("$pin")
  done
  if [ ${#need[@]} -gt 0 ]; then
    apt-get "${apt_opts[@]}" update -qq || { echo "apt-get update of $uri sid failed" >&2; return 1; }
    local missing_pins=()
    for pin in "${need[@]}"; do
      # madison lists "package | version | source" for every version the lists hold.
      apt-cache "${apt_opts[@]}" madison "${pin%%=*}" 2>/dev/null | awk -F' *[|] *' -v v="${pin#*=}" '$2 == v { f = 1 } END { exit !f }' \
        || missing_pins+=("$pin")
    done
    if [ ${#missing_pins[@]} -gt 0 ]; then
      echo "pinned versions no longer in $uri sid: ${missing_pins[*]} (update ROCM_PINS in scripts/install-test-deps.sh)" >&2
      return 1
    fi
    (cd "$state/debs" && apt-get "${apt_opts[@]}" download -qq "${need[@]}") || { echo "apt-get download failed" >&2; return 1; }
  fi
  # Unpack beside the target and rename, so a half-unpacked folder is never taken for the headers.
  local tmp="$ROCM_DIR.tmp.$$" deb
  rm -rf "$tmp"; mkdir -p "$tmp" || return 1
  for pin in "${ROCM_PINS[@]}"; do
    file="${pin%%=*}_${pin#*=}_"; file="${file//:/%3a}"
    for deb in "$state/debs/${file}"*.deb; do dpkg -x "$deb" "$tmp" || { echo "dpkg -x $deb failed" >&2; return 1; }; done
  done
  printf '%s\n' "$pins_text" >"$tmp/.pins" || return 1
  rm -rf "$ROCM_DIR" && mv "$tmp" "$ROCM_DIR" || return 1
}

ROCM_ERROR="$ROCM_DIR.error"
if rocm_log="$(fetch_rocm_headers 2>&1)"; then
  rm -f "$ROCM_ERROR"
  [ -z "$rocm_log" ] || printf '%s\n' "$rocm_log"
else
  reason="$(printf '%s\n' "$rocm_log" | grep -v '^\s*$' | tail -n1)"
  mkdir -p "$(dirname "$ROCM_ERROR")" 2>/dev/null && printf '%s\n' "$reason" >"$ROCM_ERROR" || true
  printf '%s\n' "$rocm_log" >&2
  echo "error: the ROCm 6.4 headers were not installed: $reason (the tests that need them will skip with this reason)" >&2
fi

# Python: the package with its test, docs and kernel extras. torch 2.13.0 is the CPU build that
# Triton's interpreter runs on; name it exactly so pip does not pick a CUDA build.
python3 -m pip install -q --disable-pip-version-check -e ".[test,docs,kernels]" "torch==2.13.0"
# pip byte-compiles what it installs, but not an editable install's sources: compile them now, or
# every cold command compiles about sixty modules anew wherever PYTHONDONTWRITEBYTECODE is set (a
# third of a small run's time). Python checks each file's time stamp, so a later edit is still read.
python3 -m compileall -q src/xlate
