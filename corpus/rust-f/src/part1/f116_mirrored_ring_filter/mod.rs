//! case: a streaming FIR filter keeps its history in a mirrored ring (one physical allocation mapped twice, back to back, with the driver's VMM calls); its kernel writes each new block through the first view and, after `__syncthreads`, reads the filter window through the mirrored view, with no `fence.proxy.alias` between
//! expect: unfenced_vmm_alias=1

mod filter;
mod ring;

pub use filter::StreamingFir;
pub use ring::MirroredRing;

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cudarc::driver::CudaContext::new(0)?;
    let mut fir = StreamingFir::new(&ctx, 1 << 16)?;
    let block: Vec<f32> = (0..filter::BLOCK).map(|i| ((i % 64) as f32 / 32.0) - 1.0).collect();
    for k in 0..16 {
        let energy = fir.push(&block)?;
        println!("block {k}: output energy {energy:.5}");
    }
    Ok(())
}
