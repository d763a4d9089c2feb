// Deinterlacer of a broadcast ingest pipeline with double-buffered pinned staging: two graphs,
// one per staging slot, each uploading its slot's interlaced field pair, weaving/bobbing it into
// a progressive frame and downloading that into the slot's output. While slot A's graph runs,
// the host fills slot B; before a slot is refilled the host waits for the event recorded behind
// that slot's last launch, and only then reads its output and overwrites its input.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t rc_ = (call);                                                    \
    if (rc_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "ingest: %s: %s\n", #call, cudaGetErrorString(rc_));  \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

constexpr int kW = 1920;
constexpr int kH = 1080;
constexpr int kPixels = kW * kH;

// Motion-adaptive deinterlace: keep the woven line where the two fields agree, otherwise
// interpolate the line from its neighbours in the same field.
__global__ void deinterlace(const uint8_t* interlaced, uint8_t* progressive, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uint8_t woven = interlaced[y * w + x];
  if ((y & 1) == 0 || y + 1 >= h) {
    progressive[y * w + x] = woven;
    return;
  }
  int above = interlaced[(y - 1) * w + x], below = interlaced[(y + 1) * w + x];
  int bob = (above + below) / 2;
  progressive[y * w + x] = abs(int(woven) - bob) > 20 ? uint8_t(bob) : woven;
}

struct Slot {
  uint8_t* h_in = nullptr;   // pinned
  uint8_t* h_out = nullptr;  // pinned
  cudaGraphExec_t exec = nullptr;
  cudaEvent_t done = nullptr;
  int frame = -1;            // frame index in flight in this slot, -1 when idle
};

static void capture_ingest(Slot& slot, uint8_t* d_in, uint8_t* d_out, cudaStream_t s) {
  const dim3 blk(32, 8), grd((kW + 31) / 32, (kH + 7) / 8);
  cudaGraph_t g;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemcpyAsync(d_in, slot.h_in, kPixels, cudaMemcpyHostToDevice, s));
  deinterlace<<<grd, blk, 0, s>>>(d_in, d_out, kW, kH);
  CHECK(cudaMemcpyAsync(slot.h_out, d_out, kPixels, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&slot.exec, g, 0));
  CHECK(cudaGraphDestroy(g));
}

static void read_field_pair(uint8_t* dst, int index) {
  for (int i = 0; i < kPixels; ++i) dst[i] = static_cast<uint8_t>((i / kW) * 3 + index + ((i / kW) & 1) * 7);
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  uint8_t *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, kPixels));
  CHECK(cudaMalloc(&d_out, kPixels));

  Slot slots[2];
  for (Slot& slot : slots) {
    CHECK(cudaMallocHost(&slot.h_in, kPixels));
    CHECK(cudaMallocHost(&slot.h_out, kPixels));
    CHECK(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming));
    capture_ingest(slot, d_in, d_out, s);
  }

  std::vector<uint32_t> frame_sums;
  const int frames = 100;
  for (int f = 0; f < frames; ++f) {
    Slot& slot = slots[f & 1];
    if (slot.frame >= 0) {
      CHECK(cudaEventSynchronize(slot.done));
      uint32_t sum = 0;
      for (int i = 0; i < kPixels; i += 256) sum += slot.h_out[i];
      frame_sums.push_back(sum);
    }
    read_field_pair(slot.h_in, f);
    CHECK(cudaGraphLaunch(slot.exec, s));
    CHECK(cudaEventRecord(slot.done, s));
    slot.frame = f;
  }
  for (Slot& slot : slots) {
    if (slot.frame < 0) continue;
    CHECK(cudaEventSynchronize(slot.done));
    uint32_t sum = 0;
    for (int i = 0; i < kPixels; i += 256) sum += slot.h_out[i];
    frame_sums.push_back(sum);
  }
  std::printf("%zu progressive frames\n", frame_sums.size());

  CHECK(cudaStreamSynchronize(s));
  for (Slot& slot : slots) {
    CHECK(cudaGraphExecDestroy(slot.exec));
    CHECK(cudaEventDestroy(slot.done));
    CHECK(cudaFreeHost(slot.h_out));
    CHECK(cudaFreeHost(slot.h_in));
  }
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_in));
  CHECK(cudaStreamDestroy(s));
  return 0;
}
