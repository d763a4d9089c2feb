/// Encodes 0xAARRGGBB pixels as a binary PPM (P6).
pub fn encode_ppm(pixels: &[u32], width: usize, height: usize) -> Vec<u8> {
    let mut out = format!("P6\n{width} {height}\n255\n").into_bytes();
    out.reserve(width * height * 3);
    pixels
        .iter()
        .take(width * height)
        .for_each(|&p| out.extend_from_slice(&[(p >> 16) as u8, (p >> 8) as u8, p as u8]));
    out
}
