#!/bin/sh
# Waits until every workload of sandbox-system serves: what `kubectl wait --for=condition=Available`
# cannot tell (with maxUnavailable: 100 %, a Deployment is Available with no pod ready).
# - StatefulSets and Deployments: `kubectl rollout status` (every replica updated and ready);
# - Deployments labelled sandbox-runtime/lease-standby=true (two replicas, one holds the service's
#   Redis lease, the other is a standby that stays unready while the holder lives, so `rollout
#   status` would wait forever): every replica updated and at least one ready.
# Usage: deploy/wait-ready.sh [timeout-seconds]   (default 300, for each workload)
# KUBECTL: the kubectl to run (default: kubectl on PATH).
set -eu
NS=sandbox-system
KUBECTL=${KUBECTL:-kubectl}
TIMEOUT=${1:-300}
STANDBY=sandbox-runtime/lease-standby

for workload in $("$KUBECTL" -n "$NS" get statefulset,deployment -l "$STANDBY!=true" -o name); do
  "$KUBECTL" -n "$NS" rollout status "$workload" --timeout="${TIMEOUT}s"
done

# wanted, replicas, updated, ready (a status field is absent, so empty, while it is 0)
FIELDS='{.spec.replicas},{.status.replicas},{.status.updatedReplicas},{.status.readyReplicas}'
for workload in $("$KUBECTL" -n "$NS" get deployment -l "$STANDBY=true" -o name); do
  waited=0
  while :; do
    fields=$("$KUBECTL" -n "$NS" get "$workload" -o jsonpath="$FIELDS")
    IFS=, read -r wanted replicas updated ready <<END
$fields
END
    wanted=${wanted:-1} replicas=${replicas:-0} updated=${updated:-0} ready=${ready:-0}
    if [ "$replicas" = "$wanted" ] && [ "$updated" = "$wanted" ] && [ "$ready" -ge 1 ]; then
      echo "$workload: $ready of $wanted ready (the lease holder; the standby stays unready)"
      break
    fi
    if [ "$waited" -ge "$TIMEOUT" ]; then
      echo "$workload: not ready after ${TIMEOUT}s ($updated of $wanted updated, $ready ready)" >&2
      exit 1
    fi
    sleep 2
    waited=$((waited + 2))
  done
done
