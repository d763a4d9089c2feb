// Build configuration for the radar pulse-compression front end.
#pragma once

// #define RADAR_PINNED_STAGING   // enable on hosts with enough lockable memory
#define RADAR_SAMPLES_PER_PULSE 8192
#define RADAR_PULSES_PER_CPI 128
#define RADAR_CPI_BYTES (sizeof(float2) * RADAR_SAMPLES_PER_PULSE * RADAR_PULSES_PER_CPI)
