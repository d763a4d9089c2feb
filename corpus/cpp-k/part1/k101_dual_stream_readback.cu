// case: A chunked upload->affine->download pipeline splits each chunk over a compute stream and a copy stream joined by per-chunk events; run() then synchronizes only the compute stream, so checksum() reads the pinned output that the copy stream's last D2H copies may still be writing.
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(err_));                                   \
      std::exit(EXIT_FAILURE);                                                  \
    }                                                                           \
  } while (0)

__global__ void affine(const float* __restrict__ in, float* __restrict__ out,
                       float scale, float bias, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = scale * in[i] + bias;
}

class ChunkPipeline {
 public:
  ChunkPipeline(size_t chunk_elems, int chunks)
      : chunk_(chunk_elems), chunks_(chunks), total_(chunk_elems * chunks) {
    const size_t bytes = total_ * sizeof(float);
    CUDA_CHECK(cudaMallocHost(&h_in_, bytes));
    CUDA_CHECK(cudaMallocHost(&h_out_, bytes));
    CUDA_CHECK(cudaMalloc(&d_in_, bytes));
    CUDA_CHECK(cudaMalloc(&d_out_, bytes));
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    chunk_done_.resize(chunks_);
    for (auto& ev : chunk_done_)
      CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  }

  ~ChunkPipeline() {
    cudaStreamSynchronize(copy_);
    cudaStreamSynchronize(compute_);
    for (cudaEvent_t ev : chunk_done_) cudaEventDestroy(ev);
    cudaStreamDestroy(copy_);
    cudaStreamDestroy(compute_);
    cudaFree(d_out_);
    cudaFree(d_in_);
    cudaFreeHost(h_out_);
    cudaFreeHost(h_in_);
  }

  ChunkPipeline(const ChunkPipeline&) = delete;
  ChunkPipeline& operator=(const ChunkPipeline&) = delete;

  float* input() { return h_in_; }
  size_t size() const { return total_; }

  void run(float scale, float bias) {
    const int block = 256;
    const int grid = static_cast<int>((chunk_ + block - 1) / block);
    for (int c = 0; c < chunks_; ++c) {
      const size_t off = static_cast<size_t>(c) * chunk_;
      CUDA_CHECK(cudaMemcpyAsync(d_in_ + off, h_in_ + off, chunk_ * sizeof(float),
                                 cudaMemcpyHostToDevice, compute_));
      affine<<<grid, block, 0, compute_>>>(d_in_ + off, d_out_ + off, scale, bias, chunk_);
      CUDA_CHECK(cudaGetLastError());
      // hand the finished chunk to the copy stream so the next upload overlaps the download
      CUDA_CHECK(cudaEventRecord(chunk_done_[c], compute_));
      CUDA_CHECK(cudaStreamWaitEvent(copy_, chunk_done_[c], 0));
      CUDA_CHECK(cudaMemcpyAsync(h_out_ + off, d_out_ + off, chunk_ * sizeof(float),
                                 cudaMemcpyDeviceToHost, copy_));
    }
    // every chunk's kernel is done once the compute stream drains
    CUDA_CHECK(cudaStreamSynchronize(compute_));
  }

  double checksum() const {
    double sum = 0.0;
    for (size_t i = 0; i < total_; ++i) sum += h_out_[i];  // EXPECT: missing_sync
    return sum;
  }

 private:
  size_t chunk_;
  int chunks_;
  size_t total_;
  float* h_in_ = nullptr;
  float* h_out_ = nullptr;
  float* d_in_ = nullptr;
  float* d_out_ = nullptr;
  cudaStream_t compute_ = nullptr;
  cudaStream_t copy_ = nullptr;
  std::vector<cudaEvent_t> chunk_done_;
};

int main(int argc, char** argv) {
  const int chunks = argc > 1 ? std::atoi(argv[1]) : 8;
  const size_t chunk_elems = size_t(1) << 20;

  ChunkPipeline pipe(chunk_elems, chunks);
  float* in = pipe.input();
  for (size_t i = 0; i < pipe.size(); ++i) in[i] = static_cast<float>(i % 1024) * 0.5f;

  pipe.run(2.0f, -1.0f);
  const double sum = pipe.checksum();

  double expected = 0.0;
  for (size_t i = 0; i < pipe.size(); ++i) expected += 2.0 * ((i % 1024) * 0.5) - 1.0;
  std::printf("checksum %.1f (expected %.1f) %s\n", sum, expected,
              sum == expected ? "OK" : "MISMATCH");
  return sum == expected ? 0 : 1;
}
