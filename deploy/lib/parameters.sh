# Sourced (never run) by the check-parameters.sh scripts, after they set FILE (the parameters file)
# and KEYS (the parameters it must set): reads the file as KEY=VALUE lines, never as a script, reports
# each missing key, and gives the helpers both checks use. The caller ends with
# `[ "$problems" -eq 0 ] || exit 1`.
problems=0

# Prints one problem (to stderr, prefixed with the file) and counts it.
problem() {
  echo "$FILE: $1" >&2
  problems=$((problems + 1))
}

# The last value given to a key in the file.
value() {
  sed -n "s/^$1=//p" "$FILE" | tail -n 1
}

# A public DNS name: a real top-level domain, none reserved for examples, tests or a cluster.
public_name() {
  echo "$1" | grep -Eq '\.[A-Za-z]{2,}$' || return 1
  ! echo "$1" | grep -Eiq '(^|\.)(invalid|example|test|localhost|local|internal|svc|cluster\.local)$|(^|\.)example\.(com|net|org)$'
}

[ -r "$FILE" ] || {
  echo "$FILE: cannot be read" >&2
  exit 1
}
for key in $KEYS; do
  grep -q "^$key=" "$FILE" || problem "$key is missing"
done
