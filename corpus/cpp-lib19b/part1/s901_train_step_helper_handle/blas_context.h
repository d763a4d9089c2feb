#pragma once
#include <cublas_v2.h>
#include "check.h"

// One handle for the whole trainer; created once at start-up and reused by
// every step (cuBLAS handles are expensive to create).
inline cublasHandle_t create_blas_handle() {
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  // Scalars (alpha/beta) live on the host in this code base.
  CUBLAS_CHECK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
  return handle;
}
