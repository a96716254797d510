//! Audio sources other than a microphone: a recording played into the
//! voice loop in real time, as a microphone would deliver it.

use std::time::{Duration, Instant};

/// 16 kHz mono audio arriving in pieces (from a microphone or a file).
pub type AudioChunks = tokio::sync::mpsc::Receiver<Vec<f32>>;

/// Delivers `samples` (16 kHz mono) in `chunk` pieces at the pace of real
/// time, like a microphone; the channel closes after the last piece.
pub fn paced_source(samples: Vec<f32>, chunk: Duration) -> AudioChunks {
    let (tx, rx) = tokio::sync::mpsc::channel(1024);
    let per = ((chunk.as_secs_f64() * 16_000.0) as usize).max(1);
    std::thread::Builder::new()
        .name("baton-file-microphone".into())
        .spawn(move || {
            let start = Instant::now();
            for (i, piece) in samples.chunks(per).enumerate() {
                let due = start + chunk * (i as u32 + 1);
                if let Some(wait) = due.checked_duration_since(Instant::now()) {
                    std::thread::sleep(wait);
                }
                if tx.blocking_send(piece.to_vec()).is_err() {
                    return;
                }
            }
        })
        .expect("spawn the file microphone");
    rx
}
