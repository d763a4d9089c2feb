// Depth camera loop: each 640x480 frame is written into the denoiser's pinned input, the
// recorded graph is replayed, and the number of valid (non-zero) depth pixels is reported.
#include <cstdio>

#include "denoiser.h"

int main() {
    const int width = 640, height = 480;
    DepthDenoiser denoiser(width, height);
    denoiser.capture(40.0f);

    for (int frame = 0; frame < 300; ++frame) {
        unsigned short* depth = denoiser.input();
        for (int i = 0; i < width * height; ++i)
            depth[i] = static_cast<unsigned short>(800 + (i % width) / 4 + ((i * 31 + frame) % 23));
        denoiser.run();
        const unsigned short* clean = denoiser.output();
        int valid = 0;
        for (int i = 0; i < width * height; ++i) valid += clean[i] != 0;
        if (frame % 100 == 0) std::printf("frame %d: %d valid pixels\n", frame, valid);
    }
    return 0;
}
