// case: volume renderer page-locks a new[]-allocated density grid with cudaHostRegister, uploads and reads back asynchronously, waits with cudaEventSynchronize before reading, then unregisters and delete[]s it (near-miss)
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t e_ = (call);                                                    \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "volume: %s\n", cudaGetErrorString(e_));             \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

// Maximum-intensity projection along z.
__global__ void mip_z(const float* __restrict__ vol, float* __restrict__ img, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= nx || y >= ny) return;
  float m = 0.f;
  for (int z = 0; z < nz; ++z) m = fmaxf(m, vol[(size_t(z) * ny + y) * nx + x]);
  img[y * nx + x] = m;
}

int main(int argc, char** argv) {
  const int nx = 512, ny = 512, nz = argc > 1 ? std::atoi(argv[1]) : 256;
  const size_t vox = size_t(nx) * ny * nz;

  float* volume = new float[vox];
  float* image = new float[size_t(nx) * ny];
  for (size_t i = 0; i < vox; ++i) volume[i] = float((i * 2654435761u) % 1000) / 1000.f;

  CUDA_CHECK(cudaHostRegister(volume, vox * sizeof(float), cudaHostRegisterPortable));
  CUDA_CHECK(cudaHostRegister(image, size_t(nx) * ny * sizeof(float), cudaHostRegisterPortable));

  cudaStream_t s;
  cudaEvent_t done;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventBlockingSync));
  float *d_vol = nullptr, *d_img = nullptr;
  CUDA_CHECK(cudaMalloc(&d_vol, vox * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_img, size_t(nx) * ny * sizeof(float)));

  CUDA_CHECK(cudaMemcpyAsync(d_vol, volume, vox * sizeof(float), cudaMemcpyHostToDevice, s));
  dim3 block(16, 16), grid((nx + 15) / 16, (ny + 15) / 16);
  mip_z<<<grid, block, 0, s>>>(d_vol, d_img, nx, ny, nz);
  CUDA_CHECK(cudaMemcpyAsync(image, d_img, size_t(nx) * ny * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaEventRecord(done, s));
  CUDA_CHECK(cudaEventSynchronize(done));

  double mean = 0.0;
  for (size_t i = 0; i < size_t(nx) * ny; ++i) mean += image[i];
  std::printf("MIP mean %.4f\n", mean / (double(nx) * ny));

  CUDA_CHECK(cudaHostUnregister(image));
  CUDA_CHECK(cudaHostUnregister(volume));
  delete[] image;
  delete[] volume;
  cudaFree(d_img);
  cudaFree(d_vol);
  cudaEventDestroy(done);
  cudaStreamDestroy(s);
  return 0;
}
