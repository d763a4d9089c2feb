// case: a video encoder front-end stages frames in write-combined pinned memory that the host only writes, and reads the motion-vector results from a separate cudaMallocHost buffer after synchronizing.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t err = (call); if (err != cudaSuccess) { \
    fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(err), __FILE__, __LINE__); abort(); } } while (0)

constexpr int W = 1920, H = 1080;
constexpr int MB = 16;
constexpr int MBX = W / MB, MBY = (H + MB - 1) / MB;

__global__ void block_sad(const uint8_t* cur, const uint8_t* ref, short2* mv, int w, int h) {
    int bx = blockIdx.x, by = blockIdx.y;
    int best = 1 << 30; short2 bestmv = make_short2(0, 0);
    for (int dy = -4; dy <= 4; ++dy)
        for (int dx = -4; dx <= 4; ++dx) {
            int sad = 0;
            for (int y = 0; y < MB; ++y)
                for (int x = 0; x < MB; ++x) {
                    int cx = min(bx * MB + x, w - 1), cy = min(by * MB + y, h - 1);
                    int rx = min(max(cx + dx, 0), w - 1), ry = min(max(cy + dy, 0), h - 1);
                    sad += abs(cur[cy * w + cx] - ref[ry * w + rx]);
                }
            if (sad < best) { best = sad; bestmv = make_short2(dx, dy); }
        }
    if (threadIdx.x == 0) mv[by * gridDim.x + bx] = bestmv;
}

static void synth_frame(uint8_t* dst, int frame) {
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            dst[y * W + x] = (uint8_t)((x + frame * 2) ^ (y * 3));
}

int main() {
    const size_t frameBytes = (size_t)W * H;
    uint8_t* h_frame = nullptr;
    short2* h_mv = nullptr;
    CUDA_CHECK(cudaHostAlloc((void**)&h_frame, frameBytes, cudaHostAllocWriteCombined));
    CUDA_CHECK(cudaMallocHost((void**)&h_mv, MBX * MBY * sizeof(short2)));

    uint8_t *d_cur, *d_ref;
    short2* d_mv;
    CUDA_CHECK(cudaMalloc(&d_cur, frameBytes));
    CUDA_CHECK(cudaMalloc(&d_ref, frameBytes));
    CUDA_CHECK(cudaMalloc(&d_mv, MBX * MBY * sizeof(short2)));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemsetAsync(d_ref, 0, frameBytes, s));

    long still_blocks = 0;
    for (int f = 0; f < 30; ++f) {
        synth_frame(h_frame, f);                       // host writes only
        CUDA_CHECK(cudaMemcpyAsync(d_cur, h_frame, frameBytes, cudaMemcpyHostToDevice, s));
        block_sad<<<dim3(MBX, MBY), 32, 0, s>>>(d_cur, d_ref, d_mv, W, H);
        CUDA_CHECK(cudaMemcpyAsync(h_mv, d_mv, MBX * MBY * sizeof(short2), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaMemcpyAsync(d_ref, d_cur, frameBytes, cudaMemcpyDeviceToDevice, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < MBX * MBY; ++i)
            still_blocks += (h_mv[i].x == 0 && h_mv[i].y == 0);
    }
    printf("static macroblocks over 30 frames: %ld\n", still_blocks);

    cudaFree(d_mv); cudaFree(d_ref); cudaFree(d_cur);
    cudaFreeHost(h_mv);
    cudaFreeHost(h_frame);
    cudaStreamDestroy(s);
    return 0;
}
