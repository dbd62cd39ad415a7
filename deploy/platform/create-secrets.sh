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
# shellcheck source=../lib/secrets.sh
. "$(dirname "$0")/../lib/secrets.sh"

if ! exists verifier-signer; then
  [ -r "${SIGNER_CREDENTIAL_FILE:-}" ] || {
    echo 'SIGNER_CREDENTIAL_FILE: name the file holding the credential the payment signer issued' >&2
    exit 1
  }
  cp "$SIGNER_CREDENTIAL_FILE" "$dir/signer"
fi
secret verifier-signer secret="$dir/signer"
create verifier-signing-key secret
create verifier-api-tokens admin read
if ! exists redis-auth; then
  random redis.password
  printf 'requirepass %s\n' "$(cat "$dir/redis.password")" > "$dir/redis.conf"
fi
secret redis-auth password="$dir/redis.password" auth.conf="$dir/redis.conf"
