#!/usr/bin/env bash
# Load check for `chainlab serve`: starts a server on an ephemeral loopback port, signs in
# with a password grant, runs wrk with CONNECTIONS keep-alive connections for DURATION on
# GET /heroes/2001, prints requests per second, and stops the server. Fails when wrk saw
# socket errors or a status other than 200, or when the server does not exit 0.
#
#   scripts/serve-load.sh                      # builds chainlab in release mode first
#   CHAINLAB=.build/release/chainlab scripts/serve-load.sh
#
# Settings (environment): CONNECTIONS (200), DURATION (10s), THREADS (2), CHAINLAB.
set -euo pipefail

connections=${CONNECTIONS:-200}
duration=${DURATION:-10s}
threads=${THREADS:-2}

fail() {
    echo "serve-load: $*" >&2
    exit 1
}

command -v wrk >/dev/null || fail "wrk is not installed (Debian: apt-get install -y wrk)"
command -v curl >/dev/null || fail "curl is not installed"

chainlab=${CHAINLAB:-}
if [[ -z "$chainlab" ]]; then
    cd "$(dirname "$0")/.."
    swift build -c release --product chainlab >&2
    chainlab="$(swift build -c release --show-bin-path)/chainlab"
fi
[[ -x "$chainlab" ]] || fail "no chainlab executable at $chainlab"

work=$(mktemp -d)
"$chainlab" serve --port 0 >"$work/stdout" 2>"$work/stderr" &
server=$!
stop_server() {
    if kill -0 "$server" 2>/dev/null; then
        kill -TERM "$server"
        wait "$server" || true
    fi
    rm -rf "$work"
}
trap stop_server EXIT

# Poll for the listening line for at most 10 s.
for _ in $(seq 100); do
    grep -q '^chainlab serve: listening on ' "$work/stdout" && break
    kill -0 "$server" 2>/dev/null || fail "chainlab serve exited: $(cat "$work/stderr")"
    sleep 0.1
done
base=$(sed -n 's/^chainlab serve: listening on \(http:[^ ]*\) .*/\1/p' "$work/stdout")
[[ -n "$base" ]] || fail "chainlab serve did not print its address within 10 s"

grant=$(curl --silent --show-error --fail --max-time 10 \
    --data 'grant_type=password&username=demo&password=demo' "$base/oauth/token")
token=$(sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p' <<<"$grant")
[[ -n "$token" ]] || fail "no access token in $grant"

echo "wrk -t$threads -c$connections -d$duration --latency -H 'Authorization: Bearer $token' $base/heroes/2001"
report=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency \
    -H "Authorization: Bearer $token" "$base/heroes/2001")
echo "$report"

if grep -q -e '^  Socket errors:' -e '^  Non-2xx or 3xx responses:' <<<"$report"; then
    fail "wrk reported errors (above)"
fi
rate=$(sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p' <<<"$report")

kill -TERM "$server"
status=0
wait "$server" || status=$?
[[ $status -eq 0 ]] || fail "chainlab serve exited with status $status after SIGTERM"
echo "serve-load: $rate requests/s over $connections keep-alive connections for $duration, no errors"
