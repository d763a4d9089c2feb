// case: a denoising library translation unit exporting a C API; its copies use constant frame sizes but every pointer is a parameter of an exported function no code in the program calls
// expect: none
#include <cstddef>
#include <cuda_runtime.h>

#define FRAME_W 1280
#define FRAME_H 720
#define FRAME_BYTES (FRAME_W * FRAME_H * sizeof(float))

__global__ void box3x3(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f;
    int cnt = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int sx = x + dx, sy = y + dy;
            if (sx >= 0 && sy >= 0 && sx < w && sy < h) {
                acc += in[sy * w + sx];
                ++cnt;
            }
        }
    out[y * w + x] = acc / cnt;
}

extern "C" {

// Host frame -> device frame; both sides owned by the caller.
int dn_upload(float *dev_frame, const float *host_frame)
{
    cudaError_t e = cudaMemcpy(dev_frame, host_frame, FRAME_BYTES, cudaMemcpyHostToDevice);
    return e == cudaSuccess ? 0 : -1;
}

int dn_denoise(const float *dev_in, float *dev_out, cudaStream_t stream)
{
    dim3 block(32, 8);
    dim3 grid((FRAME_W + 31) / 32, (FRAME_H + 7) / 8);
    box3x3<<<grid, block, 0, stream>>>(dev_in, dev_out, FRAME_W, FRAME_H);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

int dn_download(float *host_frame, const float *dev_frame, cudaStream_t stream)
{
    if (cudaStreamSynchronize(stream) != cudaSuccess) return -1;
    cudaError_t e = cudaMemcpy(host_frame, dev_frame, FRAME_BYTES, cudaMemcpyDeviceToHost);
    return e == cudaSuccess ? 0 : -1;
}

int dn_clear(float *dev_frame)
{
    return cudaMemset(dev_frame, 0, FRAME_BYTES) == cudaSuccess ? 0 : -1;
}

size_t dn_frame_bytes(void) { return FRAME_BYTES; }

} // extern "C"
