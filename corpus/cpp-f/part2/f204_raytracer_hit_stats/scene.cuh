#pragma once
#include <cuda_runtime.h>
#include <vector>
#include <cstdio>
#include <cstdlib>

#define RT_CHECK(x) do { cudaError_t rc_ = (x); if (rc_ != cudaSuccess) { \
    fprintf(stderr, "rt: %s (%s)\n", #x, cudaGetErrorString(rc_)); std::exit(2); } } while (0)

struct Sphere {
    float3 center;
    float radius;
    float3 albedo;
    int material;
};

struct Ray {
    float3 o, d;
};

__device__ inline float3 operator-(float3 a, float3 b) { return make_float3(a.x - b.x, a.y - b.y, a.z - b.z); }
__device__ inline float dot3(float3 a, float3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__device__ inline float hit_sphere(const Sphere& s, const Ray& r) {
    float3 oc = r.o - s.center;
    float b = dot3(oc, r.d);
    float c = dot3(oc, oc) - s.radius * s.radius;
    float disc = b * b - c;
    return disc < 0.f ? -1.f : -b - sqrtf(disc);
}

class Scene {
public:
    explicit Scene(const std::vector<Sphere>& spheres) : count_((int)spheres.size()) {
        RT_CHECK(cudaMalloc(&d_spheres_, spheres.size() * sizeof(Sphere)));
        RT_CHECK(cudaMemcpy(d_spheres_, spheres.data(), spheres.size() * sizeof(Sphere),
                            cudaMemcpyHostToDevice));
    }
    ~Scene() { cudaFree(d_spheres_); }
    const Sphere* device_spheres() const { return d_spheres_; }
    int count() const { return count_; }

private:
    Sphere* d_spheres_ = nullptr;
    int count_;
};
