// Colour grading stage of a video pipeline with a ring of three pinned frame slots: one graph
// per slot uploads the 3D LUT and that slot's frame, grades it and downloads into the slot's
// output. The host refills a slot only after waiting for the event recorded behind that slot's
// last launch. The LUT lives in main's scope; the graphs are held by an object declared after
// it, whose destructor waits for the stream and destroys them before the LUT is released.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "grade: %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(3);                                                                    \
    }                                                                                  \
  } while (0)

constexpr int kLutSize = 33;
constexpr size_t kLutFloats = size_t(kLutSize) * kLutSize * kLutSize * 4;
constexpr int kWidth = 1920;
constexpr int kHeight = 1080;
constexpr int kRing = 3;

template <typename T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t count) : count_(count) { CUDA_CHECK(cudaMallocHost(&ptr_, count * sizeof(T))); }
  ~PinnedBuffer() { CUDA_CHECK(cudaFreeHost(ptr_)); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* data() { return ptr_; }
  size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  size_t count_;
};

// The executable graphs of the ring; destroyed once the stream has drained.
struct RingGraphs {
  explicit RingGraphs(cudaStream_t stream) : s(stream) {}
  ~RingGraphs() {
    CUDA_CHECK(cudaStreamSynchronize(s));
    for (int k = 0; k < kRing; ++k) CUDA_CHECK(cudaGraphExecDestroy(exec[k]));
  }
  cudaStream_t s;
  cudaGraphExec_t exec[kRing] = {};
};

__global__ void apply_lut_nearest(const uchar4* in, uchar4* out, const float4* lut, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 p = in[i];
  int r = (p.x * (kLutSize - 1) + 127) / 255, g = (p.y * (kLutSize - 1) + 127) / 255, b = (p.z * (kLutSize - 1) + 127) / 255;
  float4 c = lut[(b * kLutSize + g) * kLutSize + r];
  out[i] = uchar4{(unsigned char)(c.x * 255.0f), (unsigned char)(c.y * 255.0f), (unsigned char)(c.z * 255.0f), p.w};
}

static void bake_bleach_bypass(float* lut) {
  for (int b = 0; b < kLutSize; ++b)
    for (int g = 0; g < kLutSize; ++g)
      for (int r = 0; r < kLutSize; ++r) {
        float* c = lut + 4 * ((b * kLutSize + g) * kLutSize + r);
        float l = (0.3f * r + 0.6f * g + 0.1f * b) / (kLutSize - 1);
        c[0] = 0.5f * (r / float(kLutSize - 1)) + 0.5f * l;
        c[1] = 0.5f * (g / float(kLutSize - 1)) + 0.5f * l;
        c[2] = 0.5f * (b / float(kLutSize - 1)) + 0.5f * l;
        c[3] = 1.0f;
      }
}

static void decode_into(uchar4* dst, int index) {
  for (int i = 0; i < kWidth * kHeight; ++i) {
    unsigned char v = static_cast<unsigned char>((i / kWidth + 2 * index) & 0xFF);
    dst[i] = uchar4{v, v, static_cast<unsigned char>(255 - v), 255};
  }
}

int main() {
  const int n = kWidth * kHeight;
  const size_t frame_bytes = sizeof(uchar4) * n;

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  uchar4 *d_in, *d_out;
  float4* d_lut;
  CUDA_CHECK(cudaMalloc(&d_in, frame_bytes));
  CUDA_CHECK(cudaMalloc(&d_out, frame_bytes));
  CUDA_CHECK(cudaMalloc(&d_lut, kLutFloats * sizeof(float)));

  uchar4* h_in[kRing];
  uchar4* h_out[kRing];
  cudaEvent_t done[kRing];
  for (int k = 0; k < kRing; ++k) {
    CUDA_CHECK(cudaMallocHost(&h_in[k], frame_bytes));
    CUDA_CHECK(cudaMallocHost(&h_out[k], frame_bytes));
    CUDA_CHECK(cudaEventCreateWithFlags(&done[k], cudaEventDisableTiming));
  }

  long long checksum = 0;
  {
    PinnedBuffer<float> lut(kLutFloats);
    bake_bleach_bypass(lut.data());
    RingGraphs graphs(s);

    for (int k = 0; k < kRing; ++k) {
      cudaGraph_t g;
      CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      CUDA_CHECK(cudaMemcpyAsync(d_lut, lut.data(), lut.bytes(), cudaMemcpyHostToDevice, s));
      CUDA_CHECK(cudaMemcpyAsync(d_in, h_in[k], frame_bytes, cudaMemcpyHostToDevice, s));
      apply_lut_nearest<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, d_lut, n);
      CUDA_CHECK(cudaMemcpyAsync(h_out[k], d_out, frame_bytes, cudaMemcpyDeviceToHost, s));
      CUDA_CHECK(cudaStreamEndCapture(s, &g));
      CUDA_CHECK(cudaGraphInstantiate(&graphs.exec[k], g, 0));
      CUDA_CHECK(cudaGraphDestroy(g));
    }

    const int frames = 90;
    for (int f = 0; f < frames + kRing; ++f) {
      const int k = f % kRing;
      if (f >= kRing) {
        CUDA_CHECK(cudaEventSynchronize(done[k]));  // the slot's previous frame is graded and back
        checksum += h_out[k][n / 3].x;
      }
      if (f < frames) {
        decode_into(h_in[k], f);
        CUDA_CHECK(cudaGraphLaunch(graphs.exec[k], s));
        CUDA_CHECK(cudaEventRecord(done[k], s));
      }
    }
  }  // ~RingGraphs waits for the stream and destroys the graphs, then ~PinnedBuffer frees the LUT

  std::printf("checksum %lld\n", checksum);
  for (int k = 0; k < kRing; ++k) {
    CUDA_CHECK(cudaEventDestroy(done[k]));
    CUDA_CHECK(cudaFreeHost(h_out[k]));
    CUDA_CHECK(cudaFreeHost(h_in[k]));
  }
  CUDA_CHECK(cudaFree(d_lut));
  CUDA_CHECK(cudaFree(d_out));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
