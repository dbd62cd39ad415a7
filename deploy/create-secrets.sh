#!/bin/sh
# Creates every Secret deploy/ references, in sandbox-system, with random values, unless it exists
# (so running it again never rotates a credential under a running system). Values go from openssl
# to kubectl through files in a private temporary folder, never through the command line.
# Usage: deploy/create-secrets.sh [service...]   (the services with API tokens; defaults below)
# KUBECTL: the kubectl to run (default: kubectl on PATH).
set -eu
NS=sandbox-system
KUBECTL=${KUBECTL:-kubectl}
SERVICES=${*:-instance-manager adapter redemption-handoff dashboard drain-controller}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 700 "$dir"

random() { openssl rand -hex 32 | tr -d '\n' > "$dir/$1"; }

exists() { "$KUBECTL" -n "$NS" get secret "$1" >/dev/null 2>&1; }

# create NAME KEY... : one random value per key.
create() {
  name=$1
  shift
  if exists "$name"; then
    echo "secret/$name exists, kept"
    return
  fi
  args=""
  for key in "$@"; do
    random "$name.$key"
    args="$args --from-file=$key=$dir/$name.$key"
  done
  # shellcheck disable=SC2086
  "$KUBECTL" -n "$NS" create secret generic "$name" $args
}

create adapter-bootstrap secret
create handoff-intake secret
create redeemer-credential secret
for service in $SERVICES; do create "$service-api-tokens" admin read; done

if exists redis-auth; then
  echo "secret/redis-auth exists, kept"
else
  random redis.password
  printf 'requirepass %s\n' "$(cat "$dir/redis.password")" > "$dir/redis.conf"
  "$KUBECTL" -n "$NS" create secret generic redis-auth \
    --from-file=password="$dir/redis.password" --from-file=auth.conf="$dir/redis.conf"
fi
