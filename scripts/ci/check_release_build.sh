#!/usr/bin/env bash
# The release build of chainlab behaves as the debug build the tests run: on Linux it links
# the Swift runtime and Foundation statically (Package.swift), and every built-in scenario's
# headless trace and lint report must come out as the debug build's.
#
#   scripts/ci/check_release_build.sh RELEASE_CHAINLAB DEBUG_CHAINLAB
set -euo pipefail
release=${1:?usage: check_release_build.sh RELEASE_CHAINLAB DEBUG_CHAINLAB}
debug=${2:?usage: check_release_build.sh RELEASE_CHAINLAB DEBUG_CHAINLAB}

if [ "$(uname -s)" = Linux ] && ldd "$release" | grep -q 'libswiftCore\.so'; then
    echo "check_release_build: $release links the Swift runtime dynamically; release builds on Linux link it statically" >&2
    exit 1
fi

failures=0
scenarios=$("$debug" scenarios | awk '{print $1}')
for scenario in $scenarios; do
    for command in trace lint; do
        # lint exits 1 when it has findings: the output and the exit status are compared.
        status_release=0 status_debug=0
        from_release=$("$release" "$command" "$scenario" 2>&1) || status_release=$?
        from_debug=$("$debug" "$command" "$scenario" 2>&1) || status_debug=$?
        if [ "$status_release" != "$status_debug" ]; then
            echo "check_release_build: '$command $scenario' exits $status_release in the release build and $status_debug in the debug build" >&2
            failures=$((failures + 1))
        elif [ "$from_release" != "$from_debug" ]; then
            echo "check_release_build: '$command $scenario' differs between the release and the debug build" >&2
            diff <(echo "$from_release") <(echo "$from_debug") | head -20 >&2 || true
            failures=$((failures + 1))
        fi
    done
done
count=$(echo "$scenarios" | wc -w)
if [ "$failures" -gt 0 ]; then
    echo "check_release_build: $failures of $((count * 2)) runs differ (output or exit status)" >&2
    exit 1
fi
echo "check_release_build: $count scenarios, trace and lint: the release build's output and exit status are the debug build's"
