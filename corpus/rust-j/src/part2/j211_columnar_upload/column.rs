#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Plain,
    Delta,
    Dictionary,
}

#[derive(Debug, Clone)]
pub struct ColumnChunk {
    pub name: String,
    pub encoding: Encoding,
    pub values: Vec<i64>,
    pub min: i64,
    pub max: i64,
}

impl ColumnChunk {
    pub fn decode_delta(name: &str, deltas: &[i64]) -> Self {
        let mut acc = 0i64;
        let values: Vec<i64> = deltas.iter().map(|d| { acc += d; acc }).collect();
        let min = values.iter().copied().min().unwrap_or(0);
        let max = values.iter().copied().max().unwrap_or(0);
        Self { name: name.to_owned(), encoding: Encoding::Delta, values, min, max }
    }
}
