#!/usr/bin/env bash
# Puts protobuf 3.21.12's upstream source (Debian's orig tarball, the same version as the
# system protoc and libprotobuf) in build/third_party/protobuf-3.21.12, for the wasm build of
# protobuf-lite. Idempotent; needs the deb-src entry that setup-system.sh adds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/build/third_party
src=$dest/protobuf-3.21.12
if [ -f "$src/CMakeLists.txt" ]; then exit 0; fi
mkdir -p "$dest"
cd "$dest"
if ! ls protobuf_3.21.12.orig.tar.gz >/dev/null 2>&1; then
  apt-get source --download-only protobuf >/dev/null
fi
expected=930c2c3b5ecc6c9c12615cf5ad93f1cd6e12d0aba862b572e076259970ac3a53
actual=$(sha256sum protobuf_3.21.12.orig.tar.gz | cut -d' ' -f1)
if [ "$actual" != "$expected" ]; then
  echo "fetch-protobuf-src: unexpected checksum $actual for protobuf_3.21.12.orig.tar.gz" >&2
  exit 1
fi
rm -rf protobuf-3.21.12.tmp && mkdir protobuf-3.21.12.tmp
tar xzf protobuf_3.21.12.orig.tar.gz -C protobuf-3.21.12.tmp --strip-components=1
mv protobuf-3.21.12.tmp "$src"
