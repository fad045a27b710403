#!/usr/bin/env bash
# Copies the baton-core package's Node build (host-web/npm/build.sh makes it) into core/, where
# the extension loads the embedded core from; `npm run package` then bundles it in the .vsix.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
built="$here/../../target/npm/baton-core"
[ -f "$built/index.cjs" ] || { echo "run host-web/npm/build.sh first ($built is missing)" >&2; exit 1; }
rm -rf "$here/core"
mkdir -p "$here/core"
cp -R "$built/index.cjs" "$built/index.d.ts" "$built/types.d.ts" "$built/node" "$here/core/"
echo "copied the embedded core into $here/core ($(du -sh "$here/core" | cut -f1))"
