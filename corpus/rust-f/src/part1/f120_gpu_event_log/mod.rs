//! case: an append-only event log on the GPU backed by a growable VMM buffer: the constructor maps and grants the first chunk, but `grow` only creates and maps further chunks, and the log clears the freshly mapped chunk with `cuMemsetD8Async` before any `cuMemSetAccess` covered it
//! expect: vmm_lifecycle=1

mod growable;
mod log;

pub use growable::GrowableBuffer;
pub use log::EventLog;

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cudarc::driver::CudaContext::new(0)?;
    let mut log = EventLog::new(&ctx, 1 << 30)?;
    for batch in 0..6 {
        let first = log.reserve_records(300_000)?;
        println!("batch {batch}: records start at {first}, committed {} bytes", log.committed_bytes());
    }
    log.flush()?;
    Ok(())
}
