//! case: embedding lookup service (cudarc): the table loaded from disk is uploaded with clone_htod straight from its Vec (pageable), a startup self-check dereferences the table's raw CUdeviceptr on the host, and lookups read back through non-write-combined pinned memory after a synchronize
//! expect: pageable_async_copy=1, host_deref_device_ptr=1

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::io::Read;
use std::sync::Arc;

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_rows(const float* table, const unsigned* ids, float* out,
                                       unsigned dim, unsigned n) {
    unsigned r = blockIdx.y;
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n && c < dim) out[r * dim + c] = table[ids[r] * dim + c];
}
"#;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct EmbeddingService {
    stream: Arc<CudaStream>,
    gather: CudaFunction,
    table: CudaSlice<f32>,
    dim: usize,
    rows: usize,
    ids_host: PinnedHostSlice<u32>,
    out_host: PinnedHostSlice<f32>,
    d_ids: CudaSlice<u32>,
    d_out: CudaSlice<f32>,
}

fn read_table(mut src: impl Read, rows: usize, dim: usize) -> Res<Vec<f32>> {
    let mut bytes = vec![0u8; rows * dim * 4];
    src.read_exact(&mut bytes)?;
    Ok(bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}

impl EmbeddingService {
    pub fn load(ctx: &Arc<CudaContext>, src: impl Read, rows: usize, dim: usize, max_batch: usize) -> Res<Self> {
        let stream = ctx.default_stream();
        let module = ctx.load_module(compile_ptx(GATHER_SRC)?)?;
        let host_table = read_table(src, rows, dim)?;
        let table = stream.clone_htod(&host_table)?; // EXPECT: pageable_async_copy
        stream.synchronize()?;

        // Self-check: row 0 on the device must match the file.
        {
            let (raw, _guard) = table.device_ptr(&stream);
            let first = unsafe { *(raw as *const f32) }; // EXPECT: host_deref_device_ptr
            if first.to_bits() != host_table[0].to_bits() {
                return Err("embedding table upload mismatch".into());
            }
        }

        Ok(EmbeddingService {
            gather: module.load_function("gather_rows")?,
            table,
            dim,
            rows,
            ids_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(max_batch, 0)? },
            out_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(max_batch * dim, 0)? },
            d_ids: stream.alloc_zeros::<u32>(max_batch)?,
            d_out: stream.alloc_zeros::<f32>(max_batch * dim)?,
            stream,
        })
    }

    pub fn lookup(&mut self, ids: &[u32]) -> Res<Vec<Vec<f32>>> {
        let n = ids.len().min(self.ids_host.len());
        for (slot, &id) in self.ids_host.as_mut_slice()?.iter_mut().zip(ids) {
            *slot = id.min(self.rows as u32 - 1);
        }
        self.stream.memcpy_htod(&self.ids_host, &mut self.d_ids)?;
        let dim = self.dim as u32;
        let rows = n as u32;
        let cfg = LaunchConfig { grid_dim: (dim.div_ceil(128), rows, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream
                .launch_builder(&self.gather)
                .arg(&self.table)
                .arg(&self.d_ids)
                .arg(&mut self.d_out)
                .arg(&dim)
                .arg(&rows)
                .launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.d_out, &mut self.out_host)?;
        self.stream.synchronize()?;
        let out = self.out_host.as_slice()?;
        Ok(out.chunks(self.dim).take(n).map(|r| r.to_vec()).collect())
    }
}
