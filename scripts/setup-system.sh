#!/usr/bin/env bash
# Installs the Debian packages webnx needs (idempotent). Adds the deb-src entry used to
# fetch protobuf's source for the wasm build of protobuf-lite.
set -euo pipefail

PKGS=(emscripten binaryen wabt cmake ninja-build g++ make protobuf-compiler libprotobuf-dev
      libonnx-dev python3-onnx nlohmann-json3-dev libsimde-dev googletest libgtest-dev
      python3-torch python3-torchvision python3-sklearn python3-numpy dpkg-dev clang-format
      chromium clang-14 libclang-rt-14-dev clang-16 lld-16 llvm-16)

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

SRC_LIST=/etc/apt/sources.list.d/debian-src.sources
need_update=0
if [ ! -f "$SRC_LIST" ]; then
  $SUDO tee "$SRC_LIST" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  need_update=1
fi

if [ ${#missing[@]} -gt 0 ] || [ $need_update = 1 ]; then
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}"
fi
