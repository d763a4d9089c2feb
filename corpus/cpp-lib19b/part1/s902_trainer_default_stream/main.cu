// Softmax-regression trainer that keeps all work on the legacy default
// stream. The cuBLAS handle comes from a helper and is never given a stream:
// it stays on the legacy stream, which is the stream everything else uses.
#include <cstdio>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "check.h"
#include "blas_context.h"
#include "trainer.h"

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 200;
  cublasHandle_t blas = create_blas_handle();
  {
    SoftmaxTrainer trainer(blas, /*features=*/256, /*classes=*/16, /*batch=*/128);
    for (int it = 0; it < steps; ++it) {
      float loss = trainer.step(it, 0.5f);
      if (it % 20 == 0) std::printf("step %4d  loss %.5f\n", it, loss);
    }
  }
  CUBLAS_CHECK(cublasDestroy(blas));
  return 0;
}
