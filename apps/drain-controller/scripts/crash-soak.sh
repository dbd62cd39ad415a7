#!/bin/sh
# Runs the drain-controller crash test over many drains (default 200): kill -9 at random points,
# every drain must end `done`, Node replaced once per drain, no session cut before its deadline.
# Usage: apps/drain-controller/scripts/crash-soak.sh [drains] [seed]
set -eu
cd "$(dirname "$0")/../../.."
DRAIN_CRASH_DRAINS="${1:-200}" DRAIN_CRASH_SEED="${2:-$(date +%s)}" \
  exec npm test -- apps/drain-controller/src/crash.int.spec.ts
