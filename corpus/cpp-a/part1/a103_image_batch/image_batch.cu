// case: image preprocessing batch (folder case); frames are decoded into a std::vector<uint8_t> member and uploaded with cudaMemcpyAsync from that pageable vector; the readback of per-image means goes to a pinned buffer and is synchronized
// expect: pageable_async_copy=1
#include "cuda_buffers.cuh"
#include "preprocess.cuh"

#include <cstdint>
#include <cstdio>
#include <vector>

struct BatchShape {
  int batch;
  int height;
  int width;
  size_t pixels() const { return static_cast<size_t>(batch) * height * width; }
};

class ImageBatch {
 public:
  explicit ImageBatch(BatchShape shape)
      : shape_(shape),
        frames_(shape.pixels() * 3),
        d_frames_(shape.pixels() * 3),
        d_chw_(shape.pixels() * 3),
        d_means_(shape.batch),
        h_means_(shape.batch) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }

  ~ImageBatch() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }

  // Stand-in for the JPEG decoder: writes interleaved RGB into frames_.
  void decode_synthetic(int seed) {
    for (size_t i = 0; i < frames_.size(); ++i)
      frames_[i] = static_cast<uint8_t>((i * 131u + static_cast<unsigned>(seed) * 7u) & 0xFF);
  }

  const float* preprocess() {
    CUDA_CHECK(cudaMemcpyAsync(d_frames_.data(), frames_.data(), frames_.size() * sizeof(uint8_t), cudaMemcpyHostToDevice, stream_));  // EXPECT: pageable_async_copy
    const int total = static_cast<int>(shape_.pixels());
    hwc_to_chw_normalize<<<(total + 255) / 256, 256, 0, stream_>>>(
        d_frames_.data(), d_chw_.data(), shape_.batch, shape_.height, shape_.width,
        make_float3(0.485f, 0.456f, 0.406f), make_float3(1.f / 0.229f, 1.f / 0.224f, 1.f / 0.225f));
    CUDA_CHECK(cudaMemsetAsync(d_means_.data(), 0, d_means_.bytes(), stream_));
    per_image_mean<<<shape_.batch, 256, 0, stream_>>>(d_chw_.data(), d_means_.data(), shape_.batch,
                                                     3 * shape_.height * shape_.width);
    CUDA_CHECK(cudaMemcpyAsync(h_means_.data(), d_means_.data(), h_means_.bytes(), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    return h_means_.data();
  }

  int batch() const { return shape_.batch; }

 private:
  BatchShape shape_;
  std::vector<uint8_t> frames_;
  DeviceBuffer<uint8_t> d_frames_;
  DeviceBuffer<float> d_chw_;
  DeviceBuffer<float> d_means_;
  PinnedBuffer<float> h_means_;
  cudaStream_t stream_ = nullptr;
};

int main() {
  ImageBatch batch({32, 224, 224});
  for (int iter = 0; iter < 4; ++iter) {
    batch.decode_synthetic(iter);
    const float* means = batch.preprocess();
    std::printf("batch %d: mean[0]=%.4f mean[last]=%.4f\n", iter, means[0], means[batch.batch() - 1]);
  }
  return 0;
}
