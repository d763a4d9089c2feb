#pragma once
#include <cuda_runtime.h>

__global__ void xor_cipher_kernel(const unsigned char* in, const unsigned char* key, int key_len, unsigned char* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] ^ key[i % key_len];
}
