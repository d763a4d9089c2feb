//! case: a small MLP inference session (cudarc): the I/O buffers module allocates both the input and the output host buffers with `alloc_pinned` (write-combined in cudarc 0.19); the input is only written, but `infer` copies the logits out of the output buffer on the host, and the debug dump of the hidden layer uses `clone_dtoh` into a `Vec`
//! expect: write_combined_host_read=1, pageable_async_copy=1

mod buffers;
mod session;

pub use session::Session;

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cudarc::driver::CudaContext::new(0)?;
    let mut session = Session::new(&ctx, 784, 32_768, 10)?;
    let image: Vec<f32> = (0..784).map(|i| ((i * 31) % 255) as f32 / 255.0).collect();
    let logits = session.infer(&image)?;
    let class = logits.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i);
    println!("predicted class {class:?}");
    if std::env::var_os("DUMP_HIDDEN").is_some() {
        let hidden = session.dump_hidden()?;
        println!("hidden[0..8] = {:?}", &hidden[..8]);
    }
    Ok(())
}
