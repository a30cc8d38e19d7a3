#!/usr/bin/env bash
# Builds an example player and runs it against the bundled Adobe Pass emulator.
#   scripts/demo.sh                  the Swift player, unattended: the emulator's simulated viewer logs in after 3 s
#   scripts/demo.sh --interactive    you choose the MVPD and log in with a browser at the printed URL
#   scripts/demo.sh --player c       the C player (Examples/CPlayer, event-loop mode, QR code): CMake builds and
#                                    installs the package, then builds the player against the installed package
#   scripts/demo.sh --player python  the Python player (Examples/PythonPlayer) on the release library
#   scripts/demo.sh --partner signed-in:Comcast    (Swift player) a simulated platform SSO already signed in
#   scripts/demo.sh --partner picker:Cablevision   (Swift player) the simulated platform picker, where the viewer picks
#   scripts/demo.sh --mvpd TempPass_TEST40         (Swift player) TempPass: the free preview starts at once, no login
#   scripts/demo.sh --mvpd flexibleTempPass --identity viewer@example.com   (Swift player) promotional TempPass
#   scripts/demo.sh --api v1                       any player on the legacy REST API V1 (the same calls and callbacks)
#   scripts/demo.sh --https                        any player over TLS 1.3 (HTTP/2) through a TLS front (nghttpx) with
#                                                  a test root made for the run, given to the player as its CA file
#   scripts/demo.sh --player c --platform-sso      platform-identity SSO: two apps with the same platform token; the
#                                                  second is signed in with no login (docs/PLATFORM-SSO.md)
# Other options go to the player. The C player's builds go to AE_CMAKE_BUILD_DIR (the package; default
# build/cmake) and AE_DEMO_DIR (its install prefix and the player's build; default build/demo).
#
# One SwiftPM build (.build/release) serves the three players: the Swift player links the library's
# modules, the Python player loads its libaccessenabler.so, and the C player's CMake package takes that
# .so (AE_PREBUILT_LIBRARY, relinked with its SONAME) instead of compiling the library again in a SwiftPM
# directory of its own. Every build has the flags of scripts/test.sh's release library: -static-stdlib is
# on each swiftc command line, and a build without it would compile every module again.
set -euo pipefail
cd "$(dirname "$0")/.."

player=swift
interactive=false
https=false
platform_sso=false
while [ $# -gt 0 ]; do
    case $1 in
        --player) player=${2:?--player takes swift, c or python}; shift 2 ;;
        --interactive) interactive=true; shift ;;
        --https) https=true; shift ;;
        --platform-sso) platform_sso=true; shift ;;
        *) break ;;
    esac
done

# The static runtime trimmed, as test.sh and CMake link it (scripts/trim-swift-runtime.py), for every
# product: the same compiler flags as test.sh's, so one .build/release is never rebuilt between them.
trim_output=$(python3 scripts/trim-swift-runtime.py .build/swift-static-trimmed) ||
    { echo "demo: scripts/trim-swift-runtime.py failed" >&2; exit 1; }
mapfile -t trimmed_runtime <<<"$trim_output"
# One flag set (LTO too) for the players and the library: a different set rebuilds every module of
# .build/release, and the players run one after another (scripts/test.sh).
swift_build=(swift build -c release -Xswiftc -static-stdlib "${trimmed_runtime[@]}" --experimental-lto-mode=full)
# The library as test.sh and CMake build it (link-time optimised: BENCHMARKS.md "Size").
library_build=("${swift_build[@]}" --product accessenabler)

# quietly LABEL COMMAND...: the command's output only when it fails.
quietly() {
    local label=$1 log
    shift
    log=$(mktemp)
    if ! "$@" >"$log" 2>&1; then
        echo "demo: $label failed:" >&2
        tail -n 40 "$log" >&2
        rm -f "$log"
        exit 1
    fi
    rm -f "$log"
}

case $player in
    swift)
        scripts/deps.sh build
        "${swift_build[@]}" --product example-player
        command=("$(swift build -c release --show-bin-path)/example-player" --storage "$(mktemp -d)/store.sqlite")
        $interactive || command+=(--unattended)
        ;;
    c)
        scripts/deps.sh c-player
        build=${AE_CMAKE_BUILD_DIR:-build/cmake}
        demo=${AE_DEMO_DIR:-build/demo}
        mkdir -p "$demo"
        demo=$(cd "$demo" && pwd)
        generator=()
        if [ ! -f "$build/CMakeCache.txt" ] && command -v ninja >/dev/null; then generator=(-G Ninja); fi
        prebuilt=()
        if [ -z "${AE_CMAKE_BUILD_DIR:-}" ]; then
            # The library of the other players' build, linked with the SONAME CMake checks (the header's major).
            major=$(sed -n 's/^#define AE_VERSION_MAJOR \([0-9][0-9]*\).*/\1/p' Include/accessenabler.h)
            echo "building the library (SwiftPM, .build/release: a few minutes the first time, shared with the other players)"
            quietly "build the library" "${library_build[@]}" -Xlinker "-soname=libaccessenabler.so.$major"
            prebuilt=(-DAE_PREBUILT_LIBRARY="$PWD/.build/release/libaccessenabler.so")
        fi
        # A given AE_CMAKE_BUILD_DIR (scripts/test.sh: the CMake package step's) keeps the library it built.
        echo "packaging it with CMake and installing it into $demo/prefix"
        quietly "configure" cmake -S . -B "$build" "${generator[@]}" "${prebuilt[@]}"
        quietly "build" cmake --build "$build"
        quietly "install" cmake --install "$build" --prefix "$demo/prefix"
        echo "building Examples/CPlayer against the installed package (find_package(AccessEnabler))"
        quietly "configure the player" cmake -S Examples/CPlayer -B "$demo/c-player" "${generator[@]}" \
            -DCMAKE_PREFIX_PATH="$demo/prefix" -DCPLAYER_WERROR=ON
        quietly "build the player" cmake --build "$demo/c-player"
        command=("$demo/c-player/c-player")
        ! $interactive || command+=(--interactive)
        ;;
    python)
        scripts/deps.sh build
        "${library_build[@]}"
        export AE_LIBRARY=${AE_LIBRARY:-$PWD/.build/release/libaccessenabler.so}
        command=(python3 Examples/PythonPlayer/player.py)
        ! $interactive || command+=(--interactive)
        ;;
    *)
        echo "demo: --player takes swift, c or python, not '$player'" >&2
        exit 2
        ;;
esac

emulator_args=()
$interactive || emulator_args+=(--auto-login-ms 3000)
if $https; then
    emulator_args+=(--https)
    command+=(--ca-file {ca_file})
fi
if $platform_sso; then
    [ "$player" = c ] || { echo "demo: --platform-sso runs the C player (--player c)" >&2; exit 2; }
    python3 -c "import cryptography" 2>/dev/null || python3 -m pip install --quiet "cryptography==48.0.0"
    sso=$(mktemp -d)
    issuer=$(python3 scripts/platform-token.py "$sso")
    emulator_args+=(--platform-token-key "$issuer=$sso/platform-key.pem")
    exec scripts/with-emulator.sh "${emulator_args[@]}" -- scripts/two-apps.sh "${command[@]}" --base-url {url} \
        --platform-token "$sso/platform-token.jws" "$@"
fi
exec scripts/with-emulator.sh "${emulator_args[@]}" -- "${command[@]}" --base-url {url} "$@"
