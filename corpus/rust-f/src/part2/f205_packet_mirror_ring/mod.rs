//! case: packet capture ring mapped twice (base and base+size) over one physical allocation; the append kernel writes through the low view and checksums through the high view without fence.proxy.alias, and the ring's Drop frees the reservation before unmapping it
//! expect: unfenced_vmm_alias=1, vmm_lifecycle=1
pub mod reassembly;
pub mod ring;

pub type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub fn capture(packets: &[Vec<u8>]) -> Res<u64> {
    let ring = ring::MirroredRing::new(4 << 20)?;
    let mut asm = reassembly::Reassembler::new(&ring)?;
    let mut digest = 0u64;
    for p in packets {
        digest ^= asm.push(&ring, p)? as u64;
    }
    Ok(digest)
}
