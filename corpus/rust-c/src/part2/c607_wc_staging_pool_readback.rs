//! case: a staging pool hands out buffers from cudarc's `alloc_pinned` (write-combined in cudarc 0.19) for uploads and for downloads alike; the sampler reads its downloaded logits from one of them on the host after synchronizing
//! expect: write_combined_host_read=1

use std::error::Error;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

/// Pool of equally sized pinned buffers, reused across decode steps.
pub struct StagingPool {
    ctx: Arc<CudaContext>,
    elems: usize,
    free: Mutex<Vec<PinnedHostSlice<f32>>>,
}

impl StagingPool {
    pub fn new(ctx: Arc<CudaContext>, elems: usize, count: usize) -> Result<Self, DriverError> {
        let mut bufs = Vec::with_capacity(count);
        for _ in 0..count {
            bufs.push(unsafe { ctx.alloc_pinned::<f32>(elems)? });
        }
        Ok(Self { ctx, elems, free: Mutex::new(bufs) })
    }

    pub fn take(&self) -> Result<PinnedHostSlice<f32>, DriverError> {
        if let Some(buf) = self.free.lock().unwrap().pop() {
            return Ok(buf);
        }
        unsafe { self.ctx.alloc_pinned::<f32>(self.elems) }
    }

    pub fn give_back(&self, buf: PinnedHostSlice<f32>) {
        self.free.lock().unwrap().push(buf);
    }
}

pub struct Sampler {
    stream: Arc<CudaStream>,
    pool: StagingPool,
    temperature: f32,
}

impl Sampler {
    pub fn new(ctx: &Arc<CudaContext>, vocab: usize) -> Result<Self, DriverError> {
        Ok(Self {
            stream: ctx.new_stream()?,
            pool: StagingPool::new(ctx.clone(), vocab, 4)?,
            temperature: 0.8,
        })
    }

    /// Uploads a logit bias (host writes only: what write-combined memory is for).
    pub fn upload_bias(&self, bias: &[f32], dst: &mut CudaSlice<f32>) -> Result<(), DriverError> {
        let mut buf = self.pool.take()?;
        buf.as_mut_slice()?[..bias.len()].copy_from_slice(bias);
        self.stream.memcpy_htod(&buf, dst)?;
        self.pool.give_back(buf);
        Ok(())
    }

    /// Greedy/temperature pick of the next token from the device logits.
    pub fn next_token(&self, logits: &CudaSlice<f32>, uniform: f32) -> Result<usize, Box<dyn Error>> {
        let mut buf = self.pool.take()?;
        self.stream.memcpy_dtoh(logits, &mut buf)?;
        self.stream.synchronize()?;

        let host: Vec<f32> = buf.as_slice()?.to_vec(); // EXPECT: write_combined_host_read
        self.pool.give_back(buf);
        let max = host.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let weights: Vec<f32> = host.iter().map(|&l| ((l - max) / self.temperature).exp()).collect();
        let total: f32 = weights.iter().sum();
        let mut acc = 0.0;
        let mut pick = weights.len() - 1;
        for (i, w) in weights.iter().enumerate() {
            acc += w / total;
            if acc >= uniform {
                pick = i;
                break;
            }
        }
        Ok(pick)
    }
}
