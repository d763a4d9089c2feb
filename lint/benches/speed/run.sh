#!/usr/bin/env bash
# Speed benchmark: wall time (and peak memory) of `cargo cuda-lint` over `cargo check` on the
# same crate, in the same run, with warm dependencies, after
#   touch: `touch` of one file (what an editor's save of an unchanged file does), and
#   edit:  a one-token change inside a function that uses CUDA (its module is re-analysed),
# alternating the two commands round by round. Crates:
#   cudarc 0.19.10 (its library, features driver+nvrtc: the crate whose every body uses CUDA),
#   a generated crate of ~100k lines where ~3% of the functions use cudarc (gen_crate.py).
# Then the scaling check: one function of N CUDA statement groups, for growing N, analysed
# alone (CUDA_LINT_TIMINGS=1): analysis time against body size must grow linearly.
#
#   bash lint/benches/speed/run.sh [ROUNDS]     (default 7; needs network once, for cudarc)
#
# Work goes to target/lint-speed/; the report is printed and written to
# target/lint-speed/report.md (copy it to lint/benches/speed/results/ to keep it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
ROUNDS="${1:-7}"
WORK="$ROOT/target/lint-speed"
TOOLCHAIN="nightly-2026-05-28"
mkdir -p "$WORK"

echo "== building cargo-cuda-lint (release)"
# SPEED_LINT_TARGET_DIR: where the lint is built (default target/; lintcheck's
# /tmp/target-lintcheck shares its compiled dependencies).
LINT_TARGET="${SPEED_LINT_TARGET_DIR:-$ROOT/target}"
CARGO_TARGET_DIR="$LINT_TARGET" cargo +"$TOOLCHAIN" build --release --quiet -p cuda-lint
LINT="$LINT_TARGET/release/cargo-cuda-lint"

echo "== preparing the crates"
python3 "$ROOT/lint/benches/speed/gen_crate.py" "$WORK/generated" --lines 100000 --cuda-percent 3
python3 "$ROOT/lint/benches/speed/gen_crate.py" "$WORK/scaling" --scaling 50,100,200,400
if [ ! -d "$WORK/cudarc-0.19.10" ]; then
    curl -sSfL https://static.crates.io/crates/cudarc/cudarc-0.19.10.crate | tar xz -C "$WORK"
    # Its own workspace, not a member of anything around it.
    printf '\n[workspace]\n' >> "$WORK/cudarc-0.19.10/Cargo.toml"
fi

# now_ns; run_timed LOGFILE CMD...: wall seconds of CMD (its output to LOGFILE), with the
# peak RSS in KiB of its largest process in $PEAK_KB.
run_timed() {
    local log="$1"
    shift
    local t0 t1
    t0=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$WORK/rss" "$@" > "$log" 2>&1 || true
    t1=$(date +%s%N)
    PEAK_KB=$(tail -1 "$WORK/rss")
    python3 -c "print(f'{($t1 - $t0) / 1e9:.3f}')"
}

median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.3f}')" "$@"; }

REPORT="$WORK/report.md"
{
    echo "# cargo cuda-lint speed, $(date -u '+%Y-%m-%d')"
    echo
    echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -sr); $(rustc +"$TOOLCHAIN" -V);"
    echo "cuda-lint $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo ' + uncommitted changes'); $ROUNDS rounds per scenario, medians."
    echo
    echo "| crate | change | cargo check | cargo cuda-lint | ratio | peak RSS check / lint |"
    echo "|---|---|---|---|---|---|"
} > "$REPORT"

# bench NAME DIR FILE EDIT_FROM EDIT_TO [cargo args]
bench() {
    local name="$1" dir="$2" file="$3" from="$4" to="$5"
    shift 5
    local args=("$@")
    echo "== $name: warming up (dependencies, and each tool's first full run)"
    (cd "$dir" && cargo +"$TOOLCHAIN" check -q "${args[@]}" > /dev/null 2>&1 || true)
    (cd "$dir" && "$LINT" cuda-lint -q "${args[@]}" > /dev/null 2>&1 || true)
    for change in touch edit; do
        local checks=() lints=() check_kb=0 lint_kb=0
        for ((r = 1; r <= ROUNDS; r++)); do
            for tool in check lint; do
                # Alternate which tool goes first, so neither always gets the warmer cache.
                if (( r % 2 == 0 )); then tool=$([ "$tool" = check ] && echo lint || echo check); fi
                if [ "$change" = touch ]; then
                    touch "$dir/$file"
                else
                    # Flip the token back and forth: every round is a real edit.
                    if grep -qF "$to" "$dir/$file"; then
                        python3 - "$dir/$file" "$to" "$from" <<'PY'
import sys; p, a, b = sys.argv[1:]; s = open(p).read(); open(p, "w").write(s.replace(a, b, 1))
PY
                    else
                        python3 - "$dir/$file" "$from" "$to" <<'PY'
import sys; p, a, b = sys.argv[1:]; s = open(p).read(); open(p, "w").write(s.replace(a, b, 1))
PY
                    fi
                fi
                if [ "$tool" = check ]; then
                    t=$(cd "$dir" && run_timed "$WORK/last-check.log" cargo +"$TOOLCHAIN" check -q "${args[@]}")
                    checks+=("$t")
                    check_kb=$(tail -1 "$WORK/rss")
                else
                    t=$(cd "$dir" && run_timed "$WORK/last-lint.log" "$LINT" cuda-lint -q "${args[@]}")
                    lints+=("$t")
                    lint_kb=$(tail -1 "$WORK/rss")
                fi
            done
        done
        local mc ml ratio
        mc=$(median "${checks[@]}")
        ml=$(median "${lints[@]}")
        ratio=$(python3 -c "print(f'{$ml / $mc:.2f}')")
        echo "   $change: check ${checks[*]} s; cuda-lint ${lints[*]} s; medians $mc / $ml = ${ratio}x"
        echo "| $name | $change \`$file\` | $mc s | $ml s | **${ratio}x** | $((check_kb / 1024)) / $((lint_kb / 1024)) MiB |" >> "$REPORT"
    done
}

bench "cudarc 0.19.10 (lib)" "$WORK/cudarc-0.19.10" src/driver/safe/core.rs \
    "self.ctx.bind_to_thread()?;" "self.ctx.bind_to_thread()?; " \
    --no-default-features --features std,driver,nvrtc,dynamic-loading,cuda-13000
GEN_FILE=$(cd "$WORK/generated" && grep -l "pub fn scale_on_gpu_\|pub struct Pipeline" src/m*.rs | head -1)
bench "generated, 100k lines" "$WORK/generated" "$GEN_FILE" \
    "LaunchConfig::for_num_elems(n))?" "LaunchConfig::for_num_elems(n + 0))?"

echo "== scaling: one body of N statement groups, analysed alone"
(cd "$WORK/scaling" && cargo +"$TOOLCHAIN" check -q > /dev/null 2>&1 || true)
(cd "$WORK/scaling" && rm -rf target/cuda-lint && CUDA_LINT_TIMINGS=1 "$LINT" cuda-lint -q > "$WORK/scaling.log" 2>&1 || true)
{
    echo
    echo "Scaling: one function of N groups of CUDA statements (allocate, copy, branch, launch in a"
    echo "loop, copy back, synchronize), analysis time of that body alone (\`CUDA_LINT_TIMINGS=1\`):"
    echo
    echo "| groups | MIR statements | statements interpreted | analysis | per statement | rustc's optimized MIR for it |"
    echo "|---|---|---|---|---|---|"
    python3 - "$WORK/scaling.log" <<'PY'
import re, sys
rows, steps = [], {}
for line in open(sys.argv[1]):
    m = re.search(r"body_of_(\d+)_groups statements=(\d+) us=(\d+) mir_us=(\d+)", line)
    if m:
        rows.append(tuple(map(int, m.groups())))
    m = re.search(r"body_of_(\d+)_groups steps=(\d+)", line)
    if m:
        steps[int(m.group(1))] = int(m.group(2))
for n, stmts, us, mir in sorted(rows):
    print(f"| {n} | {stmts} | {steps.get(n, 0)} | {us / 1000:.1f} ms | {us / stmts:.2f} us | {mir / 1000:.1f} ms |")
PY
} >> "$REPORT"
echo
cat "$REPORT"
