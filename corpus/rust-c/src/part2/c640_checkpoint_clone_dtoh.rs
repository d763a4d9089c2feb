//! case: a trainer's checkpoint writer downloads every parameter tensor (millions of floats each) with cudarc's `clone_dtoh` into fresh `Vec`s, a pageable device-to-host copy per layer, before serializing them
//! expect: pageable_async_copy=1

use std::error::Error;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DriverError};

pub struct Param {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: CudaSlice<f32>,
}

pub struct Model {
    pub stream: Arc<CudaStream>,
    pub params: Vec<Param>,
}

pub trait CheckpointSink {
    fn tensor(&mut self, name: &str, shape: &[usize], values: &[f32]) -> std::io::Result<()>;
}

pub struct RawFileSink<W: Write> {
    out: W,
}

impl<W: Write> CheckpointSink for RawFileSink<W> {
    fn tensor(&mut self, name: &str, shape: &[usize], values: &[f32]) -> std::io::Result<()> {
        writeln!(self.out, "{name} {shape:?}")?;
        for v in values {
            self.out.write_all(&v.to_le_bytes())?;
        }
        Ok(())
    }
}

impl Model {
    pub fn num_params(&self) -> usize {
        self.params.iter().map(|p| p.data.len()).sum()
    }

    /// Downloads every parameter, in order.
    fn download_all(&self) -> Result<Vec<Vec<f32>>, DriverError> {
        self.params.iter().map(|p| self.stream.clone_dtoh(&p.data)).collect() // EXPECT: pageable_async_copy
    }

    pub fn save<S: CheckpointSink>(&self, sink: &mut S) -> Result<(), Box<dyn Error>> {
        let host = self.download_all()?;
        for (p, values) in self.params.iter().zip(&host) {
            sink.tensor(&p.name, &p.shape, values)?;
        }
        Ok(())
    }
}

pub fn save_to(model: &Model, path: &Path) -> Result<(), Box<dyn Error>> {
    let mut sink = RawFileSink { out: BufWriter::new(File::create(path)?) };
    model.save(&mut sink)?;
    sink.out.flush()?;
    println!("saved {} parameters to {}", model.num_params(), path.display());
    Ok(())
}
