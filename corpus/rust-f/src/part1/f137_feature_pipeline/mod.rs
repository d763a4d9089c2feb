//! case: a two-stream feature pipeline (runtime layer): the upload stage waits on a `consumed` event before overwriting the device input, the compute stage waits on an `uploaded` event before reading it, the host refills the pinned staging only after `uploaded.synchronize()` and reads the pinned result only after `done.synchronize()`
//! expect: none

mod stages;

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Result};

use stages::{Compute, Uploader};

pub struct Pipeline {
    up: Uploader,
    compute: Compute,
    d_in: DeviceBuffer<f32>,
    d_out: DeviceBuffer<f32>,
}

impl Pipeline {
    pub fn new(ctx: &Context, batch: usize) -> Result<Self> {
        Ok(Self {
            up: Uploader::new(ctx, batch)?,
            compute: Compute::new(ctx, batch)?,
            d_in: ctx.alloc::<f32>(batch)?,
            d_out: ctx.alloc::<f32>(batch)?,
        })
    }

    /// Sum of squared features of each batch (each batch has exactly the pipeline's batch size).
    pub fn energies(&mut self, batches: &[Vec<f32>]) -> Result<Vec<f32>> {
        let n = self.d_in.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        let mut out = Vec::with_capacity(batches.len());
        for batch in batches {
            // the previous upload may still be reading the staging buffer
            self.up.uploaded.synchronize()?;
            self.up.staging.copy_from_slice(&batch[..n as usize]);

            // the previous compute may still be reading d_in
            self.up.stream.wait_event(&self.compute.consumed)?;
            unsafe { self.up.stream.copy_htod_async(&mut self.d_in, &self.up.staging)? };
            self.up.stream.record_event(&self.up.uploaded)?;

            self.compute.stream.wait_event(&self.up.uploaded)?;
            unsafe { self.compute.stream.launch(&self.compute.kernel, cfg, &[&self.d_in, &mut self.d_out, &n])? };
            self.compute.stream.record_event(&self.compute.consumed)?;
            unsafe { self.compute.stream.copy_dtoh_async(&mut self.compute.result, &self.d_out)? };
            self.compute.stream.record_event(&self.compute.done)?;

            self.compute.done.synchronize()?;
            out.push(self.compute.result.iter().sum());
        }
        Ok(out)
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let batch = 1 << 18;
    let mut pipeline = Pipeline::new(&ctx, batch)?;
    let batches: Vec<Vec<f32>> = (0..8).map(|k| vec![0.01 * k as f32; batch]).collect();
    println!("{:?}", pipeline.energies(&batches)?);
    Ok(())
}
