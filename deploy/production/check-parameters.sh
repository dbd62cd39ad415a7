#!/bin/sh
# Checks deploy/production/parameters.env (or the file given) before an install: every parameter set,
# none left at its shipped placeholder, each well-formed. Prints one line per problem and exits 1 if
# there is any; prints nothing else. The file is read as KEY=VALUE lines, never run.
# Usage: deploy/production/check-parameters.sh [parameters.env]
set -eu
FILE=${1:-$(dirname "$0")/parameters.env}
KEYS='NODE_IMAGE REDEEMER_URL KUBE_CLUSTER_CIDRS KUBE_DNS_SERVERS NODE_RUNNER_GRANTS'
# shellcheck source=../lib/parameters.sh
. "$(dirname "$0")/../lib/parameters.sh"

# An IPv4 address: four numbers of at most 255.
ipv4() {
  echo "$1" | grep -Eq '^([0-9]{1,3}\.){3}[0-9]{1,3}$' || return 1
  for octet in $(echo "$1" | tr . ' '); do [ "$octet" -le 255 ] || return 1; done
}

# Not a private, loopback, link-local, shared or special-use IPv4 address.
public_ipv4() {
  ipv4 "$1" || return 1
  ! echo "$1" | grep -Eq '^(0|10|127)\.|^169\.254\.|^172\.(1[6-9]|2[0-9]|3[01])\.|^192\.168\.|^100\.(6[4-9]|[7-9][0-9]|1[01][0-9]|12[0-7])\.|^(22[4-9]|2[3-5][0-9])\.|^192\.0\.[02]\.|^198\.(1[89])\.|^198\.51\.100\.|^203\.0\.113\.'
}

# An https URL on port 443 (the only port production egress opens) whose host is a public DNS name.
public_https_url() {
  host=$(echo "$1" | sed -n 's#^https://\([A-Za-z0-9.-]*\)\(/.*\)\{0,1\}$#\1#p')
  [ -n "$host" ] && public_name "$host"
}

image=$(value NODE_IMAGE)
case $image in
  *set-node-release* | '') problem "NODE_IMAGE: set Node's release (image:tag or image@sha256:digest)" ;;
  *:latest) problem 'NODE_IMAGE: name a release, not latest' ;;
  *)
    echo "$image" | grep -Eq '^[a-z0-9.-]+(:[0-9]+)?/[a-z0-9._/-]+(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[0-9a-f]{64})$' ||
      problem 'NODE_IMAGE: expected registry/name:tag or registry/name@sha256:<digest>'
    ;;
esac

url=$(value REDEEMER_URL)
public_https_url "$url" || problem "REDEEMER_URL: expected https://<public DNS name>[/path] on port 443"

cidrs=$(value KUBE_CLUSTER_CIDRS)
[ -n "$cidrs" ] || problem 'KUBE_CLUSTER_CIDRS: set the pod and service CIDRs and the node addresses'
for cidr in $(echo "$cidrs" | tr , ' '); do
  address=${cidr%/*} bits=${cidr#*/}
  if [ "$address" = "$cidr" ] || ! ipv4 "$address" || ! echo "$bits" | grep -Eq '^[0-9]{1,2}$' || [ "$bits" -gt 32 ]; then
    problem "KUBE_CLUSTER_CIDRS: '$cidr' is not an IPv4 CIDR (a node address is <address>/32)"
  fi
done

resolvers=$(value KUBE_DNS_SERVERS)
[ -n "$resolvers" ] || problem 'KUBE_DNS_SERVERS: set the public resolvers of egress internet apps'
for resolver in $(echo "$resolvers" | tr , ' '); do
  public_ipv4 "$resolver" || problem "KUBE_DNS_SERVERS: '$resolver' is not a public IPv4 address"
done

grants=$(value NODE_RUNNER_GRANTS)
[ -n "$grants" ] || problem 'NODE_RUNNER_GRANTS: set the grants (deploy/production/runner-grants.sh prints them)'
bad=$(echo "$grants" | tr , '\n' | grep -Ev '^([0-9]{1,3}\.){3}[0-9]{1,3}:[0-9]{1,5}$' | head -n 1 || true)
[ -z "$bad" ] || problem "NODE_RUNNER_GRANTS: '$bad' is not <pod address>:<port> (Node takes exact grants, no ranges)"

[ "$problems" -eq 0 ] || exit 1
