#!/usr/bin/env bash
# lintcheck: runs cuda-lint over the crates of lintcheck/crates.toml and collects what it says.
#
#   bash lintcheck/run.sh          check the crates of crates.toml
#   bash lintcheck/run.sh repro    check lintcheck/false_positives.rs (the reduced false positives)
#
# Environment:
#   LINTCHECK_LINT_TARGET_DIR  where the lint is built          (default /tmp/target-lintcheck)
#   LINTCHECK_TARGET_DIR       where the checked crates build    (default target/lintcheck/target)
#   LINTCHECK_OUT              sources, results and the summary  (default target/lintcheck)
#   LINTCHECK_ONLY=a,b         run only these crates (dropped ones included)
#   LINTCHECK_ALL=1            run the dropped crates too (to see them fail again)
#   LINTCHECK_SKIP_UNKNOWN=1   skip the CUDA_LINT_UNKNOWN_APIS=1 pass
#   LINTCHECK_LINT_REV=REV     build the lint of a committed revision (git archive REV into
#                              $LINTCHECK_OUT/lint-src) instead of the working tree, so that the
#                              results do not depend on edits in progress (e.g. HEAD)
#
# Each crate is unpacked afresh (so cargo re-lints it, never replays a cached result) and checked
# twice: first with CUDA_LINT_UNKNOWN_APIS=1 (also builds its dependencies: the "cold" time), then
# plainly (dependencies already checked: the "lint" time, what cuda-lint costs on the crate).
# Every cuda-lint level is capped at warn (`--cap-lints warn`) so that a deny-level finding in a
# library does not stop its examples and tests from being checked.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
TOOLCHAIN=nightly-2026-05-28
LINT_TARGET=${LINTCHECK_LINT_TARGET_DIR:-/tmp/target-lintcheck}
OUT=${LINTCHECK_OUT:-$REPO/target/lintcheck}
CHECK_TARGET=${LINTCHECK_TARGET_DIR:-$OUT/target}
SOURCES=$OUT/sources
RESULTS=$OUT/results
FAKE_CUDA=$OUT/fake-cuda
BIN=$LINT_TARGET/release/cargo-cuda-lint

now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.1f}')"; }

LINT_SRC=$REPO
if [[ -n "${LINTCHECK_LINT_REV:-}" ]]; then
    rev=$(git -C "$REPO" rev-parse --verify "${LINTCHECK_LINT_REV}^{commit}") || exit 2
    LINT_SRC=$OUT/lint-src
    if [[ "$(cat "$LINT_SRC/.lintcheck-rev" 2>/dev/null)" != "$rev" ]]; then
        rm -rf "$LINT_SRC" && mkdir -p "$LINT_SRC"
        git -C "$REPO" archive "$rev" | tar -x -C "$LINT_SRC" || exit 2
        echo "$rev" >"$LINT_SRC/.lintcheck-rev"
    fi
    LINT_COMMIT="$rev (committed tree)"
else
    LINT_COMMIT="$(git -C "$REPO" rev-parse HEAD)$(git -C "$REPO" diff --quiet HEAD -- lint ||
        echo ' + uncommitted changes in lint/ (working tree)')"
fi
echo "lint commit: $LINT_COMMIT"
mkdir -p "$OUT"
echo "$LINT_COMMIT" >"$OUT/lint-commit"

echo "== building cuda-lint (release) from $LINT_SRC into $LINT_TARGET"
(cd "$LINT_SRC" && CARGO_TARGET_DIR=$LINT_TARGET cargo +$TOOLCHAIN build --release -p cuda-lint) || {
    echo "lintcheck: the lint does not build" >&2
    exit 2
}

mkdir -p "$SOURCES" "$RESULTS" "$FAKE_CUDA/lib64" "$CHECK_TARGET"

# `run.sh repro`: check lintcheck/false_positives.rs (the reduced false positives) instead.
if [[ "${1:-}" == repro ]]; then
    REPRO=$OUT/repro
    mkdir -p "$REPRO/src"
    cat >"$REPRO/Cargo.toml" <<'TOML'
[package]
name = "lintcheck-false-positives"
version = "0.0.0"
edition = "2024"
publish = false

[[bin]]
name = "false_positives"
path = "src/main.rs"

[dependencies]
cudarc = { version = "=0.19.10", default-features = false, features = ["std", "driver", "nvrtc", "cublas", "dynamic-loading", "cuda-13000"] }

[workspace]
TOML
    cp "$HERE/false_positives.rs" "$REPRO/src/main.rs"
    (cd "$REPRO" && CARGO_TARGET_DIR="$CHECK_TARGET" "$BIN" cuda-lint --all-targets -- --cap-lints warn 2>&1 |
        grep -v '^ *\(Checking\|Compiling\|Finished\|Locking\|Updating\|Downloaded\|Downloading\)')
    exit 0
fi

plan_args=()
if [[ -n "${LINTCHECK_ONLY:-}" ]]; then
    plan_args+=(--only "$LINTCHECK_ONLY")
elif [[ "${LINTCHECK_ALL:-0}" == 1 ]]; then
    plan_args+=(--all)
fi

# Unpacks NAME-VERSION afresh, as its own workspace; $3 = packages to `cargo update -p`.
unpack() {
    local name=$1 version=$2 update=${3:-}
    local key=$name-$version
    local tarball=$SOURCES/$key.crate
    if [[ ! -s "$tarball" ]]; then
        echo "   downloading $key"
        curl -fsSL --retry 3 -o "$tarball.part" "https://static.crates.io/crates/$name/$key.crate" || return 1
        mv "$tarball.part" "$tarball"
    fi
    rm -rf "${SOURCES:?}/$key"
    # -m: files get the time of unpacking, so cargo sees them as changed and lints them again.
    tar -xzmf "$tarball" -C "$SOURCES" || return 1
    # An unpacked crate is its own workspace (not a member of one above it).
    if ! grep -q '^\[workspace\]' "$SOURCES/$key/Cargo.toml"; then
        printf '\n[workspace]\n' >>"$SOURCES/$key/Cargo.toml"
    fi
    # crates.toml's cargo_update: PKG, or PKG=VERSION for `cargo update -p PKG --precise VERSION`
    # (a shipped Cargo.lock that pins what this toolchain cannot build).
    local pkg
    for pkg in $update; do
        local precise=()
        [[ "$pkg" == *=* ]] && precise=(--precise "${pkg#*=}")
        (cd "$SOURCES/$key" && cargo +$TOOLCHAIN update -q -p "${pkg%%=*}" "${precise[@]}" </dev/null) || return 1
    done
}

# Runs cargo cuda-lint in the unpacked crate; $1 = NAME-VERSION, $2 = result file stem, the
# rest = environment assignments, then `--`, then cargo arguments.
check() {
    local key=$1 stem=$2
    shift 2
    local envs=()
    while [[ $# -gt 0 && "$1" != "--" ]]; do envs+=("$1"); shift; done
    shift
    (cd "$SOURCES/$key" &&
        env "${envs[@]}" CARGO_TARGET_DIR="$CHECK_TARGET" \
            "$BIN" cuda-lint --message-format=json "$@" -- --cap-lints warn \
            </dev/null >"$stem.json" 2>"$stem.stderr")
}

while IFS=$'\x1f' read -r name version args envline update; do
    key=$name-$version
    echo "== $key  cargo cuda-lint $args${envline:+  [$envline]}"
    envs=()
    for kv in $envline; do envs+=("${kv//\{fake_cuda\}/$FAKE_CUDA}"); done
    read -r -a cargo_args <<<"$args"
    rm -f "$RESULTS/$key".*

    if [[ "${LINTCHECK_SKIP_UNKNOWN:-0}" != 1 ]]; then
        unpack "$name" "$version" "$update" || { echo "   cannot fetch or unpack $key"; echo fetch-failed >"$RESULTS/$key.rc"; continue; }
        t0=$(now)
        check "$key" "$RESULTS/$key.unknown" "${envs[@]}" CUDA_LINT_UNKNOWN_APIS=1 -- "${cargo_args[@]}"
        rc=$?
        t=$(elapsed "$t0" "$(now)")
        echo "$t" >"$RESULTS/$key.unknown.time"
        echo "   unknown-API pass (cold: dependencies too): ${t}s, exit $rc," \
            "$(grep -c '^cuda-lint: no table entry' "$RESULTS/$key.unknown.stderr") unknown calls"
    fi

    unpack "$name" "$version" "$update" || { echo "   cannot fetch or unpack $key"; echo fetch-failed >"$RESULTS/$key.rc"; continue; }
    t0=$(now)
    check "$key" "$RESULTS/$key" "${envs[@]}" -- "${cargo_args[@]}"
    rc=$?
    t=$(elapsed "$t0" "$(now)")
    echo "$t" >"$RESULTS/$key.time"
    echo "$rc" >"$RESULTS/$key.rc"
    echo "   lint pass: ${t}s, exit $rc, $(grep -c '"code":"cuda_lint::' "$RESULTS/$key.json") cuda_lint messages"
done < <(python3 "$HERE/lintcheck.py" plan "$HERE/crates.toml" "${plan_args[@]}")

echo "== summary ($OUT/summary.md, $OUT/findings.json, $OUT/unknown_apis.json)"
python3 "$HERE/lintcheck.py" collect "$OUT" "$HERE/crates.toml"
