// case: Inference step captured once into a CUDA graph (upload from pinned input, kernel, download to pinned output); capture runs nothing, so filling the input after capture is safe, and each replay is followed by an event that the host polls with cudaEventQuery (doing other work meanwhile) until it completes before reading the output or refilling the input.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(EXIT_FAILURE);                                                       \
    }                                                                           \
  } while (0)

constexpr int kIn = 4096, kOut = 1024;

__global__ void dense_tanh(const float* x, const float* w, float* y) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= kOut) return;
  float acc = 0.f;
  for (int i = 0; i < kIn; ++i) acc += w[size_t(o) * kIn + i] * x[i];
  y[o] = tanhf(acc);
}

static unsigned long long g_host_ticks = 0;
static void do_host_work() { ++g_host_ticks; }

int main() {
  float *h_x, *h_y, *h_w, *d_x, *d_w, *d_y;
  CUDA_CHECK(cudaMallocHost(&h_x, kIn * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_y, kOut * sizeof(float)));
  CUDA_CHECK(cudaMallocHost(&h_w, size_t(kOut) * kIn * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_x, kIn * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_w, size_t(kOut) * kIn * sizeof(float)));
  CUDA_CHECK(cudaMalloc(&d_y, kOut * sizeof(float)));
  for (size_t i = 0; i < size_t(kOut) * kIn; ++i) h_w[i] = float(int(i % 31) - 15) * 1e-3f;

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMemcpyAsync(d_w, h_w, size_t(kOut) * kIn * sizeof(float), cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemcpyAsync(d_x, h_x, kIn * sizeof(float), cudaMemcpyHostToDevice, stream));
  dense_tanh<<<(kOut + 127) / 128, 128, 0, stream>>>(d_x, d_w, d_y);
  CUDA_CHECK(cudaMemcpyAsync(h_y, d_y, kOut * sizeof(float), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

  cudaEvent_t done;
  CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  double checksum = 0.0;
  for (int iter = 0; iter < 100; ++iter) {
    for (int i = 0; i < kIn; ++i) h_x[i] = float((i + iter) % 64) / 64.0f;
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaEventRecord(done, stream));
    cudaError_t q;
    while ((q = cudaEventQuery(done)) == cudaErrorNotReady) do_host_work();
    CUDA_CHECK(q);
    for (int o = 0; o < kOut; ++o) checksum += h_y[o];
  }
  printf("checksum %.5f (%llu host ticks overlapped)\n", checksum, g_host_ticks);

  CUDA_CHECK(cudaEventDestroy(done));
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(d_x));
  CUDA_CHECK(cudaFree(d_w));
  CUDA_CHECK(cudaFree(d_y));
  CUDA_CHECK(cudaFreeHost(h_x));
  CUDA_CHECK(cudaFreeHost(h_y));
  CUDA_CHECK(cudaFreeHost(h_w));
  return 0;
}
