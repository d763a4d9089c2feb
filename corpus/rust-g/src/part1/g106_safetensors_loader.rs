//! case: model weight loader that page-locks each tensor's bytes in place (`register_host`), enqueues all uploads on one stream and keeps the registrations alive until a single `synchronize` after the loop; the host buffers are released only then
//! expect: none

use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, RegisteredHost, Result};

/// One tensor of a checkpoint shard, already read from disk (bf16 as raw u16 bits).
pub struct HostTensor {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: Vec<u16>,
}

fn parse_shard(bytes: &[u8]) -> Vec<HostTensor> {
    // header: [n_tensors][for each: name_len, name, rank, dims..., n_elems] then the data
    let mut tensors = Vec::new();
    let mut off = 0usize;
    let rd = |off: &mut usize| -> usize {
        let v = u32::from_le_bytes(bytes[*off..*off + 4].try_into().unwrap()) as usize;
        *off += 4;
        v
    };
    let n = rd(&mut off);
    for _ in 0..n {
        let name_len = rd(&mut off);
        let name = String::from_utf8_lossy(&bytes[off..off + name_len]).into_owned();
        off += name_len;
        let rank = rd(&mut off);
        let shape: Vec<usize> = (0..rank).map(|_| rd(&mut off)).collect();
        let n_elems: usize = shape.iter().product();
        let data = bytes[off..off + 2 * n_elems]
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        off += 2 * n_elems;
        tensors.push(HostTensor { name, shape, data });
    }
    tensors
}

pub fn load_shard(ctx: &Context, bytes: &[u8]) -> Result<HashMap<String, (Vec<usize>, DeviceBuffer<u16>)>> {
    let stream = ctx.new_stream()?;
    let mut tensors = parse_shard(bytes);
    let mut out = HashMap::with_capacity(tensors.len());

    // Allocate everything first: a failure here leaves nothing in flight.
    let mut pending = tensors
        .iter()
        .map(|t| Ok((t.name.clone(), t.shape.clone(), ctx.alloc::<u16>(t.data.len())?)))
        .collect::<Result<Vec<_>>>()?;

    let mut registrations: Vec<RegisteredHost<'_, u16>> = Vec::with_capacity(tensors.len());
    for (t, (_, _, dev)) in tensors.iter_mut().zip(pending.iter_mut()) {
        let enqueued = ctx.register_host(t.data.as_mut_slice()).and_then(|locked| {
            // SAFETY: `locked` stays registered and untouched until the synchronize below.
            unsafe { stream.copy_htod_async(dev, &locked)? };
            Ok(locked)
        });
        match enqueued {
            Ok(locked) => registrations.push(locked),
            Err(e) => {
                // earlier uploads still read their registered memory: wait before unregistering
                let _ = stream.synchronize();
                return Err(e);
            }
        }
    }

    stream.synchronize()?;
    drop(registrations);
    for (name, shape, dev) in pending {
        out.insert(name, (shape, dev));
    }
    Ok(out)
}
