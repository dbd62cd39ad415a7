#!/bin/sh
# Checks deploy/platform/parameters.env (or the file given) before the verifier is applied: every
# parameter set, none left at its shipped placeholder, each well-formed, and Node named by a public URL
# (the route a client takes), never a cluster or private address. Prints one line per problem and exits
# 1 if there is any; prints nothing else. The file is read as KEY=VALUE lines, never run.
# Usage: deploy/platform/check-parameters.sh [parameters.env]
set -eu
FILE=${1:-$(dirname "$0")/parameters.env}
KEYS='NODE_URL SIGNER_URL VERIFIER_ID SCHEDULE_APPS'
# shellcheck source=../lib/parameters.sh
. "$(dirname "$0")/../lib/parameters.sh"

# The host of an http(s) URL ([scheme://]host[:port][/path]), or nothing.
host_of() {
  echo "$1" | sed -n 's#^https\{0,1\}://\([A-Za-z0-9.-]*\)\(:[0-9]\{1,5\}\)\{0,1\}\(/.*\)\{0,1\}$#\1#p'
}

node=$(value NODE_URL)
host=$(host_of "$node")
if [ -z "$host" ] || ! public_name "$host"; then
  problem "NODE_URL: expected Node's public URL, http(s)://<public DNS name>[:port]"
fi
case $node in
  *livepeer-node* | *sandbox-system*) problem 'NODE_URL: not the cluster Service: the public URL clients use' ;;
esac

signer=$(value SIGNER_URL)
case $signer in
  https://*) ;;
  *) problem 'SIGNER_URL: expected https://<public DNS name>[/path]' ;;
esac
host=$(host_of "$signer")
[ -n "$host" ] && public_name "$host" || problem 'SIGNER_URL: expected https://<public DNS name>[/path]'

id=$(value VERIFIER_ID)
case $id in
  set-verifier-id | '') problem 'VERIFIER_ID: set the name written into every report' ;;
  *) echo "$id" | grep -Eq '^[A-Za-z0-9._-]{1,64}$' || problem 'VERIFIER_ID: 1-64 of A-Z a-z 0-9 . _ -' ;;
esac

apps=$(value SCHEDULE_APPS)
bad=$(echo "$apps" | tr , '\n' | grep -Ev '^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$' | head -n 1 || true)
[ -z "$bad" ] || problem "SCHEDULE_APPS: '$bad' is not an app name"

[ "$problems" -eq 0 ] || exit 1
