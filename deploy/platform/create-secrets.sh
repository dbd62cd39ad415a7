#!/bin/sh
# Creates the platform verifier's Secrets in sandbox-verifier, in the platform's cluster, unless they
# exist (so running it again never rotates a credential under a running verifier): its Ed25519
# report-signing key and Redis password (random), its API tokens (random), and its credential at the
# payment signer, read from the file SIGNER_CREDENTIAL_FILE names (the signer issues it). Values go to
# kubectl through files in a private temporary folder, never through the command line.
# Usage: SIGNER_CREDENTIAL_FILE=path deploy/platform/create-secrets.sh
# KUBECTL: the kubectl to run (default: kubectl on PATH).
set -eu
NS=sandbox-verifier
KUBECTL=${KUBECTL:-kubectl}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 700 "$dir"

random() { openssl rand -hex 32 | tr -d '\n' > "$dir/$1"; }

exists() { "$KUBECTL" -n "$NS" get secret "$1" >/dev/null 2>&1; }

# secret NAME KEY=FILE... : created from the files, unless it exists.
secret() {
  name=$1
  shift
  if exists "$name"; then
    echo "secret/$name exists, kept"
    return
  fi
  args=""
  for pair in "$@"; do args="$args --from-file=$pair"; done
  # shellcheck disable=SC2086
  "$KUBECTL" -n "$NS" create secret generic "$name" $args
}

if ! exists verifier-signer; then
  [ -r "${SIGNER_CREDENTIAL_FILE:-}" ] || {
    echo 'SIGNER_CREDENTIAL_FILE: name the file holding the credential the payment signer issued' >&2
    exit 1
  }
  cp "$SIGNER_CREDENTIAL_FILE" "$dir/signer"
fi
secret verifier-signer secret="$dir/signer"
random signing-key
secret verifier-signing-key secret="$dir/signing-key"
random admin
random read
secret verifier-api-tokens admin="$dir/admin" read="$dir/read"
random redis.password
printf 'requirepass %s\n' "$(cat "$dir/redis.password")" > "$dir/redis.conf"
secret redis-auth password="$dir/redis.password" auth.conf="$dir/redis.conf"
