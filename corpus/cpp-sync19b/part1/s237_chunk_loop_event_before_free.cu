// case: streaming loop frees the previous chunk's device buffer at the top of the next iteration, but only after cudaEventSynchronize of the event recorded behind that chunk's kernel
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void checksum_kernel(const unsigned int* words, int n, unsigned long long* sum) {
  unsigned long long acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += words[i] ^ (i * 2654435761u);
  atomicAdd(sum, acc);
}

int main() {
  const int kChunks = 8;
  std::vector<int> chunk_words = {1 << 18, 1 << 19, 1 << 17, 1 << 19, 1 << 18, 1 << 16, 1 << 19, 1 << 18};
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaEvent_t chunk_done;
  cudaEventCreateWithFlags(&chunk_done, cudaEventDisableTiming);

  unsigned long long* d_sum = nullptr;
  cudaMalloc(&d_sum, sizeof(unsigned long long));
  cudaMemset(d_sum, 0, sizeof(unsigned long long));

  unsigned int* prev = nullptr;
  for (int c = 0; c < kChunks; ++c) {
    if (prev != nullptr) {
      cudaEventSynchronize(chunk_done);  // the previous chunk's kernel has finished
      cudaFree(prev);
      prev = nullptr;
    }
    const int n = chunk_words[c];
    std::vector<unsigned int> h_words(n);
    for (int i = 0; i < n; ++i) h_words[i] = static_cast<unsigned int>(i * 31 + c);
    unsigned int* d_words = nullptr;
    cudaMalloc(&d_words, n * sizeof(unsigned int));
    cudaMemcpy(d_words, h_words.data(), n * sizeof(unsigned int), cudaMemcpyHostToDevice);
    checksum_kernel<<<64, 256, 0, stream>>>(d_words, n, d_sum);
    cudaEventRecord(chunk_done, stream);
    prev = d_words;
  }

  cudaStreamSynchronize(stream);
  cudaFree(prev);
  unsigned long long h_sum = 0;
  cudaMemcpy(&h_sum, d_sum, sizeof(h_sum), cudaMemcpyDeviceToHost);
  std::printf("checksum %llu\n", h_sum);
  cudaFree(d_sum);
  cudaEventDestroy(chunk_done);
  cudaStreamDestroy(stream);
  return 0;
}
