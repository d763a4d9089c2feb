#!/usr/bin/env bash
# Speed benchmark of the CUDA C++ front end: wall time (and peak memory) of `cuda-lint check`
# against `clang-tidy` with one cheap check, over the host code of NVIDIA's cuda-samples, on
# 2 cores, side by side in one run, rounds alternating the order of the tools.
#
#   bash lint/benches/speed/cpp_vs_clang_tidy.sh CUDA_SAMPLES_DIR [ROUNDS]   (default 3)
#
# The same translation units go to both tools: the .cu, .cpp, .cc, .cxx and .c files of the
# tree. Headers (.h .cuh .hpp) are not given to either as files: clang-tidy reaches them through
# #include (the ones it finds: Common/, the file's own folder, the system's C and C++ headers;
# there is no CUDA toolkit here, so <cuda_runtime.h> and the like are missing and clang-tidy
# reports an error for those files, then goes on parsing the rest); cuda-lint splices in the
# headers a file includes with #include "..." that it finds beside the file (not <...>: the
# samples include Common/ with angle brackets). A third and fourth row give cuda-lint the whole
# tree (translation units and headers, what `cuda-lint check DIR` does).
#
# Rows, each ROUNDS times (median), after one untimed warm-up pass of each:
#   cuda-lint check TUs                 one process (cuda-lint is single-threaded)
#   cuda-lint check TUs, 2 processes    the list split in two halves of equal bytes, both at once
#   cuda-lint check DIR                 the whole tree, one process
#   cuda-lint check DIR, 2 processes    the whole tree's files split the same way
#   clang-tidy TUs                      one process per file, `xargs -P2`, one cheap check
#                                       (misc-unused-alias-decls): the time is clang's parse and
#                                       semantic analysis, which every clang-tidy check pays.
# Then a quick pass that times cuda-lint on each file alone (slowest files listed, with
# clang-tidy's time for the same file from the last timed round).
#
# Needs: clang-tidy (Debian 12: `apt-get install -y clang-tidy`, clang-tidy 14), GNU time
# (/usr/bin/time), the cuda-samples tree. To get the tree from a bare mirror (skip blobs the
# mirror lacks, since `git archive` stops at the first):
#   git -C MIRROR ls-tree -r --name-only HEAD | grep -E '\.(cu|cuh|cpp|cc|cxx|c|h|hpp)$' |
#     while read -r p; do mkdir -p "DIR/$(dirname "$p")"; git -C MIRROR show "HEAD:$p" > "DIR/$p" || rm -f "DIR/$p"; done
# Environment: CUDA_LINT=path (use that binary, no build), CLANG_TIDY=path,
# CUDA_SAMPLES_COMMIT=sha (recorded in the report when DIR is not a git checkout).
#
# Work goes to target/lint-speed/cpp-vs-clang-tidy/; the report is printed and written to
# target/lint-speed/cpp-vs-clang-tidy/report.md (copy it to lint/benches/speed/results/ to keep it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
SAMPLES="${1:-}"
ROUNDS="${2:-3}"
JOBS=2
CHECK='-*,misc-unused-alias-decls'

die() {
    echo "error: $*" >&2
    exit 2
}
[ -n "$SAMPLES" ] || die "usage: $0 CUDA_SAMPLES_DIR [ROUNDS] (the cuda-samples tree is needed; see the comment at the top of this script for how to get it)"
[ -d "$SAMPLES" ] || die "cuda-samples directory '$SAMPLES' does not exist (see the comment at the top of this script for how to get it)"
SAMPLES="$(cd "$SAMPLES" && pwd)"
CLANG_TIDY="${CLANG_TIDY:-clang-tidy}"
command -v "$CLANG_TIDY" > /dev/null ||
    die "'$CLANG_TIDY' not found: install it (Debian: apt-get install -y clang-tidy) or set CLANG_TIDY=/path/to/clang-tidy"
CLANG_TIDY="$(command -v "$CLANG_TIDY")"
[ -x /usr/bin/time ] || die "/usr/bin/time (GNU time) not found: apt-get install -y time"

WORK="$ROOT/target/lint-speed/cpp-vs-clang-tidy"
rm -rf "$WORK"
mkdir -p "$WORK"

# The same translation units for both tools; the whole tree for cuda-lint's own rows.
find "$SAMPLES" -type f \( -name '*.cu' -o -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' -o -name '*.c' \) |
    LC_ALL=C sort > "$WORK/tus.txt"
find "$SAMPLES" -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' \
    -o -name '*.c' -o -name '*.h' -o -name '*.hpp' \) | LC_ALL=C sort > "$WORK/all.txt"
N_TUS=$(wc -l < "$WORK/tus.txt")
N_ALL=$(wc -l < "$WORK/all.txt")
[ "$N_TUS" -gt 0 ] || die "no .cu/.cpp/.cc/.cxx/.c file under '$SAMPLES': is it the cuda-samples tree?"
lines_of() { xargs -d '\n' -a "$1" cat | wc -l; }
# split_by_bytes LIST: LIST.1 and LIST.2, of about equal bytes (largest file first, to the lighter).
split_by_bytes() {
    python3 - "$1" <<'PY'
import os, sys
lst = sys.argv[1]
files = [l.rstrip("\n") for l in open(lst) if l.strip()]
parts, sizes = ([], []), [0, 0]
for f in sorted(files, key=lambda f: -os.path.getsize(f)):
    i = 0 if sizes[0] <= sizes[1] else 1
    parts[i].append(f)
    sizes[i] += os.path.getsize(f)
for i in (0, 1):
    open(f"{lst}.{i + 1}", "w").write("".join(f + "\n" for f in sorted(parts[i])))
PY
}
split_by_bytes "$WORK/tus.txt"
split_by_bytes "$WORK/all.txt"

if [ -n "${CUDA_LINT:-}" ]; then
    [ -x "$CUDA_LINT" ] || die "CUDA_LINT='$CUDA_LINT' is not an executable"
    echo "== using $CUDA_LINT"
else
    echo "== building cuda-lint (release)"
    (cd "$ROOT" && cargo +stable build --release --quiet -p cuda-lint-cpp --bin cuda-lint)
    CUDA_LINT="$ROOT/target/release/cuda-lint"
fi
# A copy: a rebuild in the work tree during the run does not change what is measured.
cp "$CUDA_LINT" "$WORK/cuda-lint"
LINT="$WORK/cuda-lint"

# On a machine of more than 2 cores, everything runs on the first two.
PIN=()
if [ "$(nproc)" -gt "$JOBS" ] && command -v taskset > /dev/null; then
    PIN=(taskset -c "0-$((JOBS - 1))")
fi

# One clang-tidy process on one file: its log, exit status, peak RSS (KiB) and wall time.
cat > "$WORK/clang_tidy_one.sh" <<EOF
#!/usr/bin/env bash
f="\$1"
key=\$(printf '%s' "\$f" | md5sum | cut -c1-16)
case "\${f##*.}" in
    cu) lang=(-x cuda --cuda-host-only -nocudainc -nocudalib -std=c++17) ;;
    c) lang=(-x c) ;;
    *) lang=(-x c++ -std=c++17) ;;
esac
out="\$CT_OUT/\$key"
t0=\$(date +%s%N)
/usr/bin/time -f %M -o "\$out.rss" "$CLANG_TIDY" --quiet -checks='$CHECK' "\$f" -- "\${lang[@]}" \\
    -I"$SAMPLES/Common" > "\$out.log" 2>&1
echo \$? > "\$out.rc"
t1=\$(date +%s%N)
printf '%s\t%s\n' "\$(( (t1 - t0) / 1000000 ))" "\$f" > "\$out.ms"
exit 0
EOF
chmod +x "$WORK/clang_tidy_one.sh"

now_ns() { date +%s%N; }
secs() { python3 -c "print(f'{($2 - $1) / 1e9:.3f}')"; }
max_rss() { cat "$@" | grep -E '^[0-9]+$' | sort -n | tail -1; }

# Each run_* prints "SECONDS PEAK_KIB" and leaves its output under $WORK/out/NAME/.
run_lint_1() { # NAME ARGS...: one cuda-lint process
    local name="$1" d="$WORK/out/$1"
    shift
    rm -rf "$d" && mkdir -p "$d"
    local t0 t1
    t0=$(now_ns)
    "${PIN[@]}" /usr/bin/time -f %M -o "$d/rss" "$LINT" check "$@" > "$d/stdout" 2> "$d/stderr" || true
    t1=$(now_ns)
    echo "$(secs "$t0" "$t1") $(max_rss "$d/rss")"
}
run_lint_2() { # NAME LIST: two cuda-lint processes, on LIST.1 and LIST.2, at once
    local d="$WORK/out/$1" list="$2"
    rm -rf "$d" && mkdir -p "$d"
    local t0 t1
    t0=$(now_ns)
    for i in 1 2; do
        "${PIN[@]}" /usr/bin/time -f %M -o "$d/rss.$i" xargs -d '\n' -a "$list.$i" "$LINT" check \
            > "$d/stdout.$i" 2> "$d/stderr.$i" &
    done
    wait || true
    t1=$(now_ns)
    echo "$(secs "$t0" "$t1") $(max_rss "$d"/rss.*)"
}
run_tidy() { # NAME: clang-tidy, one process per translation unit, xargs -P2
    local d="$WORK/out/$1"
    rm -rf "$d" && mkdir -p "$d"
    local t0 t1
    t0=$(now_ns)
    CT_OUT="$d" "${PIN[@]}" xargs -d '\n' -a "$WORK/tus.txt" -n 1 -P "$JOBS" "$WORK/clang_tidy_one.sh"
    t1=$(now_ns)
    echo "$(secs "$t0" "$t1") $(max_rss "$d"/*.rss)"
}

ROWS=(lint_tus_1 lint_tus_2 lint_all_1 lint_all_2 tidy_tus_2)
run_row() {
    case "$1" in
        lint_tus_1) mapfile -t tus < "$WORK/tus.txt" && run_lint_1 "$1" "${tus[@]}" ;;
        lint_tus_2) run_lint_2 "$1" "$WORK/tus.txt" ;;
        lint_all_1) run_lint_1 "$1" "$SAMPLES" ;;
        lint_all_2) run_lint_2 "$1" "$WORK/all.txt" ;;
        tidy_tus_2) run_tidy "$1" ;;
    esac
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# What two processes at once get from the cores here: two copies of cuda-lint on the largest file
# at once, against one alone (1.00x: the second core is a full core; 2.00x: it adds nothing).
echo "== two processes at once against one"
BIG=$(python3 -c "import os,sys; print(max(open(sys.argv[1]).read().split('\\n')[:-1], key=os.path.getsize))" "$WORK/all.txt")
ONE=() TWO=()
for i in 1 2 3; do
    t0=$(now_ns)
    "${PIN[@]}" "$LINT" check "$BIG" > /dev/null 2>&1 || true
    t1=$(now_ns)
    ONE+=("$(secs "$t0" "$t1")")
    t0=$(now_ns)
    "${PIN[@]}" "$LINT" check "$BIG" > /dev/null 2>&1 &
    "${PIN[@]}" "$LINT" check "$BIG" > /dev/null 2>&1 &
    wait || true
    t1=$(now_ns)
    TWO+=("$(secs "$t0" "$t1")")
done
PAR=$(python3 -c "import statistics as s,sys; a=sys.argv[1:4]; b=sys.argv[4:]; print(f'{s.median(map(float,b))/s.median(map(float,a)):.2f}')" "${ONE[@]}" "${TWO[@]}")
echo "   one: ${ONE[*]} s; two at once: ${TWO[*]} s; ${PAR}x"

echo "== warming up (one untimed pass of each row)"
for row in "${ROWS[@]}"; do run_row "$row" > /dev/null; done
declare -A TIMES PEAK
for ((r = 1; r <= ROUNDS; r++)); do
    # Alternate the order, so that no row always runs first or last.
    order=("${ROWS[@]}")
    if ((r % 2 == 0)); then order=(tidy_tus_2 lint_all_2 lint_all_1 lint_tus_2 lint_tus_1); fi
    for row in "${order[@]}"; do
        read -r s kb < <(run_row "$row")
        TIMES[$row]="${TIMES[$row]:-} $s"
        if [ "${kb:-0}" -gt "${PEAK[$row]:-0}" ]; then PEAK[$row]="$kb"; fi
        echo "   round $r: $row $s s, peak $((kb / 1024)) MiB"
    done
done
median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" "$@"; }

# What each tool said in the last round.
T="$WORK/out/tidy_tus_2"
count_files() { { grep "$@" || true; } | wc -l; } # grep -l/-L PATTERN FILES: how many
TIDY_ERR_FILES=$(count_files -l ' error: ' "$T"/*.log)
TIDY_MISSING_FILES=$(count_files -l "error: '.*' file not found" "$T"/*.log)
TIDY_NONZERO=$(count_files -L '^0$' "$T"/*.rc)
TIDY_WARN_FILES=$(count_files -l 'warning: .*\[misc-unused-alias-decls\]' "$T"/*.log)
TIDY_TOP_MISSING=$({ grep -ho "error: '.*' file not found" "$T"/*.log || true; } | sed "s/error: '\(.*\)' file not found/\1/" |
    sort | uniq -c | sort -rn | awk 'NR <= 8 {printf "%s`%s` (%d)", (NR > 1 ? ", " : ""), $2, $1}')
LINT_TUS_SUMMARY=$(grep -h '^cuda-lint: ' "$WORK/out/lint_tus_1/stderr" || true)
LINT_ALL_SUMMARY=$(grep -h '^cuda-lint: ' "$WORK/out/lint_all_1/stderr" || true)
LINT_TUS_PARTIAL=$(grep -c 'could not parse all of it' "$WORK/out/lint_tus_1/stderr" || true)
LINT_ALL_PARTIAL=$(grep -c 'could not parse all of it' "$WORK/out/lint_all_1/stderr" || true)

echo "== cuda-lint on each file alone"
: > "$WORK/lint_per_file.tsv"
while IFS= read -r f; do
    t0=$(now_ns)
    "${PIN[@]}" "$LINT" check "$f" > /dev/null 2>&1 || true
    t1=$(now_ns)
    printf '%s\t%s\n' "$(((t1 - t0) / 1000000))" "$f" >> "$WORK/lint_per_file.tsv"
done < "$WORK/all.txt"
cat "$T"/*.ms > "$WORK/tidy_per_file.tsv"

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
if git -C "$SAMPLES" rev-parse HEAD > /dev/null 2>&1; then
    SAMPLES_COMMIT=$(git -C "$SAMPLES" rev-parse HEAD)
else
    SAMPLES_COMMIT="${CUDA_SAMPLES_COMMIT:-unknown}"
fi
CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
CT_VERSION=$("$CLANG_TIDY" --version | grep -o -m1 'LLVM version [0-9.]*')
CT_PKG=$(dpkg-query -W -f '${Package} ${Version}' clang-tidy 2> /dev/null || echo "")
TUS_LINES=$(lines_of "$WORK/tus.txt")
ALL_LINES=$(lines_of "$WORK/all.txt")
TIDY_MED=$(median ${TIMES[tidy_tus_2]})

REPORT="$WORK/report.md"
row() { # LABEL FILES PROCESSES ROW
    local m
    m=$(median ${TIMES[$4]})
    local ratio
    ratio=$(python3 -c "print(f'{$TIDY_MED / $m:.1f}')")
    echo "| $1 | $2 | $3 | $m s | ${TIMES[$4]# } | $((PEAK[$4] / 1024)) MiB | **${ratio}x** |"
}
{
    echo "# cuda-lint check against clang-tidy on cuda-samples, $(date -u '+%Y-%m-%d')"
    echo
    echo "\`bash lint/benches/speed/cpp_vs_clang_tidy.sh $SAMPLES $ROUNDS\`."
    echo "Machine: $(nproc) cores (nproc)${PIN:+, pinned to cores 0-$((JOBS - 1))}, $CPU, $(free -g | awk '/Mem:/ {print $2}') GiB,"
    echo "$(uname -sr). cuda-lint $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo ' + uncommitted changes')"
    echo "(release build); clang-tidy: $CT_VERSION (Debian package ${CT_PKG:-?}). cuda-samples at"
    echo "$SAMPLES_COMMIT: $N_TUS translation units (.cu .cpp .cc .cxx .c, $TUS_LINES lines),"
    echo "$N_ALL files with the headers (.h .cuh .hpp, $ALL_LINES lines). $ROUNDS rounds, order alternating, medians;"
    echo "one untimed warm-up pass of each row first. Load average (1, 5, 15 min) before the rounds $LOAD_BEFORE, at the end $LOAD_AFTER."
    echo "Two cuda-lint processes at once on the largest file took ${PAR}x the time of one alone"
    echo "(1.00x: the second core is a full core; 2.00x: it adds nothing)."
    echo
    echo "| tool | files | processes | wall (median) | each round | peak RSS (largest process) | clang-tidy / this |"
    echo "|---|---|---|---|---|---|---|"
    row "cuda-lint check" "$N_TUS TUs" "1" lint_tus_1
    row "cuda-lint check" "$N_TUS TUs, split in two of equal bytes" "2 at once" lint_tus_2
    row "cuda-lint check DIR" "whole tree: $N_ALL files (TUs + headers)" "1" lint_all_1
    row "cuda-lint check" "whole tree, split in two" "2 at once" lint_all_2
    row "\`clang-tidy -checks='$CHECK'\`" "the same $N_TUS TUs (headers through #include)" "1 per file, xargs -P$JOBS" tidy_tus_2
    echo
    echo "clang-tidy command, per file: \`clang-tidy --quiet -checks='$CHECK' FILE -- -x cuda --cuda-host-only"
    echo "-nocudainc -nocudalib -std=c++17 -I\$SAMPLES/Common\` for .cu, \`-- -x c++ -std=c++17 -I\$SAMPLES/Common\`"
    echo "for .cpp/.cc/.cxx, \`-- -x c -I\$SAMPLES/Common\` for .c."
    echo
    echo "What the tools said (last round): clang-tidy reported errors for $TIDY_ERR_FILES of the $N_TUS files"
    echo "(exit status non-zero for $TIDY_NONZERO), $TIDY_MISSING_FILES of them for a header it could not find;"
    echo "the most missed: $TIDY_TOP_MISSING. It found misc-unused-alias-decls in $TIDY_WARN_FILES files."
    echo "cuda-lint over the TUs: \`${LINT_TUS_SUMMARY#cuda-lint: }\`, $LINT_TUS_PARTIAL with parts it could not parse;"
    echo "over the whole tree: \`${LINT_ALL_SUMMARY#cuda-lint: }\`, $LINT_ALL_PARTIAL with parts it could not parse."
    echo
    echo "Slowest files for cuda-lint, each checked alone (one process each, so ~startup included), with"
    echo "clang-tidy's time for the same file where it is a TU (last round, 2 at once):"
    echo
    echo "| file | lines | cuda-lint | clang-tidy |"
    echo "|---|---|---|---|"
    python3 - "$WORK/lint_per_file.tsv" "$WORK/tidy_per_file.tsv" "$SAMPLES" <<'PY'
import sys
lint = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
tidy = {f: int(ms) for ms, f in (l.rstrip("\n").split("\t") for l in open(sys.argv[2]))}
root = sys.argv[3].rstrip("/") + "/"
for ms, f in sorted(lint, key=lambda x: -int(x[0]))[:5]:
    n = sum(1 for _ in open(f, "rb"))
    t = f"{tidy[f] / 1000:.2f} s" if f in tidy else "(header)"
    print(f"| `{f.removeprefix(root)}` | {n} | {int(ms) / 1000:.2f} s | {t} |")
total = sum(int(ms) for ms, _ in lint) / 1000
median = sorted(int(ms) for ms, _ in lint)[len(lint) // 2] / 1000
print(f"\nAll {len(lint)} files one by one: {total:.1f} s in all, median {median:.3f} s per file "
      f"(process start-up included).")
PY
} > "$REPORT"
echo
cat "$REPORT"
