#!/usr/bin/env bash
# The page bundle committed in www/pkg/ (so `cargo install` needs nothing but Rust) is built
# from the core, the browser bindings and the toolchain. This prints one SHA-256 of all of
# them; www/build.sh records it in www/pkg/SOURCES.sha256, and `--check` fails when the
# committed bundle was built from other sources (then: www/build.sh, and commit www/pkg).
# Only what reaches the .wasm counts: the packages resolved for baton-web on wasm32 (with
# their features), not the whole lock file, and the workspace's profile the page is built
# with, not its other settings, so a dependency of the native host alone, or a setting of
# the debug builds, does not ask for a new bundle.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
stamp() {
  {
    LC_ALL=C find core/src host-web/src -type f | LC_ALL=C sort | xargs sha256sum
    sha256sum core/Cargo.toml host-web/Cargo.toml www/build.sh
    awk -v p="[profile.${BATON_WEB_PROFILE:-release}" '
      /^\[/ { keep = index($0, p "]") == 1 || index($0, p ".") == 1 }
      keep' Cargo.toml
    cargo tree --quiet --locked --offline -p baton-web --target wasm32-unknown-unknown \
      --edges normal,build --prefix none --format '{p} {f}' | sed 's| ([^)]*)||' | LC_ALL=C sort -u
    rustc --version
    wasm-bindgen --version
    echo "profile ${BATON_WEB_PROFILE:-release}"
  } | sha256sum | cut -d' ' -f1
}
case "${1:-}" in
  --check)
    want="$(stamp)"
    have="$(cat www/pkg/SOURCES.sha256 2>/dev/null || echo none)"
    if [ "$want" != "$have" ]; then
      echo "www/pkg/ was built from other sources (recorded $have, now $want): run www/build.sh and commit www/pkg/" >&2
      exit 1
    fi
    ;;
  *) stamp ;;
esac
