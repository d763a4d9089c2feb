// `#if`/`#ifdef` arms are alternative builds, not runtime branches. The default build defines a
// macro where the code (or a header it includes with `#include "..."`) defines it, and what
// nvcc's host pass defines (`__CUDACC__`); `__CUDA_ARCH__` is the device pass's. An arm that
// build leaves out is not analysed: a wait there does not happen, a misuse there is not one. A
// test the analysis cannot decide (`CUDA_VERSION >= 11000`) leaves every arm in.
#include <cstdlib>
#include <cuda_runtime.h>
#include "configurations_header/config.h"

#define USE_PINNED_STAGING 1

// CuSan's tests: the fixing sync sits under a macro the build does not define.
float fires_sync_only_in_a_build_that_defines_it(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
#ifdef CUSAN_SYNC
    cudaStreamSynchronize(s);
#endif
    return h[0]; //~ missing_sync
}

// Defined in this file: the sync is compiled.
float ok_sync_under_a_macro_the_file_defines(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
#if defined(USE_PINNED_STAGING) && USE_PINNED_STAGING
    cudaStreamSynchronize(s);
#endif
    return h[0];
}

// Defined in the header the file includes: compiled too.
float ok_sync_under_a_macro_a_header_defines(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
#ifdef PIPELINE_SYNC_READBACK
    cudaStreamSynchronize(s);
#endif
    return h[0];
}

// `#ifdef X ... #else ... #endif`: one of the two is built, never both in turn.
void ok_pageable_arm_not_in_this_build(float* d, int n, cudaStream_t s) {
#ifndef USE_PINNED_STAGING
    float* staging = (float*)malloc(n * sizeof(float));
    cudaMemcpyAsync(d, staging, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    free(staging);
#else
    float* staging;
    cudaMallocHost(&staging, n * sizeof(float));
    cudaMemcpyAsync(d, staging, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    cudaFreeHost(staging);
#endif
}

void fires_pageable_arm_of_this_build(float* d, int n, cudaStream_t s) {
#ifdef USE_PINNED_STAGING
    float* staging = (float*)malloc(n * sizeof(float));
    cudaMemcpyAsync(d, staging, n * sizeof(float), cudaMemcpyHostToDevice, s); //~ pageable_async_copy
    cudaStreamSynchronize(s);
    free(staging);
#endif
}

// Host code: the device pass's arm is not this build's.
float ok_device_pass_arm(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
#ifndef __CUDA_ARCH__
    cudaStreamSynchronize(s);
#endif
    return h[0];
}

// A whole function in an arm the build leaves out is not analysed.
#if 0
float ok_function_not_built(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    return h[0];
}
#endif

// Not decided here (CUDA_VERSION's value is the toolkit's): every arm stays, as before.
float ok_undecided_test_keeps_its_arms(float* d, int n, cudaStream_t s) {
    float* h;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
#if CUDA_VERSION >= 11000
    cudaStreamSynchronize(s);
#endif
    return h[0];
}

// An `#elif` chain: the first arm whose test holds is built, the others are not.
void ok_elif_arm_of_this_build(float* d, int n, cudaStream_t s) {
#if defined(USE_MANAGED_STAGING)
    float* staging;
    cudaMallocManaged(&staging, n * sizeof(float));
#elif defined(USE_PINNED_STAGING)
    float* staging;
    cudaMallocHost(&staging, n * sizeof(float));
#else
    float* staging = (float*)malloc(n * sizeof(float));
#endif
    cudaMemcpyAsync(d, staging, n * sizeof(float), cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
}

// `#undef` takes a macro out from there on.
#define STAGE_WRITE_COMBINED 1
#undef STAGE_WRITE_COMBINED // this build reads the staging buffer back
#ifdef STAGE_WRITE_COMBINED
#define STAGE_FLAGS cudaHostAllocWriteCombined
#else
#define STAGE_FLAGS cudaHostAllocDefault
#endif
float ok_flags_after_undef(size_t n) {
    float* h;
    cudaHostAlloc(&h, n * sizeof(float), STAGE_FLAGS);
    return h[0];
}

// A value with a comment after it (`#define USE_PINNED 1 // why`) is that value.
#define USE_PINNED 1   // production default: page-locked staging
float* ok_value_with_a_comment(size_t n) {
    float* p;
#if USE_PINNED
    cudaMallocHost(&p, n * sizeof(float));
#else
    p = (float*)malloc(n * sizeof(float));
#endif
    return p;
}
void ok_release_with_a_comment(float* p) {
#if USE_PINNED
    cudaFreeHost(p);
#else
    free(p);
#endif
}
void check_value_with_a_comment(size_t n) {
    ok_release_with_a_comment(ok_value_with_a_comment(n));
}

// The snippets above leave out uploads, copies back and frees that are not what they test.
// cuda-lint: allow-file(device_memory_leak, uninitialized_device_read, unread_kernel_output)
