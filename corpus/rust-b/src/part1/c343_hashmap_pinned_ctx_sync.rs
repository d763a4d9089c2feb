//! case: a request router keeps per-client pinned buffers in a HashMap, uploads from several of them on per-client streams, and waits for the whole context before dropping the map
//! expect: none
use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Client {
    stream: Stream,
    input: PinnedBuffer<f32>,
    dev: DeviceBuffer<f32>,
}

pub fn upload_round(ctx: &Context, requests: &HashMap<u32, Vec<f32>>) -> Result<usize> {
    let mut clients: HashMap<u32, Client> = HashMap::new();
    for (&id, req) in requests {
        let client = match clients.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => v.insert(Client {
                stream: ctx.new_stream()?,
                input: ctx.alloc_pinned(req.len())?,
                dev: ctx.alloc(req.len())?,
            }),
        };
        client.input.copy_from_slice(req);
        // SAFETY: `input` lives in `clients` until after the context synchronize below.
        unsafe { client.stream.copy_htod_async(&mut client.dev, &client.input)? };
    }
    let n = clients.len();
    // Every client stream belongs to `ctx`: this waits for all of the uploads.
    ctx.synchronize()?;
    drop(clients);
    Ok(n)
}
