# Sourced (never run) by the create-secrets.sh scripts, after they set NS (the namespace): a private
# temporary folder for the values (removed on exit), so no value is ever on a command line, and
# helpers that create a Secret only when it does not exist, so running a script again never rotates
# a credential under a running service. KUBECTL: the kubectl to run (default: kubectl on PATH).
KUBECTL=${KUBECTL:-kubectl}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
chmod 700 "$dir"

# random FILE : 32 random bytes, hex, into $dir/FILE.
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

# create NAME KEY... : one random value per key, unless the Secret exists.
create() {
  name=$1
  shift
  pairs=""
  for key in "$@"; do
    random "$name.$key"
    pairs="$pairs $key=$dir/$name.$key"
  done
  # shellcheck disable=SC2086
  secret "$name" $pairs
}
