//! case: online embedding-table refresh for a recommendation server: the table is one VMM allocation mapped twice, a refresh view written by the scatter kernel on the refresh stream and a lookup view read by the lookup kernel on the serving stream; the two streams are never ordered (no event between the update and the lookups that follow it)
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange,
};

const TABLE_SRC: &str = r#"
extern "C" __global__ void scatter_rows(float* table, const unsigned* rows, const float* vals,
                                        unsigned n_rows, unsigned dim) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_rows * dim) table[(size_t)rows[i / dim] * dim + i % dim] = vals[i];
}

extern "C" __global__ void lookup_mean(const float* table, const unsigned* ids, float* out,
                                       unsigned n_ids, unsigned dim) {
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= dim) return;
    float s = 0.0f;
    for (unsigned k = 0; k < n_ids; ++k) s += table[(size_t)ids[k] * dim + c];
    out[c] = s / n_ids;
}
"#;

pub struct OnlineTable {
    refresh_view: Mapping,
    lookup_view: Mapping,
    refresh: Stream,
    serve: Stream,
    scatter: Kernel,
    lookup: Kernel,
    dim: u32,
}

impl OnlineTable {
    pub fn new(ctx: &Context, rows: usize, dim: u32) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (rows * dim as usize * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let module = ctx.load_cuda(TABLE_SRC)?;
        let mut refresh_view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let refresh = ctx.new_stream()?;
        refresh.memset_d32(&mut refresh_view, 0)?;
        Ok(OnlineTable {
            lookup_view: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
            refresh_view,
            refresh,
            serve: ctx.new_stream()?,
            scatter: module.function("scatter_rows")?,
            lookup: module.function("lookup_mean")?,
            dim,
        })
    }

    pub fn apply_update(&self, rows: &DeviceBuffer<u32>, vals: &DeviceBuffer<f32>) -> Result<()> {
        let n_rows = rows.len() as u32;
        unsafe {
            self.refresh.launch(
                &self.scatter,
                LaunchConfig::for_num_elems(n_rows * self.dim),
                &[&self.refresh_view, rows, vals, &n_rows, &self.dim],
            )
        }
    }

    pub fn user_vector(&self, ids: &DeviceBuffer<u32>, out: &DeviceBuffer<f32>) -> Result<()> {
        let n = ids.len() as u32;
        unsafe {
            self.serve.launch(&self.lookup, LaunchConfig::for_num_elems(self.dim), &[&self.lookup_view, ids, out, &n, &self.dim]) // EXPECT: unfenced_vmm_alias
        }
    }
}

pub fn refresh_then_serve(ctx: &Context, update_rows: &DeviceBuffer<u32>, update_vals: &DeviceBuffer<f32>, history: &DeviceBuffer<u32>) -> Result<Vec<f32>> {
    let table = OnlineTable::new(ctx, 100_000, 64)?;
    let out = ctx.alloc_zeroed::<f32>(64)?;
    table.apply_update(update_rows, update_vals)?;
    table.user_vector(history, &out)?;
    let mut host: PinnedBuffer<f32> = ctx.alloc_pinned(64)?;
    unsafe { table.serve.copy_dtoh_async(&mut host, &out)? };
    table.serve.synchronize()?;
    table.refresh.synchronize()?;
    Ok(host.to_vec())
}
