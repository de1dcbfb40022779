#!/usr/bin/env bash
# Load check for `chainlab serve`: starts a server on an ephemeral loopback port, signs in
# with a password grant, runs wrk with CONNECTIONS keep-alive connections for DURATION on
# GET /heroes/2001, prints requests per second, and stops the server. Fails when wrk saw
# socket errors or a status other than 200, or when the server does not exit 0.
#
#   scripts/serve-load.sh                      # builds chainlab in release mode first
#   CHAINLAB=.build/release/chainlab scripts/serve-load.sh
#   scripts/serve-load.sh proxy                # serve --upstream beside its peers
#
# `proxy` measures `chainlab serve --upstream` (HAR recording on) side by side in one run
# with the peers installed here, all in front of the same upstream (nginx answering a small
# JSON body, or `chainlab serve` when nginx is missing): the upstream directly, ChainLab's
# proxy, nginx as a reverse proxy, and mitmproxy (`mitmdump` on PATH) in reverse mode, each
# with wrk at 8 and 100 connections. It prints requests per second, the p50 latency each
# proxy adds to the upstream's, ChainLab's share of nginx's requests per second, and the
# proxy's peak resident memory.
#
# Settings (environment): CONNECTIONS (200), DURATION (10s), THREADS (2), CHAINLAB;
# for `proxy`, ROUNDS (3): how many times each target is measured, taking turns.
set -euo pipefail

connections=${CONNECTIONS:-200}
duration=${DURATION:-10s}
threads=${THREADS:-2}
rounds=${ROUNDS:-3}

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

# A free loopback port.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Milliseconds from a wrk latency such as 812.00us, 1.20ms or 1.01s.
milliseconds() {
    awk -v v="$1" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /ms$/) n *= 1; else if (v ~ /s$/) n *= 1000; printf "%.3f", n }'
}

# wrk against URL with CONNECTIONS; sets rate and p50 (ms); fails on socket errors or
# statuses other than 2xx.
measure() {
    local url=$1 connections=$2 report
    report=$(wrk -t"$threads" -c"$connections" -d"$duration" --latency "${wrk_headers[@]}" "$url")
    if grep -q -e '^  Socket errors:' -e '^  Non-2xx or 3xx responses:' <<<"$report"; then
        echo "$report" >&2
        fail "wrk reported errors against $url (above)"
    fi
    rate=$(sed -n 's/^Requests\/sec: *\([0-9.]*\)/\1/p' <<<"$report")
    p50=$(milliseconds "$(awk '$1 == "50%" { print $2 }' <<<"$report")")
}

# Waits up to 10 s for FILE to hold a line matching PATTERN.
await_line() {
    for _ in $(seq 100); do
        grep -q "$2" "$1" && return 0
        sleep 0.1
    done
    fail "no line matching '$2' in $1 within 10 s: $(cat "$1")"
}

proxy_load() {
    command -v python3 >/dev/null || fail "python3 is needed to pick free ports"
    work=$(mktemp -d)
    pids=()
    trap 'for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null; rm -rf "$work"' EXIT
    wrk_headers=()
    path=/graphql
    local upstream_port nginx_port="" upstream_name
    upstream_port=$(free_port)
    if command -v nginx >/dev/null; then
        nginx_port=$(free_port)
        mkdir -p "$work/nginx"
        cat >"$work/nginx.conf" <<CONF
worker_processes auto;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 2048; }
http {
    access_log off;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    upstream origin { server 127.0.0.1:$upstream_port; keepalive 128; }
    server {
        listen 127.0.0.1:$upstream_port;
        location / { default_type application/json; return 200 '{"data":{"hero":{"id":"2001","name":"R2-D2"}}}'; }
    }
    server {
        listen 127.0.0.1:$nginx_port;
        location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
CONF
        nginx -c "$work/nginx.conf" -p "$work/nginx" 2>"$work/nginx.stderr" &
        pids+=($!)
        upstream_name="nginx answering a fixed JSON body"
        sleep 0.5
    else
        "$chainlab" serve --port "$upstream_port" >"$work/upstream.stdout" 2>&1 &
        pids+=($!)
        await_line "$work/upstream.stdout" '^chainlab serve: listening on '
        grant=$(curl --silent --show-error --fail --max-time 10 \
            --data 'grant_type=password&username=demo&password=demo' "http://127.0.0.1:$upstream_port/oauth/token")
        token=$(sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p' <<<"$grant")
        wrk_headers=(-H "Authorization: Bearer $token")
        path=/heroes/2001
        upstream_name="chainlab serve (nginx is not installed)"
    fi

    "$chainlab" serve --upstream "http://127.0.0.1:$upstream_port" --port 0 >"$work/proxy.stdout" 2>"$work/proxy.stderr" &
    local chainlab_pid=$!
    pids+=("$chainlab_pid")
    await_line "$work/proxy.stdout" '^chainlab serve: proxying '
    local chainlab_port
    chainlab_port=$(sed -n 's/^chainlab serve: proxying http:\/\/127.0.0.1:\([0-9]*\) .*/\1/p' "$work/proxy.stdout")

    local targets=("upstream directly|http://127.0.0.1:$upstream_port$path" "chainlab serve --upstream|http://127.0.0.1:$chainlab_port$path")
    [[ -n "$nginx_port" ]] && targets+=("nginx proxy_pass|http://127.0.0.1:$nginx_port$path")
    if command -v mitmdump >/dev/null; then
        local mitm_port
        mitm_port=$(free_port)
        mitmdump --mode "reverse:http://127.0.0.1:$upstream_port" --listen-host 127.0.0.1 -p "$mitm_port" -q >"$work/mitm.log" 2>&1 &
        pids+=($!)
        for _ in $(seq 100); do curl --silent --max-time 1 "http://127.0.0.1:$mitm_port$path" >/dev/null && break; sleep 0.1; done
        targets+=("mitmproxy (mitmdump)|http://127.0.0.1:$mitm_port$path")
    fi

    echo "upstream: $upstream_name; wrk -t$threads -d$duration --latency, $rounds rounds taking turns; HAR recording on"
    printf '%-28s %5s %12s %10s %12s\n' target conns "requests/s" "p50 ms" "added p50"
    declare -A rates p50s
    local connections target name url round base
    for connections in 8 100; do
        # The targets take turns, round after round, so a change in the machine's load
        # falls on all of them alike; each figure is the mean of its rounds.
        for round in $(seq "$rounds"); do
            for target in "${targets[@]}"; do
                name=${target%%|*}
                url=${target#*|}
                measure "$url" "$connections"
                rates["$name/$connections"]=$(awk -v a="${rates["$name/$connections"]:-0}" -v b="$rate" -v r="$rounds" 'BEGIN { printf "%.2f", a + b / r }')
                p50s["$name/$connections"]=$(awk -v a="${p50s["$name/$connections"]:-0}" -v b="$p50" -v r="$rounds" 'BEGIN { printf "%.3f", a + b / r }')
            done
        done
        base=""
        for target in "${targets[@]}"; do
            name=${target%%|*}
            if [[ -z "$base" ]]; then
                base=${p50s["$name/$connections"]}
                printf '%-28s %5s %12s %10s %12s\n' "$name" "$connections" "${rates["$name/$connections"]}" "$base" "-"
            else
                printf '%-28s %5s %12s %10s %12s\n' "$name" "$connections" "${rates["$name/$connections"]}" "${p50s["$name/$connections"]}" \
                    "$(awk -v a="${p50s["$name/$connections"]}" -v b="$base" 'BEGIN { printf "%.3f ms", a - b }')"
            fi
        done
    done
    if [[ -n "$nginx_port" ]]; then
        for connections in 8 100; do
            awk -v c="${rates["chainlab serve --upstream/$connections"]}" -v n="${rates["nginx proxy_pass/$connections"]}" -v k="$connections" \
                'BEGIN { printf "chainlab serve --upstream at %d connections: %.0f%% of nginx'"'"'s requests/s (target: 50%%)\n", k, 100 * c / n }'
        done
    fi
    echo "chainlab serve --upstream peak resident memory: $(awk '/^VmHWM/ { print $2, $3 }' "/proc/$chainlab_pid/status")"
    kill -TERM "$chainlab_pid"
    local status=0
    wait "$chainlab_pid" || status=$?
    [[ $status -eq 0 ]] || fail "chainlab serve --upstream exited with status $status after SIGTERM"
}

if [[ "${1:-}" == proxy ]]; then
    proxy_load
    exit 0
fi

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
