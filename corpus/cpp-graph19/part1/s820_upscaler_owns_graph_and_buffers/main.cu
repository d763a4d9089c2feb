// Thumbnail-to-preview service: every 960x540 grey frame is upscaled to 1920x1080 by the
// recorded graph; the service object is created per session and released at its end.
#include <cstdio>
#include <memory>

#include "upscaler.h"

static long long run_session(int frames) {
    const int w = 960, h = 540;
    auto upscaler = std::make_unique<Upscaler>(w, h, 0.6f);
    long long bright = 0;
    for (int f = 0; f < frames; ++f) {
        unsigned char* in = upscaler->input();
        for (int i = 0; i < w * h; ++i) in[i] = static_cast<unsigned char>((i % w + f * 3) & 0xff);
        upscaler->run();
        const unsigned char* out = upscaler->output();
        for (int i = 0; i < 4 * w * h; i += 101) bright += out[i] > 200;
    }
    upscaler.reset();
    return bright;
}

int main() {
    for (int session = 0; session < 3; ++session)
        std::printf("session %d: %lld bright samples\n", session, run_session(60));
    return 0;
}
