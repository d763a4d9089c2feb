// case: A ray tracer's Renderer keeps a cudaMalloc'd per-sphere hit counter as a member and its hit_histogram() method sums it on the host by indexing the device pointer directly (the image itself is copied back correctly with cudaMemcpy).
// expect: host_deref_device_ptr=1
#include "scene.cuh"

__global__ void trace_primary(const Sphere* spheres, int n_spheres, uchar4* image,
                              unsigned* hits_per_sphere, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    Ray r;
    r.o = make_float3(0.f, 0.f, -5.f);
    float u = (2.f * x / width - 1.f), v = (2.f * y / height - 1.f);
    float inv = rsqrtf(u * u + v * v + 1.f);
    r.d = make_float3(u * inv, v * inv, inv);
    float best = 1e30f;
    int best_i = -1;
    for (int i = 0; i < n_spheres; ++i) {
        float t = hit_sphere(spheres[i], r);
        if (t > 0.f && t < best) { best = t; best_i = i; }
    }
    uchar4 c = make_uchar4(20, 20, 30, 255);
    if (best_i >= 0) {
        float3 a = spheres[best_i].albedo;
        c = make_uchar4((unsigned char)(255 * a.x), (unsigned char)(255 * a.y), (unsigned char)(255 * a.z), 255);
        atomicAdd(&hits_per_sphere[best_i], 1u);
    }
    image[y * width + x] = c;
}

class Renderer {
public:
    Renderer(const Scene& scene, int w, int h) : scene_(scene), w_(w), h_(h) {
        RT_CHECK(cudaMalloc(&d_image_, size_t(w) * h * sizeof(uchar4)));
        RT_CHECK(cudaMalloc(&d_hits_, scene.count() * sizeof(unsigned)));
    }
    ~Renderer() {
        cudaFree(d_image_);
        cudaFree(d_hits_);
    }

    void render(std::vector<uchar4>& out) {
        RT_CHECK(cudaMemset(d_hits_, 0, scene_.count() * sizeof(unsigned)));
        dim3 block(16, 16), grid((w_ + 15) / 16, (h_ + 15) / 16);
        trace_primary<<<grid, block>>>(scene_.device_spheres(), scene_.count(), d_image_, d_hits_, w_, h_);
        out.resize(size_t(w_) * h_);
        RT_CHECK(cudaMemcpy(out.data(), d_image_, out.size() * sizeof(uchar4), cudaMemcpyDeviceToHost));
    }

    unsigned long long hit_histogram(std::vector<unsigned>& per_sphere) const {
        per_sphere.resize(scene_.count());
        unsigned long long total = 0;
        for (int i = 0; i < scene_.count(); ++i) {
            per_sphere[i] = d_hits_[i];          // reads device memory through a host pointer
            total += per_sphere[i];
        }
        return total;
    }

private:
    const Scene& scene_;
    int w_, h_;
    uchar4* d_image_ = nullptr;
    unsigned* d_hits_ = nullptr;
};

int main() {
    std::vector<Sphere> spheres;
    for (int i = 0; i < 64; ++i)
        spheres.push_back({make_float3(-3.f + 0.1f * i, 0.05f * i - 1.f, 2.f + 0.03f * i), 0.3f,
                           make_float3(0.2f + 0.01f * i, 0.5f, 0.8f - 0.01f * i), i % 3});
    Scene scene(spheres);
    Renderer renderer(scene, 1920, 1080);
    std::vector<uchar4> frame;
    renderer.render(frame);
    std::vector<unsigned> per_sphere;
    unsigned long long total = renderer.hit_histogram(per_sphere);
    printf("frame %zu px, %llu primary hits\n", frame.size(), total);
    return 0;
}
