#!/bin/sh
# The crash test with more rounds: kill -9 of the instance-manager at random moments of create, take
# and release, then restart and check for leaked namespaces and containers, phantom ready records and
# duplicate instance-ready events. Needs root (the local gVisor driver).
#   apps/instance-manager/scripts/crash-test.sh [rounds=100] [seed]
# A failing run prints its seed; pass it again to repeat the same sequence of actions and delays.
set -eu
cd "$(dirname "$0")/../../.."
export CRASH_ROUNDS="${1:-100}"
if [ -n "${2:-}" ]; then export CRASH_SEED="$2"; fi
exec node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js \
  apps/instance-manager/src/crash.int.spec.ts
