#!/usr/bin/env bash
# Node 22 (the Lambda runtime, nodejs22.x) for the handler tests, beside the machine's Node.
# Taken from the npm registry's node-linux-<arch> package (no other network), unpacked
# into .cache/node22; prints the binary's path. Not a dependency: its `node` bin would
# shadow the machine's Node in every npm script.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=22.23.3
case "$(uname -m)" in
  x86_64) ARCH=x64 ;;
  aarch64 | arm64) ARCH=arm64 ;;
  *) echo "ensure-node22: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
DIR=.cache/node22-$VERSION-$ARCH
if [ ! -x "$DIR/bin/node" ]; then
  rm -rf "$DIR.tmp" && mkdir -p "$DIR.tmp"
  TARBALL=$(cd "$DIR.tmp" && npm pack --silent "node-linux-$ARCH@$VERSION" 2>/dev/null | tail -1)
  tar -xzf "$DIR.tmp/$TARBALL" -C "$DIR.tmp"
  rm -rf "$DIR" && mv "$DIR.tmp/package" "$DIR" && rm -rf "$DIR.tmp"
fi
"$DIR/bin/node" --version >/dev/null
echo "$PWD/$DIR/bin/node"
