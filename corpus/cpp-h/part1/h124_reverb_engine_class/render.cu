// case: Offline reverb renderer whose engine class (in the header) uploads each 4 MiB block from its std::vector member with cudaMemcpyAsync (pageable), and main asks for the block's RMS, which reads the pinned output before flush() synchronizes the stream.
// expect: pageable_async_copy=1, missing_sync=1
#include "reverb_engine.cuh"
#include <memory>

int main()
{
    const int frames = 1 << 20;                 // 4 MiB of float per block
    auto engine = std::make_unique<ReverbEngine>(frames);

    auto& in = engine->input();
    for (int i = 0; i < frames; ++i)
        in[i] = (i % 4800 < 10) ? 1.0f : 0.0f;   // click train

    engine->process(/*delay=*/2205, /*feedback=*/0.6f, /*mix=*/0.35f);

    float level = engine->rms();
    std::printf("wet RMS %.5f\n", level);

    engine->flush();
    const float* out = engine->output();
    std::printf("tail sample %.5f\n", out[frames - 1]);
    return 0;
}
