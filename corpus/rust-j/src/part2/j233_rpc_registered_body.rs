//! case: near-miss. RPC server receives request bodies into a reusable `Vec<u8>` and page-locks it once with the runtime layer's `register_host`; uploads go through the `RegisteredHost` guard (pinned, not pageable) and the stream is synchronized before the guard is used again or dropped
//! expect: none

use std::io::Read;
use std::net::TcpStream;

use cuda_lint_runtime::{Context, DeviceBuffer, RegisteredHost, Result, Stream};

pub const MAX_BODY: usize = 8 << 20;

pub struct BodyUploader<'a> {
    stream: Stream,
    body: RegisteredHost<'a, u8>,
    dev: DeviceBuffer<u8>,
}

impl<'a> BodyUploader<'a> {
    pub fn new(ctx: &Context, backing: &'a mut Vec<u8>) -> Result<Self> {
        backing.resize(MAX_BODY, 0);
        let body = ctx.register_host(backing.as_mut_slice())?;
        Ok(Self { stream: ctx.new_stream()?, body, dev: ctx.alloc::<u8>(MAX_BODY)? })
    }

    /// Reads one length-prefixed body from `conn` and makes it device-resident.
    pub fn receive(&mut self, conn: &mut TcpStream) -> std::io::Result<usize> {
        let mut len = [0u8; 4];
        conn.read_exact(&mut len)?;
        let len = (u32::from_le_bytes(len) as usize).min(MAX_BODY);
        conn.read_exact(&mut self.body[..len])?;
        let mut upload = || -> Result<()> {
            // SAFETY: the registered body is not written until the stream is synchronized.
            unsafe { self.stream.copy_htod_async(&mut self.dev, &self.body)? };
            self.stream.synchronize()
        };
        upload().map_err(|e| std::io::Error::other(e.to_string()))?;
        Ok(len)
    }

    pub fn device_body(&self) -> &DeviceBuffer<u8> {
        &self.dev
    }
}

pub fn serve(ctx: &Context, mut conn: TcpStream, requests: usize) -> Result<usize> {
    let mut backing = Vec::new();
    let mut up = BodyUploader::new(ctx, &mut backing)?;
    let mut total = 0;
    for _ in 0..requests {
        match up.receive(&mut conn) {
            Ok(n) => total += n,
            Err(_) => break,
        }
    }
    Ok(total)
}
