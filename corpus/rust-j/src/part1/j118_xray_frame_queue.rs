//! case: X-ray inspection line: a GPU producer thread reconstructs each frame into a pinned buffer, waits on an event recorded after the readback, and only then sends the buffer to the defect-detection thread over a channel; buffers come back through a second channel before they are reused
//! expect: none

use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const FLATFIELD_SRC: &str = r#"
extern "C" __global__ void flatfield(const unsigned short* raw, const float* gain, const float* dark, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(0.0f, ((float)raw[i] - dark[i]) * gain[i]);
}
"#;

pub struct Frame {
    pub id: u64,
    pub pixels: PinnedBuffer<f32>,
}

struct Producer {
    stream: Stream,
    kernel: Kernel,
    done: Event,
    raw: DeviceBuffer<u16>,
    gain: DeviceBuffer<f32>,
    dark: DeviceBuffer<f32>,
    out: DeviceBuffer<f32>,
}

impl Producer {
    fn produce(&mut self, id: u64, mut dst: PinnedBuffer<f32>) -> Result<Frame> {
        let n = self.out.len();
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n as u32), &[&self.raw, &self.gain, &self.dark, &self.out, &(n as i32)])?;
            self.stream.copy_dtoh_async(&mut dst, &self.out)?;
        }
        self.stream.record_event(&self.done)?;
        self.done.synchronize()?;
        Ok(Frame { id, pixels: dst })
    }
}

fn detect(frame: &Frame, threshold: f32) -> usize {
    frame.pixels.iter().filter(|&&p| p > threshold).count()
}

pub fn run_line(ctx: &Context, pixels: usize, frames: u64, pool: usize) -> Result<Vec<(u64, usize)>> {
    let (full_tx, full_rx): (Sender<Frame>, Receiver<Frame>) = channel();
    let (free_tx, free_rx): (Sender<PinnedBuffer<f32>>, Receiver<PinnedBuffer<f32>>) = channel();
    for _ in 0..pool {
        free_tx.send(ctx.alloc_pinned::<f32>(pixels)?).expect("pool");
    }
    let mut producer = Producer {
        stream: ctx.new_stream()?,
        kernel: ctx.load_cuda(FLATFIELD_SRC)?.function("flatfield")?,
        done: ctx.new_event()?,
        raw: ctx.alloc_zeroed(pixels)?,
        gain: ctx.alloc_zeroed(pixels)?,
        dark: ctx.alloc_zeroed(pixels)?,
        out: ctx.alloc(pixels)?,
    };
    let ctx2 = ctx.clone();
    let gpu = thread::spawn(move || -> Result<()> {
        ctx2.bind_to_thread()?;
        for id in 0..frames {
            let Ok(buf) = free_rx.recv() else { break };
            let frame = producer.produce(id, buf)?;
            if full_tx.send(frame).is_err() {
                break;
            }
        }
        Ok(())
    });
    let mut results = Vec::new();
    for frame in full_rx {
        results.push((frame.id, detect(&frame, 0.8)));
        let _ = free_tx.send(frame.pixels);
    }
    gpu.join().expect("gpu thread")?;
    Ok(results)
}
