// case: A C-style path tracer allocates its host framebuffer with cudaHostAllocWriteCombined in init() and, after a correct synchronize, reads every pixel on the host to write a PPM: host reads of write-combined memory.
// expect: write_combined_host_read=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

#define WIDTH 1280
#define HEIGHT 720
#define SPP 16

static uchar4* g_d_frame = NULL;
static uchar4* g_h_frame = NULL;
static cudaStream_t g_stream;

__global__ void trace_kernel(uchar4* frame, int w, int h, int spp, unsigned seed)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned s = seed ^ ((unsigned)(y * w + x) * 9781u);
    float r = 0.f, g = 0.f, b = 0.f;
    for (int i = 0; i < spp; ++i) {
        s = s * 1664525u + 1013904223u;
        float u = (s & 0xffffu) / 65535.0f;
        r += u; g += 0.5f * u; b += 0.25f;
    }
    frame[y * w + x] = make_uchar4((unsigned char)(255.f * r / spp),
                                   (unsigned char)(255.f * g / spp),
                                   (unsigned char)(255.f * b / spp), 255);
}

static void init(void)
{
    size_t bytes = (size_t)WIDTH * HEIGHT * sizeof(uchar4);
    CUDA_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc((void**)&g_d_frame, bytes));
    /* "fast transfers": the readback buffer is write-combined */
    CUDA_CHECK(cudaHostAlloc((void**)&g_h_frame, bytes, cudaHostAllocWriteCombined));
}

static void render(unsigned frame_index)
{
    dim3 block(16, 16);
    dim3 grid((WIDTH + 15) / 16, (HEIGHT + 15) / 16);
    trace_kernel<<<grid, block, 0, g_stream>>>(g_d_frame, WIDTH, HEIGHT, SPP, frame_index);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(g_h_frame, g_d_frame, (size_t)WIDTH * HEIGHT * sizeof(uchar4),
                               cudaMemcpyDeviceToHost, g_stream));
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
}

static int write_ppm(const char* path)
{
    FILE* f = fopen(path, "wb");
    if (!f) return -1;
    fprintf(f, "P6\n%d %d\n255\n", WIDTH, HEIGHT);
    for (int i = 0; i < WIDTH * HEIGHT; ++i) {
        uchar4 p = g_h_frame[i]; // EXPECT: write_combined_host_read
        fputc(p.x, f);
        fputc(p.y, f);
        fputc(p.z, f);
    }
    fclose(f);
    return 0;
}

static void shutdown(void)
{
    CUDA_CHECK(cudaFreeHost(g_h_frame));
    CUDA_CHECK(cudaFree(g_d_frame));
    CUDA_CHECK(cudaStreamDestroy(g_stream));
}

int main(void)
{
    init();
    render(1u);
    if (write_ppm("frame0001.ppm") != 0) {
        fprintf(stderr, "cannot write frame\n");
    }
    shutdown();
    return 0;
}
