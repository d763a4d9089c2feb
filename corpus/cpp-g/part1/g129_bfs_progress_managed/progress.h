#pragma once
#include <chrono>
#include <cstdio>

struct RunStats {
    int    levels;
    double host_ms[64];
    long long last_tick;
};

static inline long long now_us() {
    using namespace std::chrono;
    return duration_cast<microseconds>(steady_clock::now().time_since_epoch()).count();
}

// Book-keeping done on the host once per BFS level.
static inline void record_level(RunStats* st) {
    long long t = now_us();
    if (st->levels < 64) st->host_ms[st->levels] = (t - st->last_tick) / 1000.0;
    st->last_tick = t;
    st->levels += 1;
}

static inline void print_stats(const RunStats* st) {
    for (int l = 0; l < st->levels && l < 64; ++l)
        std::printf("level %2d: %.3f ms\n", l, st->host_ms[l]);
}
