// case: A video encoder's motion search page-locks its std::vector frame and motion-vector buffers with cudaHostRegister, copies asynchronously on a non-blocking stream, synchronizes before every host read or refill, and unregisters before the vectors die.
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

constexpr int kW = 1920, kH = 1080, kMb = 16;
constexpr int kMbX = kW / kMb, kMbY = (kH + kMb - 1) / kMb;

__global__ void block_match(const uint8_t* cur, const uint8_t* ref, short2* mvs, int w, int h)
{
    int mbx = blockIdx.x, mby = blockIdx.y;
    if (threadIdx.x != 0) return;
    int best = 1 << 30; short2 best_mv = make_short2(0, 0);
    for (int dy = -4; dy <= 4; ++dy)
        for (int dx = -4; dx <= 4; ++dx) {
            int sad = 0;
            for (int y = 0; y < kMb; ++y)
                for (int x = 0; x < kMb; ++x) {
                    int cx = mbx * kMb + x, cy = min(mby * kMb + y, h - 1);
                    int rx = min(max(cx + dx, 0), w - 1), ry = min(max(cy + dy, 0), h - 1);
                    sad += abs((int)cur[cy * w + cx] - (int)ref[ry * w + rx]);
                }
            if (sad < best) { best = sad; best_mv = make_short2(dx, dy); }
        }
    mvs[mby * kMbX + mbx] = best_mv;
}

int main()
{
    std::vector<uint8_t> frame((size_t)kW * kH);
    std::vector<short2> mvs((size_t)kMbX * kMbY);
    CUDA_CHECK(cudaHostRegister(frame.data(), frame.size(), cudaHostRegisterDefault));
    CUDA_CHECK(cudaHostRegister(mvs.data(), mvs.size() * sizeof(short2), cudaHostRegisterDefault));

    uint8_t *d_cur, *d_ref;
    short2* d_mvs;
    CUDA_CHECK(cudaMalloc(&d_cur, frame.size()));
    CUDA_CHECK(cudaMalloc(&d_ref, frame.size()));
    CUDA_CHECK(cudaMalloc(&d_mvs, mvs.size() * sizeof(short2)));
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMemsetAsync(d_ref, 0, frame.size(), s));

    for (int n = 0; n < 30; ++n) {
        for (size_t i = 0; i < frame.size(); ++i) frame[i] = (uint8_t)((i % kW) + 3 * n); // previous copy finished below
        CUDA_CHECK(cudaMemcpyAsync(d_cur, frame.data(), frame.size(), cudaMemcpyHostToDevice, s));
        block_match<<<dim3(kMbX, kMbY), 32, 0, s>>>(d_cur, d_ref, d_mvs, kW, kH);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaMemcpyAsync(mvs.data(), d_mvs, mvs.size() * sizeof(short2), cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaMemcpyAsync(d_ref, d_cur, frame.size(), cudaMemcpyDeviceToDevice, s));
        CUDA_CHECK(cudaStreamSynchronize(s));

        long moving = 0;
        for (const short2& mv : mvs) moving += (mv.x != 0 || mv.y != 0);
        std::printf("frame %d: %ld moving macroblocks\n", n, moving);
    }

    CUDA_CHECK(cudaHostUnregister(mvs.data()));
    CUDA_CHECK(cudaHostUnregister(frame.data()));
    CUDA_CHECK(cudaFree(d_mvs));
    CUDA_CHECK(cudaFree(d_ref));
    CUDA_CHECK(cudaFree(d_cur));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
