// Double-buffered host->device->host pipeline: two pinned staging slots per direction, one
// event per slot recorded after the last copy that uses the slot.
#pragma once
#include <cuda_runtime.h>
#include <cstddef>

__global__ void gain_kernel(const short* in, float* out, int n, float gain) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = gain * in[i];
}

class StagedPipeline {
 public:
  explicit StagedPipeline(int batch) : batch_(batch) {
    cudaStreamCreate(&stream_);
    for (int s = 0; s < 2; ++s) {
      cudaMallocHost(&h_in_[s], batch * sizeof(short));
      cudaMallocHost(&h_out_[s], batch * sizeof(float));
      cudaMalloc(&d_in_[s], batch * sizeof(short));
      cudaMalloc(&d_out_[s], batch * sizeof(float));
      cudaEventCreateWithFlags(&done_[s], cudaEventDisableTiming);
    }
  }

  // produce(h, b) fills batch b; consume(h, b) receives its result
  template <typename Produce, typename Consume>
  void run(int batches, Produce produce, Consume consume) {
    for (int b = 0; b < batches + 1; ++b) {
      const int slot = b & 1;
      if (b < batches) {
        if (b >= 2) cudaEventSynchronize(done_[slot]);
        produce(h_in_[slot], b);
        cudaMemcpyAsync(d_in_[slot], h_in_[slot], batch_ * sizeof(short), cudaMemcpyHostToDevice, stream_);
        gain_kernel<<<(batch_ + 255) / 256, 256, 0, stream_>>>(d_in_[slot], d_out_[slot], batch_, 0.5f);
        cudaMemcpyAsync(h_out_[slot], d_out_[slot], batch_ * sizeof(float), cudaMemcpyDeviceToHost, stream_);
        cudaEventRecord(done_[slot], stream_);
      }
      if (b >= 1) {  // hand over the previous batch once its copy back is done
        const int prev = slot ^ 1;
        cudaEventSynchronize(done_[prev]);
        consume(h_out_[prev], b - 1);
      }
    }
    cudaStreamSynchronize(stream_);
  }

  ~StagedPipeline() {
    cudaStreamSynchronize(stream_);
    for (int s = 0; s < 2; ++s) {
      cudaFreeHost(h_in_[s]);
      cudaFreeHost(h_out_[s]);
      cudaFree(d_in_[s]);
      cudaFree(d_out_[s]);
      cudaEventDestroy(done_[s]);
    }
    cudaStreamDestroy(stream_);
  }

 private:
  int batch_;
  cudaStream_t stream_;
  short* h_in_[2];
  float* h_out_[2];
  short* d_in_[2];
  float* d_out_[2];
  cudaEvent_t done_[2];
};
