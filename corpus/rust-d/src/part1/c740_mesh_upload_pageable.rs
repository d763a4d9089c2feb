//! case: a mesh streamer (runtime layer) decodes a glTF-like buffer into a Vec of vertex floats and uploads it with `copy_htod_async` straight from that Vec: pageable memory, megabytes per mesh
//! expect: pageable_async_copy=1

use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub struct MeshRecord {
    pub name: String,
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
}

pub struct GpuMesh {
    pub vertices: DeviceBuffer<f32>, // interleaved: position, normal, uv
    pub count: usize,
}

pub struct MeshCache {
    ctx: Context,
    stream: Stream,
    meshes: HashMap<String, GpuMesh>,
}

fn interleave(m: &MeshRecord) -> Vec<f32> {
    m.positions
        .iter()
        .zip(&m.normals)
        .zip(&m.uvs)
        .flat_map(|((p, n), uv)| p.iter().chain(n).chain(uv).copied().collect::<Vec<_>>())
        .collect()
}

impl MeshCache {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, meshes: HashMap::new() })
    }

    pub fn load_all(&mut self, records: impl IntoIterator<Item = MeshRecord>) -> Result<usize> {
        let mut staged = Vec::new();
        for record in records {
            let host = interleave(&record);
            let mut vertices = self.ctx.alloc::<f32>(host.len())?;
            unsafe { self.stream.copy_htod_async(&mut vertices, &host)? }; // EXPECT: pageable_async_copy
            staged.push((record.name, GpuMesh { vertices, count: record.positions.len() }));
        }
        self.stream.synchronize()?;
        let n = staged.len();
        self.meshes.extend(staged);
        Ok(n)
    }

    pub fn get(&self, name: &str) -> Option<&GpuMesh> {
        self.meshes.get(name)
    }
}
