// case: a NIC receive path keeps packets in a mirrored VMM ring (one cuMemCreate handle mapped at base and base+size, access granted over both); one kernel writes a frame's wrapped tail through the primary mapping and reads it back through the mirror with no fence.proxy.alias in between.
// expect: unfenced_vmm_alias=1
#include "packet_ring.cuh"
#include <vector>

constexpr int kMtu = 1500;

int main() {
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    std::vector<uint8_t> frame_host(kMtu);
    {
        MirroredRing ring(size_t(1) << 21);
        cudaStream_t rx;
        cudaStreamCreate(&rx);  // blocking: ordered after the legacy-stream copies below

        uint8_t* d_tail = nullptr;
        uint8_t* d_frame = nullptr;
        cudaMalloc(&d_tail, kMtu);
        cudaMalloc(&d_frame, kMtu);

        const int head_len = 1100;
        const int tail_len = kMtu - head_len;
        const size_t frame_off = ring.capacity() - head_len;

        std::vector<uint8_t> wire(kMtu);
        for (int i = 0; i < kMtu; ++i) wire[i] = static_cast<uint8_t>(i * 7);
        // The head of the frame arrived earlier and already sits at the end of the ring.
        cudaMemcpy(ring.data() + frame_off, wire.data(), head_len, cudaMemcpyHostToDevice);
        cudaMemcpy(d_tail, wire.data() + head_len, tail_len, cudaMemcpyHostToDevice);

        land_tail_and_extract<<<(kMtu + 255) / 256, 256, 0, rx>>>(ring.data(), ring.mirror(), d_tail, tail_len, frame_off, head_len, d_frame);  // EXPECT: unfenced_vmm_alias
        cudaStreamSynchronize(rx);
        cudaMemcpy(frame_host.data(), d_frame, kMtu, cudaMemcpyDeviceToHost);

        int bad = 0;
        for (int i = 0; i < kMtu; ++i) bad += frame_host[i] != wire[i];
        std::printf("reassembled frame: %d corrupt bytes\n", bad);

        cudaFree(d_frame);
        cudaFree(d_tail);
        cudaStreamDestroy(rx);
    }
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
