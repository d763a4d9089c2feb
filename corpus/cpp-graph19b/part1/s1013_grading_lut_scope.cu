// Colour grading stage of a video pipeline. The graph for one frame uploads the 3D LUT (so that
// a colourist's edits of the pinned table show up on the next frame), uploads the frame, grades
// it with trilinear LUT lookups and downloads the result. build_grade_graph() keeps the LUT in a
// local RAII pinned buffer: its destructor releases the table when the function returns, while
// the graph it returns re-reads the table at every launch.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

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
constexpr int kWidth = 3840;
constexpr int kHeight = 2160;

template <typename T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(size_t count) : count_(count) { CUDA_CHECK(cudaMallocHost(&ptr_, count * sizeof(T))); }
  ~PinnedBuffer() { CUDA_CHECK(cudaFreeHost(ptr_)); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  T* data() { return ptr_; }
  size_t bytes() const { return count_ * sizeof(T); }
  T& operator[](size_t i) { return ptr_[i]; }

 private:
  T* ptr_ = nullptr;
  size_t count_;
};

__device__ inline float4 lut_at(const float4* lut, int r, int g, int b) {
  return lut[(b * kLutSize + g) * kLutSize + r];
}

__global__ void apply_lut(const uchar4* in, uchar4* out, const float4* lut, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uchar4 p = in[i];
  float fr = p.x * (kLutSize - 1) / 255.0f, fg = p.y * (kLutSize - 1) / 255.0f, fb = p.z * (kLutSize - 1) / 255.0f;
  int r = min(int(fr), kLutSize - 2), g = min(int(fg), kLutSize - 2), b = min(int(fb), kLutSize - 2);
  float dr = fr - r, dg = fg - g, db = fb - b;
  float4 c000 = lut_at(lut, r, g, b), c100 = lut_at(lut, r + 1, g, b);
  float4 c010 = lut_at(lut, r, g + 1, b), c001 = lut_at(lut, r, g, b + 1);
  // First-order (tetrahedral-free) approximation of the trilinear lookup.
  float ro = c000.x + dr * (c100.x - c000.x) + dg * (c010.x - c000.x) + db * (c001.x - c000.x);
  float go = c000.y + dr * (c100.y - c000.y) + dg * (c010.y - c000.y) + db * (c001.y - c000.y);
  float bo = c000.z + dr * (c100.z - c000.z) + dg * (c010.z - c000.z) + db * (c001.z - c000.z);
  out[i] = uchar4{(unsigned char)fminf(255.0f, ro * 255.0f), (unsigned char)fminf(255.0f, go * 255.0f),
                  (unsigned char)fminf(255.0f, bo * 255.0f), p.w};
}

// A "teal and orange" look: warm highlights, cool shadows.
static void bake_look(float* lut) {
  for (int b = 0; b < kLutSize; ++b)
    for (int g = 0; g < kLutSize; ++g)
      for (int r = 0; r < kLutSize; ++r) {
        float* c = lut + 4 * ((b * kLutSize + g) * kLutSize + r);
        float l = (0.3f * r + 0.6f * g + 0.1f * b) / (kLutSize - 1);
        c[0] = std::fmin(1.0f, r / float(kLutSize - 1) + 0.08f * l);
        c[1] = g / float(kLutSize - 1);
        c[2] = std::fmin(1.0f, b / float(kLutSize - 1) + 0.08f * (1.0f - l));
        c[3] = 1.0f;
      }
}

struct FrameBuffers {
  uchar4* h_in = nullptr;   // pinned, written by the decoder
  uchar4* h_out = nullptr;  // pinned, read by the encoder
  uchar4* d_in = nullptr;
  uchar4* d_out = nullptr;
  float4* d_lut = nullptr;
};

static cudaGraphExec_t build_grade_graph(const FrameBuffers& fb, cudaStream_t s) {
  PinnedBuffer<float> lut(kLutFloats);
  bake_look(lut.data());

  const int n = kWidth * kHeight;
  const size_t frame_bytes = sizeof(uchar4) * n;
  cudaGraph_t g;
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_CHECK(cudaMemcpyAsync(fb.d_lut, lut.data(), lut.bytes(), cudaMemcpyHostToDevice, s));
  CUDA_CHECK(cudaMemcpyAsync(fb.d_in, fb.h_in, frame_bytes, cudaMemcpyHostToDevice, s));
  apply_lut<<<(n + 255) / 256, 256, 0, s>>>(fb.d_in, fb.d_out, fb.d_lut, n);
  CUDA_CHECK(cudaMemcpyAsync(fb.h_out, fb.d_out, frame_bytes, cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamEndCapture(s, &g));

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
  CUDA_CHECK(cudaGraphDestroy(g));
  return exec;
}  // ~PinnedBuffer: cudaFreeHost(lut)

static void decode_frame(uchar4* dst, int index) {
  for (int i = 0; i < kWidth * kHeight; ++i) {
    unsigned char v = static_cast<unsigned char>((i % kWidth + index) & 0xFF);
    dst[i] = uchar4{v, static_cast<unsigned char>(255 - v), static_cast<unsigned char>(v / 2), 255};
  }
}

int main() {
  const int n = kWidth * kHeight;
  const size_t frame_bytes = sizeof(uchar4) * n;
  FrameBuffers fb;
  CUDA_CHECK(cudaMallocHost(&fb.h_in, frame_bytes));
  CUDA_CHECK(cudaMallocHost(&fb.h_out, frame_bytes));
  CUDA_CHECK(cudaMalloc(&fb.d_in, frame_bytes));
  CUDA_CHECK(cudaMalloc(&fb.d_out, frame_bytes));
  CUDA_CHECK(cudaMalloc(&fb.d_lut, kLutFloats * sizeof(float)));

  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraphExec_t grade = build_grade_graph(fb, s);

  unsigned long long luma_total = 0;
  for (int frame = 0; frame < 48; ++frame) {
    decode_frame(fb.h_in, frame);
    CUDA_CHECK(cudaGraphLaunch(grade, s));  // EXPECT: graph_uses_freed_memory
    CUDA_CHECK(cudaStreamSynchronize(s));
    luma_total += fb.h_out[n / 2].y;  // the "encoder" samples the graded frame
  }
  std::printf("sampled luma total %llu\n", luma_total);

  CUDA_CHECK(cudaGraphExecDestroy(grade));
  CUDA_CHECK(cudaFree(fb.d_lut));
  CUDA_CHECK(cudaFree(fb.d_out));
  CUDA_CHECK(cudaFree(fb.d_in));
  CUDA_CHECK(cudaFreeHost(fb.h_out));
  CUDA_CHECK(cudaFreeHost(fb.h_in));
  CUDA_CHECK(cudaStreamDestroy(s));
  return 0;
}
