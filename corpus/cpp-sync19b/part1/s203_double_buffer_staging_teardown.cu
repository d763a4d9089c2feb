// case: ingest pipeline double-buffers uploads through two pinned staging slots guarded by events, but after the last batch it cudaFreeHost's the slots while the last copies may still read them
// expect: relies_on_implicit_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstring>
#include <vector>

__global__ void standardize_kernel(const float* in, float* out, int n, float mean, float inv_std) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (in[i] - mean) * inv_std;
}

// stands in for the decoder that produces one batch of samples on the host
static void decode_batch(float* dst, int n, int batch) {
  for (int i = 0; i < n; ++i) dst[i] = static_cast<float>((i * 31 + batch * 7) % 1000) * 0.001f;
}

int main() {
  const int kBatches = 12;
  const int kBatchElems = 1 << 18;
  const size_t batch_bytes = static_cast<size_t>(kBatchElems) * sizeof(float);
  const size_t total = static_cast<size_t>(kBatches) * kBatchElems;

  cudaStream_t stream;
  cudaStreamCreate(&stream);

  float* staging[2] = {nullptr, nullptr};
  cudaEvent_t slot_free[2];
  for (int s = 0; s < 2; ++s) {
    cudaMallocHost(&staging[s], batch_bytes);
    cudaEventCreateWithFlags(&slot_free[s], cudaEventDisableTiming);
  }

  float* d_raw = nullptr;
  float* d_norm = nullptr;
  cudaMalloc(&d_raw, total * sizeof(float));
  cudaMalloc(&d_norm, total * sizeof(float));

  for (int b = 0; b < kBatches; ++b) {
    const int slot = b & 1;
    // the copy that last read this slot must be done before the decoder overwrites it
    if (b >= 2) cudaEventSynchronize(slot_free[slot]);
    decode_batch(staging[slot], kBatchElems, b);

    float* d_batch = d_raw + static_cast<size_t>(b) * kBatchElems;
    cudaMemcpyAsync(d_batch, staging[slot], batch_bytes, cudaMemcpyHostToDevice, stream);
    cudaEventRecord(slot_free[slot], stream);
    standardize_kernel<<<(kBatchElems + 255) / 256, 256, 0, stream>>>(
        d_batch, d_norm + static_cast<size_t>(b) * kBatchElems, kBatchElems, 0.5f, 3.4f);
  }

  // teardown of the staging ring: nothing waited for the last two uploads
  for (int s = 0; s < 2; ++s) cudaFreeHost(staging[s]);  // EXPECT: relies_on_implicit_sync

  std::vector<float> h_norm(total);
  cudaMemcpy(h_norm.data(), d_norm, total * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("first=%f last=%f\n", h_norm[0], h_norm[total - 1]);

  for (int s = 0; s < 2; ++s) cudaEventDestroy(slot_free[s]);
  cudaFree(d_raw);
  cudaFree(d_norm);
  cudaStreamDestroy(stream);
  return 0;
}
