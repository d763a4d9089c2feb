// case: upload, compute and download run on three streams chained with cudaEventRecord/cudaStreamWaitEvent; the host does bookkeeping while polling cudaEventQuery on the event recorded after the download until it reports completion, and reads the pinned result only after that, so the code is correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                 \
    do {                                                                         \
        cudaError_t e_ = (call);                                                 \
        if (e_ != cudaSuccess) {                                                 \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            return 1;                                                            \
        }                                                                        \
    } while (0)

constexpr int kW = 4096;
constexpr int kH = 4096;

__global__ void sobel_mag(const unsigned char* img, float* mag, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) {
        if (x < w && y < h) mag[y * w + x] = 0.f;
        return;
    }
    auto p = [&](int dx, int dy) { return float(img[(y + dy) * w + (x + dx)]); };
    float gx = -p(-1, -1) - 2 * p(-1, 0) - p(-1, 1) + p(1, -1) + 2 * p(1, 0) + p(1, 1);
    float gy = -p(-1, -1) - 2 * p(0, -1) - p(1, -1) + p(-1, 1) + 2 * p(0, 1) + p(1, 1);
    mag[y * w + x] = sqrtf(gx * gx + gy * gy);
}

static long housekeeping(long t) { return (t * 1103515245 + 12345) & 0x7fffffff; }

int main() {
    const size_t npx = size_t(kW) * kH;
    unsigned char *h_img, *d_img;
    float *h_mag, *d_mag;
    CK(cudaMallocHost(&h_img, npx));
    CK(cudaMallocHost(&h_mag, npx * sizeof(float)));
    CK(cudaMalloc(&d_img, npx));
    CK(cudaMalloc(&d_mag, npx * sizeof(float)));
    for (size_t i = 0; i < npx; ++i) h_img[i] = (unsigned char)((i / kW + i % kW) & 0xff);

    cudaStream_t up, comp, down;
    CK(cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&comp, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&down, cudaStreamNonBlocking));
    cudaEvent_t ev_up, ev_comp, ev_down;
    CK(cudaEventCreateWithFlags(&ev_up, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&ev_comp, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&ev_down, cudaEventDisableTiming));

    CK(cudaMemcpyAsync(d_img, h_img, npx, cudaMemcpyHostToDevice, up));
    CK(cudaEventRecord(ev_up, up));
    CK(cudaStreamWaitEvent(comp, ev_up, 0));
    dim3 block(32, 8), grid(kW / 32, kH / 8);
    sobel_mag<<<grid, block, 0, comp>>>(d_img, d_mag, kW, kH);
    CK(cudaGetLastError());
    CK(cudaEventRecord(ev_comp, comp));
    CK(cudaStreamWaitEvent(down, ev_comp, 0));
    CK(cudaMemcpyAsync(h_mag, d_mag, npx * sizeof(float), cudaMemcpyDeviceToHost, down));
    CK(cudaEventRecord(ev_down, down));

    long token = 1, spins = 0;
    cudaError_t q;
    while ((q = cudaEventQuery(ev_down)) == cudaErrorNotReady) {
        token = housekeeping(token);
        ++spins;
    }
    if (q != cudaSuccess) {
        fprintf(stderr, "pipeline failed: %s\n", cudaGetErrorString(q));
        return 1;
    }

    double edge_energy = 0.0;
    for (size_t i = 0; i < npx; ++i) edge_energy += h_mag[i];
    printf("edge energy %.1f after %ld polls (token %ld)\n", edge_energy, spins, token);

    CK(cudaEventDestroy(ev_up));
    CK(cudaEventDestroy(ev_comp));
    CK(cudaEventDestroy(ev_down));
    CK(cudaStreamDestroy(up));
    CK(cudaStreamDestroy(comp));
    CK(cudaStreamDestroy(down));
    CK(cudaFree(d_img));
    CK(cudaFree(d_mag));
    CK(cudaFreeHost(h_img));
    CK(cudaFreeHost(h_mag));
    return 0;
}
