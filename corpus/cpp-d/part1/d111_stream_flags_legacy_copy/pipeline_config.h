// Build configuration of the denoise pipeline.
#pragma once

// Compute on streams that do not serialize with the default stream, so that the
// uploads of the next frame (default stream) can overlap the filter of this one.
#define PIPELINE_ASYNC_STREAMS 1

#define PIPELINE_WIDTH 1920
#define PIPELINE_HEIGHT 1080
#define PIPELINE_TILE 16
#define PIPELINE_RADIUS 3
