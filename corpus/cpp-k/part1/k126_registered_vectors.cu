// case: A resampler page-locks the std::vector buffers it already owns with cudaHostRegister, so its cudaMemcpyAsync calls are true DMA; it synchronizes the stream before reading the output and before unregistering: correct, and not pageable.
// expect: none
#include <cuda_runtime.h>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

inline void cuda_throw(cudaError_t e, const char* ctx) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(ctx) + ": " + cudaGetErrorString(e));
}

// RAII page-lock of a vector's storage; the vector must not reallocate while registered
template <typename T>
class HostRegistration {
 public:
  explicit HostRegistration(std::vector<T>& v) : ptr_(v.data()) {
    cuda_throw(cudaHostRegister(ptr_, v.size() * sizeof(T), cudaHostRegisterDefault),
               "cudaHostRegister");
  }
  ~HostRegistration() { cudaHostUnregister(ptr_); }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;

 private:
  T* ptr_;
};

__global__ void resample_linear(const float* __restrict__ in, int n_in, float* __restrict__ out,
                                int n_out) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n_out) return;
  float x = j * (float(n_in - 1) / float(n_out - 1));
  int i0 = min(int(x), n_in - 2);
  float t = x - i0;
  out[j] = (1.f - t) * in[i0] + t * in[i0 + 1];
}

int main() {
  const int n_in = 44100 * 60;   // one minute at 44.1 kHz
  const int n_out = 48000 * 60;  // to 48 kHz
  std::vector<float> input(n_in), output(n_out);
  for (int i = 0; i < n_in; ++i) input[i] = std::sin(2.f * 3.14159265f * 440.f * i / 44100.f);

  try {
    cudaStream_t stream;
    cuda_throw(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
    float *d_in = nullptr, *d_out = nullptr;
    cuda_throw(cudaMalloc(&d_in, n_in * sizeof(float)), "alloc in");
    cuda_throw(cudaMalloc(&d_out, n_out * sizeof(float)), "alloc out");
    cudaError_t err;
    {
      HostRegistration<float> pin_in(input), pin_out(output);
      // no throwing while DMA may use the registered pages: collect the first error instead
      err = cudaMemcpyAsync(d_in, input.data(), n_in * sizeof(float), cudaMemcpyHostToDevice,
                            stream);
      if (err == cudaSuccess) {
        resample_linear<<<(n_out + 255) / 256, 256, 0, stream>>>(d_in, n_in, d_out, n_out);
        err = cudaGetLastError();
      }
      if (err == cudaSuccess)
        err = cudaMemcpyAsync(output.data(), d_out, n_out * sizeof(float), cudaMemcpyDeviceToHost,
                              stream);
      const cudaError_t sync_err = cudaStreamSynchronize(stream);  // always, even after a failure
      if (err == cudaSuccess) err = sync_err;
    }  // unregistered here, after the stream is idle
    if (err != cudaSuccess) {
      cudaFree(d_out);
      cudaFree(d_in);
      cuda_throw(err, "resample");
    }

    double rms = 0.0;
    for (float v : output) rms += double(v) * v;
    std::printf("resampled %d -> %d samples, rms %.5f\n", n_in, n_out, std::sqrt(rms / n_out));

    cuda_throw(cudaFree(d_out), "free out");
    cuda_throw(cudaFree(d_in), "free in");
    cuda_throw(cudaStreamDestroy(stream), "destroy");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
