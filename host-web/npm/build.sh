#!/usr/bin/env bash
# Builds the `baton-core` npm package into target/npm/baton-core/: baton-web for wasm32,
# wasm-bindgen for Node (`node/`, CommonJS) and for browsers and workers (`web/`, an ES
# module), the typed `request()` wrappers, and the ABI's TypeScript declarations
# (types.d.ts, generated from the core's types). `npm pack` in that folder gives the tarball.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
cargo build -p baton-web --target wasm32-unknown-unknown --release
wasm="target/wasm32-unknown-unknown/release/baton_web.wasm"
out="target/npm/baton-core"
rm -rf "$out"
mkdir -p "$out"
wasm-bindgen --target nodejs --out-dir "$out/node" "$wasm"
wasm-bindgen --target web --out-dir "$out/web" "$wasm"
cp -R "$here/package/." "$out/"
cp "$here/types.d.ts" "$out/types.d.ts"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
sed -i "s/\"version\": \"0.0.0\"/\"version\": \"$version\"/" "$out/package.json"
echo "built $out ($(du -sh "$out" | cut -f1)), version $version"
