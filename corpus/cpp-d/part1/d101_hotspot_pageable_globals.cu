// case: Rodinia-style hotspot port with C globals set up in init(): the temperature grid and the result grid are malloc'd and moved with cudaMemcpyAsync (4 MiB each, pageable), while the power grid was pinned; reading the pageable result right after its device-to-host cudaMemcpyAsync is not a race, since that call returns only once a copy to pageable memory is done.
// expect: pageable_async_copy=2
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t err_ = (call);                                               \
        if (err_ != cudaSuccess) {                                               \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                   \
                    cudaGetErrorString(err_));                                   \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

#define BLOCK_SIDE 16
#define AMB_TEMP 80.0f

/* grid state shared by init(), run() and cleanup() */
static int g_rows, g_cols;
static size_t g_bytes;
static float *h_temp, *h_power, *h_result;
static float *d_temp_src, *d_temp_dst, *d_power;
static cudaStream_t g_stream;

__global__ void hotspot_step(const float* power, const float* t_in, float* t_out, int rows,
                             int cols, float cap, float rx, float ry, float rz, float step)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols) return;
    int idx = r * cols + c;
    float t = t_in[idx];
    float n = t_in[(r > 0 ? r - 1 : r) * cols + c];
    float s = t_in[(r < rows - 1 ? r + 1 : r) * cols + c];
    float w = t_in[r * cols + (c > 0 ? c - 1 : c)];
    float e = t_in[r * cols + (c < cols - 1 ? c + 1 : c)];
    t_out[idx] = t + step / cap *
                         (power[idx] + (s + n - 2.0f * t) * ry + (e + w - 2.0f * t) * rx +
                          (AMB_TEMP - t) * rz);
}

static void init(void)
{
    g_rows = 1024;
    g_cols = 1024;
    g_bytes = (size_t)g_rows * g_cols * sizeof(float);

    h_temp = (float*)malloc(g_bytes);
    h_result = (float*)malloc(g_bytes);
    CUDA_CHECK(cudaMallocHost((void**)&h_power, g_bytes));
    if (!h_temp || !h_result) {
        fprintf(stderr, "out of host memory\n");
        exit(EXIT_FAILURE);
    }
    for (int i = 0; i < g_rows * g_cols; ++i) {
        h_temp[i] = 323.0f + (float)(i % 7) * 0.1f;
        h_power[i] = (float)(i % 13) * 0.001f;
    }

    CUDA_CHECK(cudaMalloc((void**)&d_temp_src, g_bytes));
    CUDA_CHECK(cudaMalloc((void**)&d_temp_dst, g_bytes));
    CUDA_CHECK(cudaMalloc((void**)&d_power, g_bytes));
    CUDA_CHECK(cudaStreamCreate(&g_stream));
}

static double run(int iterations)
{
    CUDA_CHECK(cudaMemcpyAsync(d_temp_src, h_temp, g_bytes, cudaMemcpyHostToDevice, g_stream)); // EXPECT: pageable_async_copy
    CUDA_CHECK(cudaMemcpyAsync(d_power, h_power, g_bytes, cudaMemcpyHostToDevice, g_stream));

    dim3 block(BLOCK_SIDE, BLOCK_SIDE);
    dim3 grid((g_cols + BLOCK_SIDE - 1) / BLOCK_SIDE, (g_rows + BLOCK_SIDE - 1) / BLOCK_SIDE);
    const float chip = 0.016f;
    const float grid_w = chip / g_cols, grid_h = chip / g_rows;
    const float cap = 0.5f * 1.75e6f * 0.0005f * grid_w * grid_h;
    const float rx = grid_w / (2.0f * 100.0f * 0.0005f * grid_h);
    const float ry = grid_h / (2.0f * 100.0f * 0.0005f * grid_w);
    const float rz = 0.0005f / (grid_h * grid_w);

    for (int i = 0; i < iterations; ++i) {
        hotspot_step<<<grid, block, 0, g_stream>>>(d_power, d_temp_src, d_temp_dst, g_rows, g_cols,
                                                   cap, rx, ry, rz, 0.001f);
        float* tmp = d_temp_src;
        d_temp_src = d_temp_dst;
        d_temp_dst = tmp;
    }
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpyAsync(h_result, d_temp_src, g_bytes, cudaMemcpyDeviceToHost, g_stream)); // EXPECT: pageable_async_copy

    /* pageable destination: the call above returned after the copy completed */
    double sum = 0.0;
    for (int i = 0; i < g_rows * g_cols; ++i)
        sum += h_result[i];
    return sum / (g_rows * g_cols);
}

static void cleanup(void)
{
    CUDA_CHECK(cudaStreamSynchronize(g_stream));
    CUDA_CHECK(cudaFree(d_temp_src));
    CUDA_CHECK(cudaFree(d_temp_dst));
    CUDA_CHECK(cudaFree(d_power));
    CUDA_CHECK(cudaFreeHost(h_power));
    free(h_temp);
    free(h_result);
    CUDA_CHECK(cudaStreamDestroy(g_stream));
}

int main(void)
{
    init();
    double mean = run(60);
    printf("hotspot: mean temperature after 60 steps = %.4f K\n", mean);
    cleanup();
    return 0;
}
