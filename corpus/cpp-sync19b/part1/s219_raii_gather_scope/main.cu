// case: embedding lookup keeps the batch's row indices in an RAII DeviceBuffer whose destructor calls cudaFree; the buffer's scope closes right after the gather kernel that reads it is launched on a stream
// expect: relies_on_implicit_sync=1
#include <cstdio>
#include <vector>

#include "device_buffer.h"
#include "gather.cuh"

int main() {
  const int rows = 100000, dim = 128, batch = 1024;
  std::vector<float> h_table(static_cast<size_t>(rows) * dim);
  for (size_t i = 0; i < h_table.size(); ++i) h_table[i] = static_cast<float>(i % 4099) * 1e-3f;
  std::vector<int> h_idx(batch);
  for (int b = 0; b < batch; ++b) h_idx[b] = (b * 7919) % rows;
  std::vector<float> h_out(static_cast<size_t>(batch) * dim);

  cudaStream_t stream;
  cudaStreamCreate(&stream);

  DeviceBuffer<float> d_table(h_table.size());
  d_table.upload(h_table.data());
  DeviceBuffer<float> d_out(h_out.size());

  {
    DeviceBuffer<int> d_idx(batch);
    d_idx.upload(h_idx.data());
    gather_rows_kernel<<<batch, 128, 0, stream>>>(d_table.data(), d_idx.data(), d_out.data(), dim);
  }  // EXPECT: relies_on_implicit_sync

  d_out.download(h_out.data());  // blocking copy: waits for the blocking stream
  std::printf("out[0][0]=%f out[last]=%f\n", h_out[0], h_out.back());

  cudaStreamDestroy(stream);
  return 0;
}
