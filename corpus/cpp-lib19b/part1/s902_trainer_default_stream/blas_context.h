#pragma once
#include <cublas_v2.h>
#include "check.h"

// Shared by the trainer and the evaluation code; both run on the default
// stream, so the handle keeps the stream cublasCreate gives it.
inline cublasHandle_t create_blas_handle() {
  cublasHandle_t handle = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  return handle;
}
