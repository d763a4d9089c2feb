// A pinned buffer kept in a field: cudarc's `alloc_pinned` makes write-combined memory
// (`CU_MEMHOSTALLOC_WRITECOMBINED`), `alloc_pinned_with_flags(.., 0)` cached memory. What the
// constructor allocated decides what a method's host read costs.
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

struct Stager {
    stream: Arc<CudaStream>,
    combined: PinnedHostSlice<f32>,
    cached: PinnedHostSlice<f32>,
}

impl Stager {
    fn new(ctx: &Arc<CudaContext>, n: usize) -> Result<Stager, DriverError> {
        Ok(Stager {
            stream: ctx.default_stream(),
            combined: unsafe { ctx.alloc_pinned::<f32>(n)? },
            cached: unsafe { ctx.alloc_pinned_with_flags::<f32>(n, 0)? },
        })
    }

    fn fires_checksum_of_the_write_combined_staging(&mut self, dev: &CudaSlice<f32>) -> Result<f32, DriverError> {
        self.stream.memcpy_dtoh(dev, &mut self.combined)?;
        self.stream.synchronize()?;
        Ok(self.combined.as_slice()?.iter().sum()) //~ write_combined_host_read
    }

    fn ok_checksum_of_the_cached_staging(&mut self, dev: &CudaSlice<f32>) -> Result<f32, DriverError> {
        self.stream.memcpy_dtoh(dev, &mut self.cached)?;
        self.stream.synchronize()?;
        Ok(self.cached.as_slice()?.iter().sum())
    }

    fn ok_write_combined_staging_only_written(&mut self, src: &[f32], dev: &mut CudaSlice<f32>) -> Result<(), DriverError> {
        self.combined.as_mut_slice()?.iter_mut().zip(src).for_each(|(d, s)| *d = *s);
        self.stream.memcpy_htod(&self.combined, dev)?;
        self.stream.synchronize()
    }

    fn ok_write_combined_staging_filled_chunk_by_chunk(&mut self, forces: &[[f32; 4]], dev: &mut CudaSlice<f32>) -> Result<(), DriverError> {
        self.combined.as_mut_slice()?.chunks_exact_mut(4).zip(forces).for_each(|(dst, f)| dst.copy_from_slice(f));
        self.stream.memcpy_htod(&self.combined, dev)?;
        self.stream.synchronize()
    }
}

fn main() {}
