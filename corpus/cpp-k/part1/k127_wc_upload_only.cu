// case: Vertex batches are streamed through a write-combined pinned buffer that the host only writes (the intended use) and waits on a per-batch event before rewriting; results come back into an ordinary cudaMallocHost buffer that the host reads: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t s = (call);                                                    \
    if (s != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(s));          \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

struct Mat4 {
  float m[16];
};

__constant__ Mat4 c_mvp;

__global__ void transform(const float4* __restrict__ in, float4* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = in[i];
  const float* m = c_mvp.m;
  out[i] = make_float4(m[0] * v.x + m[4] * v.y + m[8] * v.z + m[12] * v.w,
                       m[1] * v.x + m[5] * v.y + m[9] * v.z + m[13] * v.w,
                       m[2] * v.x + m[6] * v.y + m[10] * v.z + m[14] * v.w,
                       m[3] * v.x + m[7] * v.y + m[11] * v.z + m[15] * v.w);
}

int main() {
  const int batch = 1 << 18, batches = 16;
  const size_t bytes = batch * sizeof(float4);

  std::vector<float4> scene(size_t(batch) * batches);
  for (size_t i = 0; i < scene.size(); ++i)
    scene[i] = make_float4(float(i % 1000), float((i / 1000) % 1000), float(i % 7), 1.f);

  Mat4 mvp = {};
  mvp.m[0] = mvp.m[5] = mvp.m[10] = mvp.m[15] = 1.f;
  mvp.m[12] = -500.f;
  mvp.m[13] = -500.f;
  CHECK_CUDA(cudaMemcpyToSymbol(c_mvp, &mvp, sizeof(Mat4)));

  float4* upload = nullptr;    // write-combined: host writes only
  float4* readback = nullptr;  // default pinned: host reads
  CHECK_CUDA(cudaHostAlloc(&upload, bytes, cudaHostAllocWriteCombined));
  CHECK_CUDA(cudaMallocHost(&readback, bytes * batches));
  float4 *d_in, *d_out;
  CHECK_CUDA(cudaMalloc(&d_in, bytes));
  CHECK_CUDA(cudaMalloc(&d_out, bytes * batches));

  cudaStream_t stream;
  cudaEvent_t upload_free;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDA(cudaEventCreateWithFlags(&upload_free, cudaEventDisableTiming));

  for (int b = 0; b < batches; ++b) {
    if (b > 0) CHECK_CUDA(cudaEventSynchronize(upload_free));  // previous upload has read it
    std::memcpy(upload, scene.data() + size_t(b) * batch, bytes);
    CHECK_CUDA(cudaMemcpyAsync(d_in, upload, bytes, cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaEventRecord(upload_free, stream));
    transform<<<(batch + 255) / 256, 256, 0, stream>>>(d_in, d_out + size_t(b) * batch, batch);
    CHECK_CUDA(cudaGetLastError());
  }
  CHECK_CUDA(cudaMemcpyAsync(readback, d_out, bytes * batches, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  float minx = readback[0].x, maxx = readback[0].x;
  for (size_t i = 1; i < size_t(batch) * batches; ++i) {
    minx = readback[i].x < minx ? readback[i].x : minx;
    maxx = readback[i].x > maxx ? readback[i].x : maxx;
  }
  std::printf("clip-space x range [%.1f, %.1f]\n", minx, maxx);

  CHECK_CUDA(cudaEventDestroy(upload_free));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(d_out));
  CHECK_CUDA(cudaFree(d_in));
  CHECK_CUDA(cudaFreeHost(readback));
  CHECK_CUDA(cudaFreeHost(upload));
  return 0;
}
