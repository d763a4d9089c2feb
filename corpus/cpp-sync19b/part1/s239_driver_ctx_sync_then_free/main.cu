// case: driver-API program stages data in cuMemAllocHost memory, copies with cuMemcpy*Async around a kernel on a driver stream, and calls cuStreamSynchronize / cuCtxSynchronize before every cuMemFree and cuMemFreeHost
// expect: none
#include <cstdio>
#include <cstring>

#include "driver_context.h"
#include "kernels.cuh"

int main() {
  PrimaryContext context(0);
  if (!context.ok()) return 1;

  const int n = 1 << 20, key_len = 32;
  CUstream stream;
  cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);

  void *h_plain = nullptr, *h_cipher = nullptr;
  cuMemAllocHost(&h_plain, n);
  cuMemAllocHost(&h_cipher, n);
  std::memset(h_plain, 'a', n);
  unsigned char key[key_len];
  for (int k = 0; k < key_len; ++k) key[k] = static_cast<unsigned char>(k * 11 + 3);

  CUdeviceptr d_in = 0, d_out = 0, d_key = 0;
  cuMemAlloc(&d_in, n);
  cuMemAlloc(&d_out, n);
  cuMemAlloc(&d_key, key_len);

  cuMemcpyHtoDAsync(d_key, key, key_len, stream);
  cuMemcpyHtoDAsync(d_in, h_plain, n, stream);
  xor_cipher_kernel<<<(n + 255) / 256, 256, 0, stream>>>(reinterpret_cast<const unsigned char*>(d_in),
                                                          reinterpret_cast<const unsigned char*>(d_key), key_len,
                                                          reinterpret_cast<unsigned char*>(d_out), n);
  cuMemcpyDtoHAsync(h_cipher, d_out, n, stream);

  cuStreamSynchronize(stream);
  cuMemFreeHost(h_plain);
  std::printf("cipher[0]=0x%02x cipher[33]=0x%02x\n", static_cast<unsigned char*>(h_cipher)[0],
              static_cast<unsigned char*>(h_cipher)[33]);

  // second message: reuse the buffers, drain the whole context before tearing down
  cuMemsetD8Async(d_in, 'b', n, stream);
  xor_cipher_kernel<<<(n + 255) / 256, 256, 0, stream>>>(reinterpret_cast<const unsigned char*>(d_in),
                                                          reinterpret_cast<const unsigned char*>(d_key), key_len,
                                                          reinterpret_cast<unsigned char*>(d_out), n);
  cuMemcpyDtoHAsync(h_cipher, d_out, n, stream);
  cuCtxSynchronize();
  std::printf("second cipher[0]=0x%02x\n", static_cast<unsigned char*>(h_cipher)[0]);
  cuMemFree(d_key);
  cuMemFree(d_in);
  cuMemFree(d_out);
  cuMemFreeHost(h_cipher);
  cuStreamDestroy(stream);
  return 0;
}
