#!/usr/bin/env bash
# Builds every CUDA C++ example here with nvcc and runs each on GPU 0: the *_bug programs show
# what their misuse does on a GPU, the *_fixed programs the fix. Prints the GPU, the driver and
# nvcc's version first; skips, saying why, where nvcc or a GPU is missing.
#   bash examples/cpp/run.sh            (CUDA_ARCH=sm_80 bash ... for another GPU)
set -u
here=$(cd "$(dirname "$0")" && pwd)
arch=${CUDA_ARCH:-sm_90}
limit=${RUN_TIMEOUT:-60}

if ! command -v nvcc >/dev/null 2>&1; then
    echo "SKIP: nvcc is not on the PATH (install the CUDA toolkit, or add its bin/ to PATH)"
    exit 0
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "SKIP: no NVIDIA GPU or driver (nvidia-smi is missing or fails)"
    exit 0
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc --version | tail -n 1

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Build in parallel, one log per program; report failures in order.
for src in "$here"/*.cu; do
    name=$(basename "$src" .cu)
    nvcc -O2 -arch="$arch" -o "$out/$name" "$src" -lcuda >"$out/$name.build.log" 2>&1 &
done
wait
for src in "$here"/*.cu; do
    name=$(basename "$src" .cu)
    if [ ! -x "$out/$name" ]; then
        echo "BUILD FAIL $name"
        cat "$out/$name.build.log"
    fi
done

failed=0
for src in "$here"/*.cu; do
    name=$(basename "$src" .cu)
    echo "-- $name"
    if [ ! -x "$out/$name" ]; then
        echo "not built"
        failed=1
        continue
    fi
    timeout "$limit" "$out/$name"
    rc=$?
    echo "exit $rc"
    [ "$rc" -eq 0 ] || failed=1
done
exit "$failed"
