// case: lidar voxel filter class (header) uploads its std::vector of points with cuMemcpyHtoDAsync (pageable, ~1.8 MB) and brings the keep mask back into cuMemHostAlloc(CU_MEMHOSTALLOC_WRITECOMBINED) memory, which main then reads to count kept points.
// expect: pageable_async_copy=1, write_combined_host_read=1
#include "voxel_filter.cuh"
#include <cmath>

// A synthetic 64-beam sweep, handed to the filter by reference.
static void synth_sweep(VoxelFilter& filter, int beams, int steps)
{
    for (int b = 0; b < beams; ++b) {
        float elev = -0.4f + 0.6f * b / (beams - 1);
        for (int s = 0; s < steps; ++s) {
            float az = 6.2831853f * s / steps;
            float range = 5.0f + 40.0f * ((b * 131 + s * 17) % 97) / 97.0f;
            filter.add_point(range * cosf(elev) * cosf(az), range * cosf(elev) * sinf(az),
                             1.8f + range * sinf(elev), (float)((b + s) % 255));
        }
    }
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    {
        VoxelFilter filter(1 << 17);
        synth_sweep(filter, 64, 1800); // 115200 points
        filter.run(0.2f);

        const uint8_t* keep = filter.keep_mask();
        size_t kept = 0;
        for (size_t i = 0; i < filter.size(); ++i)
            kept += keep[i]; // EXPECT: write_combined_host_read
        printf("voxel filter: kept %zu of %zu points\n", kept, filter.size());
    }

    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
