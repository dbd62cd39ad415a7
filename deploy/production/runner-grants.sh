#!/bin/sh
# Prints NODE_RUNNER_GRANTS for parameters.env: `<address>:<port>` for every host address of a pod
# range, comma-separated. Node grants private destinations one exact host:port at a time (no ranges),
# and app pods take any address of the node's pod range (k3s: one /24 per node, 10.42.0.0/24 on a
# one-node cluster; `kubectl get node -o jsonpath='{.items[*].spec.podCIDR}'` shows it).
# Usage: deploy/production/runner-grants.sh <pod CIDR, /20 to /30> <app port>
set -eu
[ $# -eq 2 ] || {
  echo 'usage: runner-grants.sh <pod CIDR> <app port>' >&2
  exit 2
}
cidr=$1 port=$2
address=${cidr%/*} bits=${cidr#*/}
echo "$address" | grep -Eq '^([0-9]{1,3}\.){3}[0-9]{1,3}$' && echo "$bits" | grep -Eq '^[0-9]{2}$' &&
  [ "$bits" -ge 20 ] && [ "$bits" -le 30 ] || {
  echo "runner-grants.sh: '$cidr' is not an IPv4 CIDR from /20 to /30" >&2
  exit 2
}
echo "$port" | grep -Eq '^[0-9]{1,5}$' && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || {
  echo "runner-grants.sh: '$port' is not a port" >&2
  exit 2
}
IFS=. read -r a b c d <<END
$address
END
for octet in "$a" "$b" "$c" "$d"; do
  [ "$octet" -le 255 ] || {
    echo "runner-grants.sh: '$address' is not an IPv4 address" >&2
    exit 2
  }
done
size=$((1 << (32 - bits)))
network=$(((a << 24 | b << 16 | c << 8 | d) & ~(size - 1) & 0xFFFFFFFF))
host=1
out=''
while [ "$host" -lt $((size - 1)) ]; do
  ip=$((network + host))
  out="$out${out:+,}$((ip >> 24 & 255)).$((ip >> 16 & 255)).$((ip >> 8 & 255)).$((ip & 255)):$port"
  host=$((host + 1))
done
echo "$out"
