#!/usr/bin/env bash
# The workflow's handler tests again on Node 22, the Lambda runtime (nodejs22.x), besides
# the machine's Node: unit tests of lib/workflow and the end-to-end workflow runs.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE22=$(bash scripts/ensure-node22.sh)
echo "handler tests on $("$NODE22" --version)"
exec "$NODE22" node_modules/vitest/vitest.mjs run test/unit/workflow test/e2e/workflow --reporter=default
