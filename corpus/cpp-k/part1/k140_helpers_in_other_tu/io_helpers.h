#pragma once
// Thin allocation and transfer helpers shared by the tools of this directory (io_helpers.cu).
#include <cuda_runtime.h>
#include <cstddef>

float* device_alloc(size_t count);
void device_release(float* p);

// page-locked host memory, required by the stream-ordered transfers below
float* pinned_alloc(size_t count);
void pinned_release(float* p);

// Enqueues host -> device on `s`; `host` must be pinned and left untouched until `s` is waited on.
void upload_async(float* device, const float* host, size_t count, cudaStream_t s);
// Copies device -> host on `s` and returns once the copy (and everything before it on `s`) is done.
void download_wait(float* host, const float* device, size_t count, cudaStream_t s);
