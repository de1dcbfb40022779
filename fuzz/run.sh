#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/targets and runs each for a bounded time.
#
#   fuzz/run.sh [SECONDS] [TARGET...]     default: 30 seconds for every target
#
# The package's modules are compiled with swiftc straight from Sources/ (with
# -sanitize=fuzzer,address) into .build-fuzz/, so nothing here touches `swift build` or
# `swift test`. Only the toolchain is needed: libFuzzer ships with Swift's clang.
# Exits non-zero when a build fails or a target crashes, hangs or breaks one of its
# properties; the input that did it is left in fuzz/out/TARGET/ (re-run it with
# `.build-fuzz/fuzz/bin/TARGET fuzz/out/TARGET/crash-...`). New inputs the fuzzer finds
# go to .build-fuzz/fuzz/corpus/TARGET, not to the committed seeds.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzScenario FuzzRecording FuzzHeaders FuzzHTTPParser FuzzMultipart FuzzJSON FuzzFilter FuzzHTTPAnswer)
case "$seconds" in (*[!0-9]*|"") echo "fuzz/run.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2;; esac

build=.build-fuzz/fuzz
mkdir -p "$build/modules" "$build/objects" "$build/bin" fuzz/out

# One package name for every module, as SwiftPM gives them: Wire and ChainKit share
# `package` declarations with the modules above them.
flags=(-O -g -swift-version 6 -sanitize=fuzzer,address -package-name chainlab
       -enable-upcoming-feature ExistentialAny
       -enable-upcoming-feature InternalImportsByDefault
       -enable-upcoming-feature MemberImportVisibility
       -I "$build/modules" -I Sources/CCrypto -I Sources/CZlib)

# Which package modules each target links, in dependency order.
modules_for() {
    case "$1" in
        FuzzScenario) echo Vocabulary Wire ChainKit Timeline TimelineFilter Exports Stops Scheduling Instrumentation Backend Findings Lint HTTPServer Outbound Scenarios Lab ;;
        FuzzRecording) echo Vocabulary Wire ChainKit Timeline TimelineFilter Exports Stops Scheduling Instrumentation Backend Findings Lint HTTPServer Outbound Scenarios Lab ;;
        FuzzHeaders) echo Vocabulary Wire ChainKit ;;
        FuzzHTTPParser) echo Vocabulary HTTPServer ;;
        FuzzMultipart) echo Vocabulary Wire ChainKit ;;
        FuzzJSON) echo Vocabulary Wire ChainKit ;;
        FuzzFilter) echo Vocabulary Wire ChainKit Timeline TimelineFilter ;;
        FuzzHTTPAnswer) echo Vocabulary Wire ChainKit Timeline HTTPServer Outbound ;;
        *) echo "fuzz/run.sh: unknown target '$1'; valid: FuzzScenario, FuzzRecording, FuzzHeaders, FuzzHTTPParser, FuzzMultipart, FuzzJSON, FuzzFilter, FuzzHTTPAnswer" >&2; return 2 ;;
    esac
}

# The package modules a module imports (as in Package.swift).
deps_of() {
    case "$1" in
        Wire) echo Vocabulary ;;
        ChainKit) echo Vocabulary Wire ;;
        Timeline) echo Vocabulary Wire ;;
        TimelineFilter) echo Vocabulary Wire Timeline ;;
        Exports) echo Vocabulary Wire Timeline ;;
        HTTPServer) echo Vocabulary ;;
        Backend) echo Vocabulary ChainKit ;;
        Findings) echo Wire Timeline ;;
        Stops) echo Wire Timeline ;;
        Scheduling) echo Vocabulary Wire Timeline TimelineFilter Stops ;;
        Instrumentation) echo ChainKit Timeline Stops ;;
        Lint) echo Vocabulary ChainKit Timeline ;;
        Outbound) echo Vocabulary ChainKit Timeline HTTPServer ;;
        Scenarios) echo Vocabulary Wire ChainKit Scheduling Instrumentation Backend Lint ;;
        Lab) echo Vocabulary ChainKit Timeline TimelineFilter Exports Stops Scheduling Instrumentation Backend Findings Lint Outbound Scenarios ;;
        *) echo ;;
    esac
}

# A module is recompiled only when its sources, the modules it imports, or the flags changed.
built_modules=""
build_module() {
    local name=$1
    case " $built_modules " in (*" $name "*) return 0;; esac
    local dep dep_stamps=()
    for dep in $(deps_of "$name"); do
        build_module "$dep"
        dep_stamps+=("$build/modules/$dep.stamp")
    done
    local sources
    mapfile -t sources < <(find "Sources/$name" -name '*.swift' | LC_ALL=C sort)
    local stamp
    stamp=$( { swiftc --version 2>&1; echo "${flags[*]}"; cat "${sources[@]}"; [ ${#dep_stamps[@]} -eq 0 ] || cat "${dep_stamps[@]}"; } | sha256sum | cut -d' ' -f1)
    if [ -f "$build/objects/$name.o" ] && [ "$(cat "$build/modules/$name.stamp" 2>/dev/null)" = "$stamp" ]; then
        built_modules+=" $name"
        return 0
    fi
    echo "== fuzz: compiling $name (${#sources[@]} files)"
    rm -f "$build/modules/$name.stamp"
    swiftc "${flags[@]}" -parse-as-library -wmo -module-name "$name" -c \
        -emit-module -emit-module-path "$build/modules/$name.swiftmodule" \
        -o "$build/objects/$name.o" "${sources[@]}"
    echo "$stamp" > "$build/modules/$name.stamp"
    built_modules+=" $name"
}

build_target() {
    local target=$1 modules objects=()
    modules=$(modules_for "$target")
    for module in $modules; do
        build_module "$module"
        objects+=("$build/objects/$module.o")
    done
    echo "== fuzz: linking $target"
    # ld.gold warns about every ASan assembly helper it cannot export; nothing else is hidden.
    swiftc "${flags[@]}" -parse-as-library -module-name "$target" \
        "fuzz/targets/$target.swift" "${objects[@]}" -lcrypto -lz -o "$build/bin/$target" 2>&1 \
        | { grep -v "warning: Cannot export local symbol '__asan" || true; }
}

for target in "${targets[@]}"; do modules_for "$target" > /dev/null; done
for target in "${targets[@]}"; do build_target "$target"; done

# The Swift backtracer would race libFuzzer for the crash signal; libFuzzer reports instead.
export SWIFT_BACKTRACE=enable=no
failed=()
for target in "${targets[@]}"; do
    corpus="$build/corpus/$target"
    out="fuzz/out/$target"
    mkdir -p "$corpus" "$out"
    echo "== fuzz: $target for ${seconds}s"
    # Leaks are looked for after every input (LeakSanitizer), in every target.
    if "$build/bin/$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 -detect_leaks=1 \
        -artifact_prefix="$out/" "$corpus" "fuzz/corpus/$target"; then
        echo "== fuzz: $target passed"
    else
        echo "== fuzz: $target FAILED; inputs in $out/:" >&2
        ls -1 "$out" >&2
        failed+=("$target")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz/run.sh: ${failed[*]} failed" >&2
    exit 1
fi
echo "fuzz/run.sh: ${targets[*]} ran ${seconds}s each without a crash"
