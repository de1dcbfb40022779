#!/usr/bin/env bash
# Regenerates every PNG in screenshots/ from the built chainlab binary, in a real terminal:
# xterm (DejaVu Sans Mono 11) under Xvfb, attached to a tmux session on a private socket
# that this script drives with send-keys; ImageMagick's `import` captures the xterm window.
# Every step waits for text on the screen (tmux capture-pane) rather than sleeping; the
# lab clock is virtual, so the screens are the same on every run, only pixels may differ.
#
#   scripts/screenshots.sh                                  # builds .build/debug/chainlab if missing
#   CHAINLAB=.build-shots/debug/chainlab scripts/screenshots.sh
#
# Installs xvfb, xterm, imagemagick, fonts-dejavu-core and fonts-symbola (DejaVu has no
# ⏸, the held marker; fontconfig falls back to Symbola for it) with apt-get when missing.
# Settings (environment): CHAINLAB (binary, default .build/debug/chainlab),
# SCREENSHOTS (output folder, default screenshots/), TIMEOUT (seconds per wait, 20),
# ONLY (shot names separated by spaces, e.g. ONLY=light-theme: make only those).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
chainlab=${CHAINLAB:-.build/debug/chainlab}
out=${SCREENSHOTS:-screenshots}
timeout=${TIMEOUT:-20}
cols=140
rows=45
cd "$root"

fail() {
    echo "screenshots: $*" >&2
    exit 1
}

# --- tools ---------------------------------------------------------------------------

missing=()
for package in xvfb xterm imagemagick fonts-dejavu-core fonts-symbola; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
command -v tmux >/dev/null || missing+=(tmux)
if ((${#missing[@]})); then
    echo "screenshots: installing ${missing[*]}" >&2
    sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2 ||
        { "${sudo[@]}" apt-get update >&2 &&
          "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >&2; } ||
        fail "could not install ${missing[*]}"
fi

if [[ ! -x "$chainlab" ]]; then
    case "$chainlab" in
        */debug/chainlab) scratch=$(dirname "$(dirname "$chainlab")") ;;
        *) fail "no chainlab executable at $chainlab" ;;
    esac
    echo "screenshots: building $chainlab" >&2
    swift build --scratch-path "$scratch" --product chainlab >&2
fi
[[ -x "$chainlab" ]] || fail "no chainlab executable at $chainlab"
chainlab=$(cd "$(dirname "$chainlab")" && pwd)/$(basename "$chainlab")
mkdir -p "$out"

# --- X server, terminal and tmux ---------------------------------------------------------

work=$(mktemp -d)
export LANG=C.UTF-8 LC_ALL=C.UTF-8
xvfb_pid=
xterm_pid=
sessions=0
tmux_cmd=(tmux -u -f /dev/null -S "$work/tmux-0.sock")

cleanup() {
    local status=$?
    set +e
    local socket
    for socket in "$work"/tmux-*.sock; do
        tmux -S "$socket" kill-server 2>/dev/null
    done
    [[ -n "$xterm_pid" ]] && kill "$xterm_pid" 2>/dev/null && wait "$xterm_pid" 2>/dev/null
    [[ -n "$xvfb_pid" ]] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Xvfb picks a free display and writes its number to fd 3.
Xvfb -displayfd 3 -screen 0 2400x1200x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
xvfb_pid=$!
for _ in $(seq $((timeout * 10))); do
    [[ -s "$work/display" ]] && break
    kill -0 "$xvfb_pid" 2>/dev/null || fail "Xvfb exited: $(cat "$work/xvfb.log")"
    sleep 0.1
done
[[ -s "$work/display" ]] || fail "Xvfb did not start within $timeout s"
export DISPLAY=":$(tr -d '[:space:]' <"$work/display")"

t() { "${tmux_cmd[@]}" "$@"; }
screen_text() { t capture-pane -p -t shot 2>/dev/null || true; }

# wait_for TEXT: until the screen shows TEXT (a fixed string).
wait_for() {
    local _
    for _ in $(seq $((timeout * 20))); do
        screen_text | grep -qF -- "$1" && return 0
        sleep 0.05
    done
    screen_text >&2
    fail "$shot: \"$1\" did not appear within $timeout s (screen above)"
}

# press_until KEY TEXT [MAX]: press KEY once, wait for the screen to settle, repeat until
# the screen shows TEXT, at most MAX (12) times.
press_until() {
    local key=$1 text=$2 max=${3:-12} i before after _
    for ((i = 0; i < max; i++)); do
        screen_text | grep -qF -- "$text" && return 0
        before=$(screen_text)
        t send-keys -t shot "$key"
        for _ in $(seq $((timeout * 20))); do
            after=$(screen_text)
            [[ "$after" != "$before" ]] && break
            sleep 0.05
        done
        sleep 0.1
    done
    screen_text | grep -qF -- "$text" && return 0
    screen_text >&2
    fail "$shot: \"$text\" did not appear after pressing $key $max times (screen above)"
}

keys() { t send-keys -t shot "$@"; }
type_text() { t send-keys -t shot -l "$1"; }

# open_terminal COMMAND [COLS ROWS]: a fresh tmux session running COMMAND, shown in a
# fresh xterm of COLS x ROWS cells. Each session has its own tmux server and socket, so
# a server still shutting down never meets the next one.
open_terminal() {
    local command=$1 w=${2:-$cols} h=${3:-$rows} _
    close_terminal
    sessions=$((sessions + 1))
    tmux_cmd=(tmux -u -f /dev/null -S "$work/tmux-$sessions.sock")
    t new-session -d -s shot -x "$w" -y "$h" \
        "env TERM=xterm-256color SWIFT_BACKTRACE=interactive=no $command"
    t set -g status off
    t set -g window-size latest
    t set -g remain-on-exit on
    rm -f "$work/windowid"
    xterm -geometry "${w}x${h}+0+0" -fa 'DejaVu Sans Mono' -fs 11 -u8 -tn xterm-256color \
        -bg "${xterm_bg:-#1d1f21}" -fg "${xterm_fg:-#d8d8d8}" -cr "${xterm_fg:-#d8d8d8}" -b 6 +sb \
        -xrm 'XTerm*allowBoldFonts: true' -xrm 'XTerm*boldColors: false' -xrm 'XTerm*forceBoxChars: true' \
        -e sh -c 'echo "$WINDOWID" > "$1"; shift; exec "$@"' sh "$work/windowid" \
        "${tmux_cmd[@]}" attach -t shot 2>"$work/xterm.log" &
    xterm_pid=$!
    for _ in $(seq $((timeout * 20))); do
        [[ -s "$work/windowid" ]] && [[ -n "$(t list-clients -t shot 2>/dev/null)" ]] && break
        kill -0 "$xterm_pid" 2>/dev/null || fail "xterm exited: $(cat "$work/xterm.log")"
        sleep 0.05
    done
    [[ -n "$(t list-clients -t shot 2>/dev/null)" ]] || fail "xterm did not attach within $timeout s"
    # The attached client sizes the window; wait until the pane has the xterm's size.
    for _ in $(seq $((timeout * 20))); do
        [[ "$(t display-message -p -t shot '#{pane_width}x#{pane_height}')" == "${w}x${h}" ]] && return 0
        sleep 0.05
    done
    fail "the pane did not become ${w}x${h}"
}

close_terminal() {
    t kill-server 2>/dev/null || true
    if [[ -n "$xterm_pid" ]]; then
        kill "$xterm_pid" 2>/dev/null || true
        wait "$xterm_pid" 2>/dev/null || true
        xterm_pid=
    fi
}

# capture NAME: the xterm window as $out/NAME.png, after a short settle for xterm to draw.
capture() {
    sleep 0.6
    import -window "$(cat "$work/windowid")" "$out/$1.png"
    echo "screenshots: $out/$1.png $(identify -format '%wx%h' "$out/$1.png")"
}

# hold_first_at_refresh SCENARIO: SCENARIO open with #1 and #2 started, #1 stepped to its
# held TokenManager refresh stop, and #2 selected.
hold_first_at_refresh() {
    open_terminal "$chainlab $1"
    wait_for "press n to start"
    keys n n
    wait_for "#2 HeroQuery"
    keys g
    wait_for "Chain · #1 HeroQuery"
    press_until s "TokenManager refresh · stop · held"
    keys G
    wait_for "Chain · #2 HeroQuery"
}

# --- the screenshots -----------------------------------------------------------------

# want NAME...: whether ONLY asks for any of these shots (no ONLY: every shot).
want() {
    local name
    [[ -z "${ONLY:-}" ]] && return 0
    for name in "$@"; do [[ " $ONLY " == *" $name "* ]] && return 0; done
    return 1
}

# The main screen mid-trace on basics: #1 has been to the transport (200 · 12ms) and is
# held on its way back up, at AutomaticPersistedQueryInterceptor's post-flight stop.
if want main; then
    shot=main
    open_terminal "$chainlab"
    wait_for "press n to start"
    keys n
    wait_for "⏸ #1 HeroQuery"
    press_until s "Hop 3 AutomaticPersistedQueryInterceptor · post-flight stop"
    wait_for "200 · 12ms"
    capture main
fi

# A paused pre-flight: #1 held at the cache stop, Auth's hop selected in the chain, its
# header diff (+ Authorization) in Detail.
if want paused-preflight; then
    shot=paused-preflight
    open_terminal "$chainlab"
    wait_for "press n to start"
    keys n
    wait_for "⏸ #1 HeroQuery"
    press_until s "Hop 4 cache · pre-flight stop"
    keys Tab
    press_until k "Hop 2 AuthInterceptor · pre-flight" 4
    wait_for "+ Authorization"
    capture paused-preflight
fi

# The header editor at ResponseCodeInterceptor's pre-flight stop, refusing "Bad Name".
if want header-editor; then
    shot=header-editor
    open_terminal "$chainlab"
    wait_for "press n to start"
    keys n
    wait_for "⏸ #1 HeroQuery"
    press_until s "Hop 5 ResponseCodeInterceptor · pre-flight stop"
    keys e
    wait_for "Edit request headers"
    keys C-n
    type_text "Bad Name"
    keys Tab
    type_text "1"
    wait_for "Bad Name"
    keys Enter
    wait_for 'header name "Bad Name" is not a valid token'
    capture header-editor
fi

# refresh-storm: #1 and #2 both held at the TokenManager's refresh stop, holding the
# same refresh token; the timeline shows both passes.
if want refresh-storm storm-after; then
    shot=refresh-storm
    hold_first_at_refresh refresh-storm
    press_until s "TokenManager refresh · stop · held"
    capture refresh-storm

    # After the race: #1 released first succeeded, #2 failed with invalid_grant; #2's refresh
    # row selected, Detail showing the token endpoint's answer after the fact.
    shot=storm-after
    keys g c
    wait_for "✓ #1 HeroQuery 200"
    keys G c
    wait_for "✕ #2 HeroQuery invalid_grant"
    keys Tab G
    wait_for "TokenManager refresh · answer"
    capture storm-after
fi

# An 80x24 terminal: token-expiry finished, its first attempt shown again ([): the 401,
# the refresh row and its 200, the retry.
if want attempts-80x24; then
    shot=attempts-80x24
    open_terminal "$chainlab token-expiry" 80 24
    wait_for "press n to start"
    keys n
    wait_for "⏸ #1 HeroQuery"
    keys c
    wait_for "attempt 2 of 2"
    keys '['
    wait_for "attempt 1 of 2"
    capture attempts-80x24
fi

# refresh-storm-fixed's waterfall: #1 held at its refresh stop while #2 went to the
# transport, #2 waiting for #1's refresh (joined with ┆), then both finished; #2's second
# attempt was answered from the cache.
if want waterfall; then
    shot=waterfall
    hold_first_at_refresh refresh-storm-fixed
    press_until s "waits: refresh"
    keys g c
    wait_for "✓ #1 HeroQuery 200"
    keys G c
    wait_for "✓ #2 HeroQuery cache"
    keys Tab Tab
    wait_for "1 col ≈"
    capture waterfall
fi

# token-expiry finished, its Chain pane as a sequence diagram (S), the first event selected.
if want sequence; then
    shot=sequence
    open_terminal "$chainlab token-expiry"
    wait_for "press n to start"
    keys n
    wait_for "⏸ #1 HeroQuery"
    keys c
    wait_for "attempt 2 of 2"
    keys S
    wait_for "Sequence · #1 HeroQuery · 2 attempts"
    keys g
    wait_for "Hop 1 MaxRetryInterceptor · pre-flight · attempt 1 of 2"
    press_until j "Hop 2 AuthInterceptor · pre-flight · attempt 1 of 2"
    capture sequence
fi

# stale-token finished: attempt 2's send compared with attempt 1's (p): the same
# Authorization although a refresh succeeded in between.
if want compare; then
    shot=compare
    open_terminal "$chainlab stale-token"
    wait_for "press n to start"
    keys n
    wait_for "⏸ #1 HeroQuery"
    keys c
    wait_for "✕ #1 HeroQuery"
    keys '[' '[' '['
    wait_for "attempt 2 of 5"
    keys Tab
    press_until j "Hop 6 transport · post-flight"
    keys h
    wait_for "Hop 6 transport · pre-flight · sent · attempt 2 of 5"
    keys p
    wait_for "Compare A ⇄ B"
    capture compare
fi

# The help overlay over basics stepped to the transport.
if want help; then
    shot=help
    open_terminal "$chainlab"
    wait_for "press n to start"
    keys n
    wait_for "⏸ #1 HeroQuery"
    press_until s "Hop 6 transport · pre-flight stop"
    keys '?'
    wait_for "Help (j/k"
    capture help
fi

# CacheAndNetwork's two lanes: the cached result held at APQ's post-flight while the
# network lane, selected, is held at the transport on its way back with the server's 200.
if want lanes; then
    shot=lanes
    open_terminal "$chainlab cache-and-network"
    wait_for "press n to start"
    keys n
    wait_for "⏸ held"
    press_until s "⏸ held · cache ◀"
    wait_for "⏸ held · network"
    keys u
    wait_for "⏸ held · network ◀"
    press_until s "Hop 6 transport · post-flight stop · held · network lane"
    capture lanes
fi

# `chainlab trace token-expiry` in the terminal, sized so no line wraps.
if want trace; then
    shot=trace
    trace=$("$chainlab" trace token-expiry)
    width=$(($(wc -L <<<"$trace") + 2))
    ((width < cols)) && width=$cols
    height=$(($(wc -l <<<"$trace") + 3))
    ((height < 20)) && height=20
    cat >"$work/trace.sh" <<'SCRIPT'
printf '$ chainlab trace token-expiry\n'
"$1" trace token-expiry
exec sleep 100000
SCRIPT
    open_terminal "sh $work/trace.sh $chainlab" "$width" "$height"
    wait_for "backend apqMisses="
    capture trace
fi

# The light theme on a light terminal: token-expiry with a request that refreshed and
# succeeded, one failed by hand (transport error) and one held in step mode.
if want light-theme; then
    shot=light-theme
    xterm_bg='#fafafa' xterm_fg='#1d1f21' open_terminal "$chainlab token-expiry --theme light"
    wait_for "press n to start"
    keys n
    wait_for "⏸ #1 HeroQuery"
    keys c
    wait_for "✓ #1 HeroQuery 200"
    keys n
    wait_for "⏸ #2 HeroQuery"
    keys j
    wait_for "Chain · #2 HeroQuery"
    keys x
    wait_for "Fail request #2 here"
    keys e
    wait_for "✕ #2 HeroQuery"
    keys n
    wait_for "⏸ #3 HeroQuery"
    keys G
    wait_for "Chain · #3 HeroQuery"
    press_until s "Hop 3 AutomaticPersistedQueryInterceptor · pre-flight stop"
    capture light-theme
fi

# A filtered session: refresh-storm's five requests after the storm, filtered to the four
# that never retried and that a finding cites; a rule breakpoint (answer if ~c 5xx) is marked
# ◆ on the transport in the Chain pane. Then the export overlay under that filter: w offers
# the four requests shown, Ctrl-T all five.
if want filtered filtered-export; then
    shot=filtered
    open_terminal "$chainlab refresh-storm --no-step"
    wait_for "press n to start"
    keys C-b
    wait_for "Breakpoints by rule"
    type_text "answer if ~c 5xx"
    keys Enter
    wait_for "rule added: answer if ~c 5xx"
    keys N
    wait_for "#5 HeroQuery invalid_grant"
    keys /
    type_text "!~retry & ~finding"
    keys Enter
    wait_for "Requests · !~retry & ~finding"
    press_until j "Chain · #3 HeroQuery"
    capture filtered
    shot=filtered-export
    keys w
    wait_for "Ctrl-T switches"
    capture filtered-export
fi

close_terminal
echo "screenshots: done"
