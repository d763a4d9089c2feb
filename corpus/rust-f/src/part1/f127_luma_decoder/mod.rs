//! case: decoded frames are read back into host buffers that a helper module allocates with `cuMemHostAlloc(PORTABLE)` (cached pinned memory, read only after synchronizing), but the frame type's `Drop` hands them to `libc::free`, as if they came from `malloc`
//! expect: mismatched_free=1

mod alloc;
mod frame;

pub use frame::{DecodedFrame, Decoder};

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cudarc::driver::CudaContext::new(0)?;
    let decoder = Decoder::new(&ctx, 1280, 720)?;
    for k in 0..3 {
        let frame = decoder.decode(k)?;
        println!("frame {k}: mean {:.2}", frame.mean());
    }
    Ok(())
}
