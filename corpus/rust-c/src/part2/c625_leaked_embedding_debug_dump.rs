//! case: an embedding table uploaded with cudarc is leaked to a raw pointer for a C retrieval library; a debug dump then builds a host slice over that device pointer with `slice::from_raw_parts` to print the first rows
//! expect: host_deref_device_ptr=1

use std::error::Error;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::{sys, CudaContext, CudaStream, PinnedHostSlice};

unsafe extern "C" {
    /// Registers a row-major `rows x dim` f32 table that lives in device memory.
    fn ann_index_attach(index: *mut c_void, table: sys::CUdeviceptr, rows: usize, dim: usize) -> i32;
}

pub struct EmbeddingTable {
    stream: Arc<CudaStream>,
    dev: sys::CUdeviceptr,
    rows: usize,
    dim: usize,
}

impl EmbeddingTable {
    pub fn upload(ctx: &Arc<CudaContext>, host: &PinnedHostSlice<f32>, dim: usize) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let table = stream.clone_htod(host)?;
        stream.synchronize()?;
        let rows = host.len() / dim;
        Ok(Self { stream, dev: table.leak(), rows, dim })
    }

    pub fn attach(&self, index: *mut c_void) -> Result<(), Box<dyn Error>> {
        match unsafe { ann_index_attach(index, self.dev, self.rows, self.dim) } {
            0 => Ok(()),
            rc => Err(format!("ann_index_attach: {rc}").into()),
        }
    }

    /// Prints the first `n` rows, for eyeballing a freshly loaded table.
    pub fn debug_dump(&self, n: usize) {
        self.stream.synchronize().ok();
        let n = n.min(self.rows);
        let table = unsafe { std::slice::from_raw_parts(self.dev as *const f32, n * self.dim) }; // EXPECT: host_deref_device_ptr
        for (r, row) in table.chunks_exact(self.dim).enumerate() {
            let head: Vec<String> = row.iter().take(4).map(|v| format!("{v:+.3}")).collect();
            println!("row {r:>4}: [{} ...]", head.join(", "));
        }
    }
}

impl Drop for EmbeddingTable {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = unsafe { result::free_sync(self.dev) };
    }
}

pub fn load(ctx: &Arc<CudaContext>, rows: usize, dim: usize) -> Result<EmbeddingTable, Box<dyn Error>> {
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<f32>(rows * dim, 0)? };
    for (i, v) in host.as_mut_slice()?.iter_mut().enumerate() {
        *v = ((i * 2654435761) % 1000) as f32 / 1000.0 - 0.5;
    }
    let table = EmbeddingTable::upload(ctx, &host, dim)?;
    table.debug_dump(3);
    Ok(table)
}
