// case: a ray-marcher uploads its 112-byte camera struct from the stack with cudaMemcpyAsync (a copy far below 64 KiB) and moves the large image through pinned memory, synchronizing before the host reads it
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct Camera {
    float origin[3];
    float forward[3];
    float right[3];
    float up[3];
    float fov;
    float aspect;
    int width;
    int height;
    int max_steps;
    float epsilon;
    float pad[10];
};

__global__ void march_spheres(const Camera* cam, float* depth) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= cam->width || y >= cam->height) return;
    float u = (2.f * x / cam->width - 1.f) * cam->fov * cam->aspect;
    float v = (2.f * y / cam->height - 1.f) * cam->fov;
    float d[3], p[3];
    for (int k = 0; k < 3; ++k) d[k] = cam->forward[k] + u * cam->right[k] + v * cam->up[k];
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    float t = 0.f;
    for (int s = 0; s < cam->max_steps; ++s) {
        for (int k = 0; k < 3; ++k) p[k] = cam->origin[k] + t * d[k] / len;
        float dist = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - 1.f;
        if (dist < cam->epsilon) break;
        t += dist;
    }
    depth[y * cam->width + x] = t;
}

int main() {
    Camera cam = {{0.f, 0.f, -4.f}, {0.f, 0.f, 1.f}, {1.f, 0.f, 0.f}, {0.f, 1.f, 0.f},
                  0.6f, 16.f / 9.f, 1920, 1080, 96, 1e-4f, {0}};
    const size_t img_bytes = (size_t)cam.width * cam.height * sizeof(float);

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    Camera* d_cam;
    float *d_depth, *h_depth;
    CUDA_CHECK(cudaMalloc(&d_cam, sizeof(Camera)));
    CUDA_CHECK(cudaMalloc(&d_depth, img_bytes));
    CUDA_CHECK(cudaMallocHost(&h_depth, img_bytes));

    CUDA_CHECK(cudaMemcpyAsync(d_cam, &cam, sizeof(Camera), cudaMemcpyHostToDevice, s));
    dim3 block(16, 16), grid((cam.width + 15) / 16, (cam.height + 15) / 16);
    march_spheres<<<grid, block, 0, s>>>(d_cam, d_depth);
    CUDA_CHECK(cudaMemcpyAsync(h_depth, d_depth, img_bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));

    int hits = 0;
    for (int i = 0; i < cam.width * cam.height; ++i) hits += h_depth[i] < 10.f;
    printf("%d of %d rays hit the sphere\n", hits, cam.width * cam.height);

    CUDA_CHECK(cudaFreeHost(h_depth));
    CUDA_CHECK(cudaFree(d_depth));
    CUDA_CHECK(cudaFree(d_cam));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
