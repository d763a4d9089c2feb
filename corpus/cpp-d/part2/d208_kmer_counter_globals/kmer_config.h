#ifndef KMER_CONFIG_H
#define KMER_CONFIG_H
/* Build-time parameters and error checking for the k-mer counting module. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define KMER_K 21
#define READ_LEN 150
#define BATCH_READS 65536
#define TABLE_BITS 22
#define TABLE_SIZE (1u << TABLE_BITS)

#define checkCudaErrors(val) check_cuda((val), #val, __FILE__, __LINE__)

static inline void check_cuda(cudaError_t result, const char* what, const char* file, int line) {
  if (result != cudaSuccess) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line, (int)result,
            cudaGetErrorString(result), what);
    exit(EXIT_FAILURE);
  }
}

#endif /* KMER_CONFIG_H */
