#!/usr/bin/env bash
# The page bundle committed in www/pkg/ (so `cargo install` needs nothing but Rust) is built
# from the core, the browser bindings and the toolchain. This prints one SHA-256 of all of
# them; www/build.sh records it in www/pkg/SOURCES.sha256, and `--check` fails when the
# committed bundle was built from other sources (then: www/build.sh, and commit www/pkg).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
stamp() {
  {
    LC_ALL=C find core/src host-web/src -type f | LC_ALL=C sort | xargs sha256sum
    sha256sum Cargo.toml Cargo.lock core/Cargo.toml host-web/Cargo.toml www/build.sh
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
