//! case: neutron tally in a cudarc `UnifiedSlice` attached to the tally stream alone (`attach(.., CU_MEM_ATTACH_SINGLE)`); it is allocated host-attached (`alloc_unified(.., false)`) for initialisation; a long transport kernel on another stream keeps running while the host reads the tally after synchronizing the tally stream: memory attached to one stream is host-accessible once that stream is idle, whatever other streams run, even without concurrent managed access
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const NEUTRON_SRC: &str = r#"
extern "C" __global__ void transport_batch(float* flux, int n_cells, int histories, unsigned long long seed) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long s = seed + t;
    for (int h = 0; h < histories; ++h) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        int cell = (int)((s >> 33) % n_cells);
        atomicAdd(&flux[cell], 1.f);
    }
}
extern "C" __global__ void tally_energy_bins(const float* energies, int n, unsigned int* tally, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = min((int)(log10f(fmaxf(energies[i], 1e-5f)) + 5.f) * bins / 12, bins - 1);
    atomicAdd(&tally[max(b, 0)], 1u);
}
"#;

pub struct TallyResult {
    pub spectrum: Vec<u32>,
}

pub fn run_tallies(ctx: &Arc<CudaContext>, energies: &CudaSlice<f32>, n_cells: usize, bins: usize) -> Result<TallyResult, Box<dyn std::error::Error>> {
    let transport_stream = ctx.new_stream()?;
    let tally_stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(NEUTRON_SRC)?)?;
    let transport: CudaFunction = module.load_function("transport_batch")?;
    let tally_fn: CudaFunction = module.load_function("tally_energy_bins")?;

    // Host-attached while the host initialises it, then handed to the tally stream alone.
    let mut tally: UnifiedSlice<u32> = unsafe { ctx.alloc_unified(bins, false)? };
    tally.as_mut_slice()?.fill(0);
    tally.attach(&tally_stream, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE)?;
    let mut flux = transport_stream.alloc_zeros::<f32>(n_cells)?;

    // Long-running transport on its own stream.
    let (nc, histories, seed) = (n_cells as i32, 4096i32, 0x5eed_u64);
    let mut launch = transport_stream.launch_builder(&transport);
    launch.arg(&mut flux).arg(&nc).arg(&histories).arg(&seed);
    unsafe { launch.launch(LaunchConfig { grid_dim: (1024, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 }) }?;

    // Quick energy tally on the tally stream.
    let (n, b) = (energies.len() as i32, bins as i32);
    let mut launch = tally_stream.launch_builder(&tally_fn);
    launch.arg(energies).arg(&n).arg(&mut tally).arg(&b);
    unsafe { launch.launch(LaunchConfig::for_num_elems(energies.len() as u32)) }?;

    tally_stream.synchronize()?;
    let spectrum = tally.as_slice()?.to_vec();

    transport_stream.synchronize()?;
    drop(flux);
    Ok(TallyResult { spectrum })
}
