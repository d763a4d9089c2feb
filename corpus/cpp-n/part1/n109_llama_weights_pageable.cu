// case: llama.cpp-style model loader reads each tensor from the weights file into a reusable std::vector and uploads it with cudaMemcpyAsync into one device arena at the tensor's offset; the host side is pageable memory of a run-time size, so the "async" upload is staged and serialized (reusing the vector right after is legal for a pageable H2D copy).
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

struct TensorRecord {
  char name[64];
  uint64_t offset;  // byte offset inside the device arena
  uint64_t nbytes;
};

__global__ void byte_checksum(const uint8_t* data, size_t n, unsigned long long* out) {
  unsigned long long acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    acc += data[i];
  atomicAdd(out, acc);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s model.bin\n", argv[0]);
    return 1;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 1;
  uint32_t n_tensors = 0;
  if (fread(&n_tensors, sizeof n_tensors, 1, f) != 1 || n_tensors == 0 || n_tensors > 4096) {
    fclose(f);
    return 1;
  }
  std::vector<TensorRecord> records(n_tensors);
  if (fread(records.data(), sizeof(TensorRecord), n_tensors, f) != n_tensors) {
    fclose(f);
    return 1;
  }
  uint64_t arena_bytes = 0;
  for (const TensorRecord& r : records) arena_bytes = std::max<uint64_t>(arena_bytes, r.offset + r.nbytes);

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  uint8_t* d_arena = nullptr;
  CUDA_CHECK(cudaMalloc(&d_arena, arena_bytes));
  CUDA_CHECK(cudaMemsetAsync(d_arena, 0, arena_bytes, stream));

  std::vector<uint8_t> buf;
  for (const TensorRecord& r : records) {
    buf.resize(r.nbytes);
    if (fread(buf.data(), 1, r.nbytes, f) != r.nbytes) {
      fprintf(stderr, "short read in tensor %.64s\n", r.name);
      fclose(f);
      return 1;
    }
    CUDA_CHECK(cudaMemcpyAsync(d_arena + r.offset, buf.data(), r.nbytes, cudaMemcpyHostToDevice, stream));  // EXPECT: pageable_async_copy
  }
  fclose(f);

  unsigned long long* d_sum = nullptr;
  CUDA_CHECK(cudaMalloc(&d_sum, sizeof(unsigned long long)));
  CUDA_CHECK(cudaMemsetAsync(d_sum, 0, sizeof(unsigned long long), stream));
  byte_checksum<<<256, 256, 0, stream>>>(d_arena, arena_bytes, d_sum);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  unsigned long long sum = 0;
  CUDA_CHECK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
  printf("loaded %u tensors, %llu bytes, checksum %llu\n", n_tensors, (unsigned long long)arena_bytes, sum);

  CUDA_CHECK(cudaFree(d_sum));
  CUDA_CHECK(cudaFree(d_arena));
  CUDA_CHECK(cudaStreamDestroy(stream));
  return 0;
}
