#!/bin/sh
# Creates every Secret deploy/ references, in sandbox-system, with random values, unless it exists
# (so running it again never rotates a credential under a running system). Values go from openssl
# to kubectl through files in a private temporary folder, never through the command line.
# Usage: deploy/create-secrets.sh [service...]   (the services with API tokens; defaults below)
# KUBECTL: the kubectl to run (default: kubectl on PATH).
set -eu
NS=sandbox-system
SERVICES=${*:-instance-manager adapter redemption-handoff dashboard drain-controller}
# shellcheck source=lib/secrets.sh
. "$(dirname "$0")/lib/secrets.sh"

create adapter-bootstrap secret
create handoff-intake secret
create redeemer-credential secret
for service in $SERVICES; do create "$service-api-tokens" admin read; done

# Redis reads its password from a config line, the services from the bare value: one Secret, both keys.
if ! exists redis-auth; then
  random redis.password
  printf 'requirepass %s\n' "$(cat "$dir/redis.password")" > "$dir/redis.conf"
fi
secret redis-auth password="$dir/redis.password" auth.conf="$dir/redis.conf"
