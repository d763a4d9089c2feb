// case: a robot's DepthPipeline (header) double-buffers depth frames in two managed allocations; after launching the bilateral filter on the front frame, it converts the next raw frame into the back frame, a host write to managed memory the running kernel does not use.
// expect: managed_concurrent_access=1
#include "sensor_frames.cuh"

static std::vector<uint16_t> fake_depth_mm(int w, int h, int frame) {
    std::vector<uint16_t> raw(static_cast<size_t>(w) * h);
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint16_t>(800 + (i + frame * 13) % 2200);
    return raw;
}

int main() {
    const int w = 848, h = 480;
    DepthPipeline pipe(w, h);

    const auto raw0 = fake_depth_mm(w, h, 0);
    const auto raw1 = fake_depth_mm(w, h, 1);

    pipe.ingest(pipe.front(), raw0);   // nothing on the GPU yet
    pipe.launch_filter(pipe.front());
    pipe.ingest(pipe.back(), raw1);    // overlaps the filter of the front frame
    pipe.wait();
    pipe.launch_filter(pipe.back());
    pipe.wait();

    std::vector<float> out(static_cast<size_t>(w) * h);
    cudaMemcpy(out.data(), pipe.filtered(), out.size() * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf("filtered centre depth: %.3f m\n", out[(h / 2) * w + w / 2]);
    return 0;
}
