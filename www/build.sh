#!/usr/bin/env bash
# Builds the page's wasm: baton-web for wasm32, wasm-bindgen --target web into www/pkg/, and
# records the sources it was built from (www/page-stamp.sh) in www/pkg/SOURCES.sha256. The
# bundle is committed, so `cargo install` builds a complete baton with Rust alone; baton's
# build script embeds it (with the .wasm as a JS module: the page's CSP forbids fetch).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
profile="${BATON_WEB_PROFILE:-release}"
cd "$root"
cargo build -p baton-web --target wasm32-unknown-unknown --profile "$profile"
out="$here/pkg"
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" \
  "target/wasm32-unknown-unknown/$profile/baton_web.wasm"
"$here/page-stamp.sh" > "$out/SOURCES.sha256"
echo "built $out ($(du -sh "$out" | cut -f1))"
