//! What `baton-stt` and its client say to each other over the worker's
//! standard input and output.
//!
//! The worker first writes one [`Ready`] line. Then, for each request, the
//! client writes one [`Request`] JSON line followed by `samples` × 4 bytes
//! of little-endian `f32` audio (16 kHz mono), and the worker answers with
//! one [`Response`] line. Logs go to standard error.

use serde::{Deserialize, Serialize};

use super::{Pass, Transcript};

/// The worker's first line: the model loaded, or why not.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Ready {
    /// Whether the model loaded.
    pub ok: bool,
    /// The model's kind as whisper.cpp reports it (e.g. "tiny").
    #[serde(default)]
    pub model: String,
    /// How long loading took, in milliseconds.
    #[serde(default)]
    pub load_ms: u64,
    /// Why it did not load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One transcription request; the audio follows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    /// Number of f32 samples that follow.
    pub samples: usize,
    /// Draft or final.
    pub pass: Pass,
}

/// The answer to one request.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Response {
    /// The transcript, when it worked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Transcript>,
    /// Why it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Writes the audio of a request.
pub fn write_samples(out: &mut impl std::io::Write, samples: &[f32]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(samples.len() * 4);
    for s in samples {
        bytes.extend_from_slice(&s.to_le_bytes());
    }
    out.write_all(&bytes)
}

/// Reads the audio of a request.
pub fn read_samples(input: &mut impl std::io::Read, count: usize) -> std::io::Result<Vec<f32>> {
    let mut bytes = vec![0u8; count * 4];
    input.read_exact(&mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_round_trip() {
        let s = vec![0.0f32, -1.0, 0.5, 1e-7];
        let mut buf = Vec::new();
        write_samples(&mut buf, &s).unwrap();
        assert_eq!(buf.len(), 16);
        assert_eq!(read_samples(&mut buf.as_slice(), 4).unwrap(), s);
        assert!(read_samples(&mut buf.as_slice(), 5).is_err());
    }
}
