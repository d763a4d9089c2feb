//! case: particle-in-cell charge deposition that maps one physical allocation twice (cuda-lint-runtime VMM) so the periodic guard cells are an alias of the interior; the kernel writes through one mapping and reads through the other, but executes `fence.proxy.alias` between the two, as the programming guide requires
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const DEPOSIT_SRC: &str = r#"
// Launched as a single block: the barrier and the fence order the whole block's deposits
// (through `rho`) before its reads of the guard cells (through the alias `rho_alias`).
extern "C" __global__ void deposit_and_smooth(float* rho, const float* rho_alias, const float* x, int n_particles,
                                              float* smoothed, int n_cells, float q_over_dx) {
    for (int p = threadIdx.x; p < n_particles; p += blockDim.x) {
        int c = ((int)x[p] % n_cells + n_cells) % n_cells;
        atomicAdd(&rho[c], q_over_dx);
    }
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    for (int c = threadIdx.x; c < n_cells; c += blockDim.x) {
        int l = (c + n_cells - 1) % n_cells, r = (c + 1) % n_cells;
        smoothed[c] = 0.25f * rho_alias[l] + 0.5f * rho_alias[c] + 0.25f * rho_alias[r];
    }
}
"#;

pub struct ChargeGrid {
    stream: Stream,
    kernel: Kernel,
    _physical: PhysicalAllocation,
    rho: Mapping,
    rho_alias: Mapping,
    smoothed: DeviceBuffer<f32>,
    smoothed_host: PinnedBuffer<f32>,
    n_cells: usize,
}

impl ChargeGrid {
    pub fn new(ctx: &Context, n_cells: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (n_cells * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let rho = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let rho_alias = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(DEPOSIT_SRC)?.function("deposit_and_smooth")?,
            _physical: physical,
            rho,
            rho_alias,
            smoothed: ctx.alloc_zeroed(n_cells)?,
            smoothed_host: ctx.alloc_pinned(n_cells)?,
            n_cells,
        })
    }

    /// Deposits the particles (positions in cell units, already on the device) and returns the smoothed density.
    pub fn deposit(&mut self, positions: &DeviceBuffer<f32>, charge: f32) -> Result<f32> {
        self.stream.memset_d32_async(&mut self.rho, 0)?;
        let (np, nc) = (positions.len() as i32, self.n_cells as i32);
        unsafe {
            self.stream.launch(
                &self.kernel,
                LaunchConfig { grid: (1, 1, 1), block: (1024, 1, 1), shared_mem_bytes: 0 },
                &[&self.rho, &self.rho_alias, positions, &np, &mut self.smoothed, &nc, &charge],
            )?;
            self.stream.copy_dtoh_async(&mut self.smoothed_host, &self.smoothed)?;
        }
        self.stream.synchronize()?;
        Ok(self.smoothed_host.iter().copied().fold(f32::MIN, f32::max))
    }
}
