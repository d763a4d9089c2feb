//! Particle simulation on a uniform cell grid that owns the graph of its time step.
//!
//! The simulation runs on a stream it creates itself with `cuStreamCreate` (the
//! flags the rest of the engine's streams use) and keeps the raw executable graph
//! of one step: integrate, clear the cell occupancy, bin the particles.

use std::error::Error;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{
    result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

type Res<T> = Result<T, Box<dyn Error>>;

const CELL_SRC: &str = r#"
extern "C" __global__ void seed_lattice(float* pos, float* vel, int n, float spacing, int side) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int ix = i % side, iy = (i / side) % side, iz = i / (side * side);
    pos[3 * i + 0] = (ix + 0.5f) * spacing;
    pos[3 * i + 1] = (iy + 0.5f) * spacing;
    pos[3 * i + 2] = (iz + 0.5f) * spacing;
    unsigned h = (unsigned)i * 2654435761u;
    vel[3 * i + 0] = ((h & 1023) / 1023.0f - 0.5f) * 0.1f;
    vel[3 * i + 1] = (((h >> 10) & 1023) / 1023.0f - 0.5f) * 0.1f;
    vel[3 * i + 2] = (((h >> 20) & 1023) / 1023.0f - 0.5f) * 0.1f;
}

extern "C" __global__ void integrate_periodic(float* pos, const float* vel, int n, float dt, float box) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * n) return;
    float p = pos[i] + vel[i] * dt;
    p -= box * floorf(p / box);
    pos[i] = p;
}

extern "C" __global__ void bin_particles(const float* pos, unsigned* cell_count, int n,
                                         float cell, int cells_per_side) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int cx = min((int)(pos[3 * i + 0] / cell), cells_per_side - 1);
    int cy = min((int)(pos[3 * i + 1] / cell), cells_per_side - 1);
    int cz = min((int)(pos[3 * i + 2] / cell), cells_per_side - 1);
    atomicAdd(&cell_count[(cz * cells_per_side + cy) * cells_per_side + cx], 1u);
}
"#;

/// A stream made through the driver API, destroyed last.
struct EngineStream(sys::CUstream);

impl EngineStream {
    fn create() -> Res<Self> {
        let mut raw: sys::CUstream = ptr::null_mut();
        unsafe { sys::cuStreamCreate(&mut raw, sys::CUstream_flags::CU_STREAM_DEFAULT as u32) }
            .result()?;
        Ok(Self(raw))
    }
}

impl Drop for EngineStream {
    fn drop(&mut self) {
        let _ = unsafe { sys::cuStreamSynchronize(self.0) };
        let _ = unsafe { sys::cuStreamDestroy_v2(self.0) };
    }
}

pub struct CellListSim {
    stream: Arc<CudaStream>,
    integrate: CudaFunction,
    bin: CudaFunction,
    n: i32,
    dt: f32,
    box_len: f32,
    cell_len: f32,
    cells_per_side: i32,
    n_cells: usize,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    cell_count: sys::CUdeviceptr,
    pos: CudaSlice<f32>,
    vel: CudaSlice<f32>,
    engine: EngineStream,
}

impl CellListSim {
    pub fn new(ctx: &Arc<CudaContext>, side: i32, spacing: f32, dt: f32) -> Res<Self> {
        let engine = EngineStream::create()?;
        // cudarc launches and allocates on the engine's stream without owning it.
        let stream = unsafe { ctx.wrap_borrowed_stream(engine.0) };
        let module = ctx.load_module(compile_ptx(CELL_SRC)?)?;
        let seed = module.load_function("seed_lattice")?;
        let integrate = module.load_function("integrate_periodic")?;
        let bin = module.load_function("bin_particles")?;

        let n = side * side * side;
        let box_len = side as f32 * spacing;
        let cells_per_side = (side / 2).max(1);
        let n_cells = (cells_per_side * cells_per_side * cells_per_side) as usize;

        let mut pos = unsafe { stream.alloc::<f32>(3 * n as usize)? };
        let mut vel = unsafe { stream.alloc::<f32>(3 * n as usize)? };
        unsafe {
            stream
                .launch_builder(&seed)
                .arg(&mut pos)
                .arg(&mut vel)
                .arg(&n)
                .arg(&spacing)
                .arg(&side)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }

        let mut sim = Self {
            stream,
            integrate,
            bin,
            n,
            dt,
            box_len,
            cell_len: box_len / cells_per_side as f32,
            cells_per_side,
            n_cells,
            graph: ptr::null_mut(),
            exec: ptr::null_mut(),
            cell_count: 0,
            pos,
            vel,
            engine,
        };
        unsafe { sys::cuMemAlloc_v2(&mut sim.cell_count, n_cells * std::mem::size_of::<u32>()) }
            .result()?;
        sim.record_step()?;
        Ok(sim)
    }

    fn record_step(&mut self) -> Res<()> {
        let raw = self.engine.0;
        let per_coord = LaunchConfig::for_num_elems(3 * self.n as u32);
        let per_particle = LaunchConfig::for_num_elems(self.n as u32);

        unsafe {
            result::stream::begin_capture(
                raw,
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            )?;
            self.stream
                .launch_builder(&self.integrate)
                .arg(&mut self.pos)
                .arg(&self.vel)
                .arg(&self.n)
                .arg(&self.dt)
                .arg(&self.box_len)
                .launch(per_coord)?;
        }
        unsafe { sys::cuMemsetD32_v2(self.cell_count, 0, self.n_cells) }.result()?; // EXPECT: uncapturable_call
        unsafe {
            self.stream
                .launch_builder(&self.bin)
                .arg(&self.pos)
                .arg(&self.cell_count)
                .arg(&self.n)
                .arg(&self.cell_len)
                .arg(&self.cells_per_side)
                .launch(per_particle)?;
            self.graph = result::stream::end_capture(raw)?;
            self.exec = result::graph::instantiate(self.graph, sys::CUgraphInstantiate_flags(0))?;
        }
        Ok(())
    }

    pub fn advance(&mut self, steps: usize) -> Res<()> {
        for _ in 0..steps {
            unsafe { result::graph::launch(self.exec, self.engine.0)? };
        }
        Ok(())
    }

    /// Occupancy of every cell after the last step.
    pub fn occupancy(&self) -> Res<Vec<u32>> {
        let mut counts = vec![0u32; self.n_cells];
        unsafe {
            result::stream::synchronize(self.engine.0)?;
            sys::cuMemcpyDtoH_v2(
                counts.as_mut_ptr().cast(),
                self.cell_count,
                self.n_cells * std::mem::size_of::<u32>(),
            )
            .result()?;
        }
        Ok(counts)
    }
}

impl Drop for CellListSim {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.engine.0);
            if !self.exec.is_null() {
                let _ = result::graph::exec_destroy(self.exec);
            }
            if !self.graph.is_null() {
                let _ = result::graph::destroy(self.graph);
            }
            if self.cell_count != 0 {
                let _ = sys::cuMemFree_v2(self.cell_count);
            }
        }
    }
}

/// Runs `steps` steps of a `side`^3 lattice gas and returns the final cell occupancy.
pub fn run_cell_list(side: i32, steps: usize) -> Res<Vec<u32>> {
    let ctx = CudaContext::new(0)?;
    let mut sim = CellListSim::new(&ctx, side, 1.0, 0.01)?;
    sim.advance(steps)?;
    let counts = sim.occupancy()?;
    let total: u64 = counts.iter().map(|&c| c as u64).sum();
    if total != (side as u64).pow(3) {
        return Err(format!("binned {total} particles, expected {}", (side as u64).pow(3)).into());
    }
    Ok(counts)
}
