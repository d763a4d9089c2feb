//! case: a Vec page-locked in place with the runtime layer's register_host feeds async uploads; the producer overwrites it for the next batch before the stream finished reading it
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

fn produce_batch(buf: &mut [f32], batch: usize) {
    for (i, v) in buf.iter_mut().enumerate() {
        *v = (batch * 31 + i) as f32;
    }
}

pub struct Uploader<'a> {
    stream: &'a Stream,
    device: Vec<DeviceBuffer<f32>>,
}

impl<'a> Uploader<'a> {
    pub fn upload_all(&mut self, ctx: &Context, host: &mut Vec<f32>, batches: usize) -> Result<()> {
        let n = host.len();
        let mut pinned = ctx.register_host(host.as_mut_slice())?;
        for b in 0..batches {
            produce_batch(&mut pinned, b); // EXPECT: missing_sync
            let mut dst = ctx.alloc::<f32>(n)?;
            unsafe { self.stream.copy_htod_async(&mut dst, &pinned)? };
            self.device.push(dst);
        }
        self.stream.synchronize()?;
        drop(pinned);
        Ok(())
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    let mut host = vec![0.0f32; 1 << 20];
    let mut up = Uploader { stream: &stream, device: Vec::new() };
    up.upload_all(&ctx, &mut host, 4)?;
    println!("{} batches on the device", up.device.len());
    Ok(())
}
