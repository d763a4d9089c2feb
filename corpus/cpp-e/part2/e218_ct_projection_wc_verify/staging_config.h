// Staging configuration for the CT reconstruction pipeline's projection uploads.
#pragma once
#include <cuda.h>

// Projections are streamed host->device only, so the staging area is write-combined.
#define PROJ_STAGING_FLAGS (CU_MEMHOSTALLOC_WRITECOMBINED | CU_MEMHOSTALLOC_PORTABLE)

constexpr int kDetRows = 256;
constexpr int kDetCols = 1024;
constexpr size_t kProjElems = size_t(kDetRows) * kDetCols;
constexpr size_t kProjBytes = kProjElems * sizeof(float);

#define DRV_CALL(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { \
    const char* n_ = nullptr; cuGetErrorName(r_, &n_); std::fprintf(stderr, "%s: %s\n", #x, n_); std::exit(1); } } while (0)
