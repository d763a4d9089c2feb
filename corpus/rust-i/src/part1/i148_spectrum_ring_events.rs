//! case: real-time spectrum analyzer on the runtime layer with a 3-slot ring of pinned input/output buffers, each slot with its own event recorded after the slot's readback; before a slot is refilled and before its spectrum is read, that slot's event is synchronized (near-miss for missing_sync in a ring)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const SLOTS: usize = 3;

const BANDS_SRC: &str = r#"
extern "C" __global__ void band_energy(const float* pcm, float* bands, unsigned n, unsigned n_bands) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= n_bands) return;
    float f = 20.f * powf(1000.f, (float)b / n_bands);
    float re = 0.f, im = 0.f;
    for (unsigned t = 0; t < n; ++t) { float s, c; __sincosf(6.2831853f * f * t / 48000.f, &s, &c); re += pcm[t] * c; im += pcm[t] * s; }
    bands[b] = 10.f * log10f((re * re + im * im) / n + 1e-12f);
}
"#;

struct Slot {
    pcm: PinnedBuffer<f32>,
    bands: PinnedBuffer<f32>,
    d_pcm: DeviceBuffer<f32>,
    d_bands: DeviceBuffer<f32>,
    done: Event,
    in_flight: bool,
}

pub struct SpectrumAnalyzer {
    stream: Stream,
    kernel: Kernel,
    slots: Vec<Slot>,
    next: usize,
    n_bands: u32,
}

impl SpectrumAnalyzer {
    pub fn new(ctx: &Context, block: usize, n_bands: usize) -> Result<Self> {
        let slots = (0..SLOTS)
            .map(|_| -> Result<Slot> {
                Ok(Slot {
                    pcm: ctx.alloc_pinned(block)?,
                    bands: ctx.alloc_pinned(n_bands)?,
                    d_pcm: ctx.alloc(block)?,
                    d_bands: ctx.alloc(n_bands)?,
                    done: ctx.new_event()?,
                    in_flight: false,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(BANDS_SRC)?.function("band_energy")?, slots, next: 0, n_bands: n_bands as u32 })
    }

    /// Pushes one block; returns the spectrum of the block pushed SLOTS-1 calls ago, if any.
    pub fn push(&mut self, block: &[f32]) -> Result<Option<Vec<f32>>> {
        let idx = self.next;
        self.next = (self.next + 1) % SLOTS;
        let slot = &mut self.slots[idx];

        let mut finished = None;
        if slot.in_flight {
            slot.done.synchronize()?;
            finished = Some(slot.bands.to_vec());
        }

        slot.pcm.copy_from_slice(block);
        unsafe { self.stream.copy_htod_async(&mut slot.d_pcm, &slot.pcm)? };
        let n = block.len() as u32;
        unsafe { self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(self.n_bands), &[&slot.d_pcm, &slot.d_bands, &n, &self.n_bands])? };
        unsafe { self.stream.copy_dtoh_async(&mut slot.bands, &slot.d_bands)? };
        self.stream.record_event(&slot.done)?;
        slot.in_flight = true;
        Ok(finished)
    }

    /// Drains the ring: spectra of every block still in flight, oldest first.
    pub fn flush(&mut self) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::new();
        for k in 0..SLOTS {
            let slot = &mut self.slots[(self.next + k) % SLOTS];
            if slot.in_flight {
                slot.done.synchronize()?;
                out.push(slot.bands.to_vec());
                slot.in_flight = false;
            }
        }
        Ok(out)
    }
}
