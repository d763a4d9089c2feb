#pragma once
#include <cuda_runtime.h>
#include <cstddef>

// Blocking download into page-locked memory: returns once the data is on the host.
cudaError_t download_blocking(void* h_pinned, const void* d_src, size_t bytes, cudaStream_t stream);

// Page-locked host allocation helpers.
void* pinned_alloc(size_t bytes);
void pinned_free(void* p);
