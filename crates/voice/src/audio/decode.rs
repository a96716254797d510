//! Audio files (WAV, MP3, FLAC, Ogg Vorbis) to mono samples, with
//! symphonia (pure Rust).

use std::fs::File;
use std::path::Path;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{CODEC_TYPE_NULL, DecoderOptions};
use symphonia::core::errors::Error as SymErr;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

use super::{AudioError, resample};

/// Mono audio at a sample rate.
#[derive(Debug, Clone)]
pub struct Pcm {
    /// Samples, −1.0–1.0.
    pub samples: Vec<f32>,
    /// Samples per second.
    pub sample_rate: u32,
}

impl Pcm {
    /// The same audio at `rate` Hz.
    pub fn resampled(&self, rate: u32) -> Result<Pcm, AudioError> {
        Ok(Pcm {
            samples: resample(&self.samples, self.sample_rate, rate)?,
            sample_rate: rate,
        })
    }

    /// How long it plays.
    pub fn duration(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(
            self.samples.len() as f64 / f64::from(self.sample_rate.max(1)),
        )
    }
}

/// Reads an audio file and mixes it down to mono.
pub fn decode_file(path: &Path) -> Result<Pcm, AudioError> {
    let file = File::open(path).map_err(|e| AudioError::Open {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    decode_source(Box::new(file), path)
}

/// Decodes audio held in memory (e.g. a speech endpoint's answer);
/// `label` names it in errors.
pub fn decode_bytes(bytes: Vec<u8>, label: &str) -> Result<Pcm, AudioError> {
    decode_source(Box::new(std::io::Cursor::new(bytes)), Path::new(label))
}

/// Decodes any source; `path` gives the format hint (its extension) and
/// names the audio in errors.
fn decode_source(
    source: Box<dyn symphonia::core::io::MediaSource>,
    path: &Path,
) -> Result<Pcm, AudioError> {
    let bad = |reason: String| AudioError::Decode {
        path: path.to_path_buf(),
        reason,
    };
    let stream = MediaSourceStream::new(source, Default::default());
    let mut hint = Hint::new();
    if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
        hint.with_extension(ext);
    }
    let probed = symphonia::default::get_probe()
        .format(
            &hint,
            stream,
            &FormatOptions::default(),
            &MetadataOptions::default(),
        )
        .map_err(|e| match e {
            SymErr::Unsupported(_) => {
                bad("not an audio format Baton reads (WAV, MP3, FLAC or Ogg Vorbis)".into())
            }
            other => bad(other.to_string()),
        })?;
    let mut format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or_else(|| bad("the file has no audio track".into()))?;
    let track_id = track.id;
    let mut decoder = symphonia::default::get_codecs()
        .make(&track.codec_params, &DecoderOptions::default())
        .map_err(|e| bad(format!("unsupported audio codec: {e}")))?;
    let mut rate = track.codec_params.sample_rate.unwrap_or(0);
    let mut samples = Vec::new();
    let mut buf: Option<SampleBuffer<f32>> = None;
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(SymErr::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(SymErr::ResetRequired) => break,
            Err(e) => return Err(bad(e.to_string())),
        };
        if packet.track_id() != track_id {
            continue;
        }
        let decoded = match decoder.decode(&packet) {
            Ok(d) => d,
            // A damaged packet: skip it, as players do.
            Err(SymErr::DecodeError(e)) => {
                tracing::warn!("skipping a damaged audio packet in {}: {e}", path.display());
                continue;
            }
            Err(e) => return Err(bad(e.to_string())),
        };
        let spec = *decoded.spec();
        rate = spec.rate;
        let channels = spec.channels.count().max(1);
        let b = buf.get_or_insert_with(|| SampleBuffer::new(decoded.capacity() as u64, spec));
        if b.capacity() < decoded.capacity() * channels {
            *b = SampleBuffer::new(decoded.capacity() as u64, spec);
        }
        b.copy_interleaved_ref(decoded);
        for frame in b.samples().chunks(channels) {
            samples.push(frame.iter().sum::<f32>() / channels as f32);
        }
    }
    if rate == 0 || samples.is_empty() {
        return Err(bad("the file holds no audio".into()));
    }
    Ok(Pcm {
        samples,
        sample_rate: rate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_wav(path: &Path, rate: u32, channels: u16, frames: usize) {
        let spec = hound::WavSpec {
            channels,
            sample_rate: rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(path, spec).unwrap();
        for i in 0..frames {
            let v =
                ((i as f32 / rate as f32 * 440.0 * std::f32::consts::TAU).sin() * 8000.0) as i16;
            for _ in 0..channels {
                w.write_sample(v).unwrap();
            }
        }
        w.finalize().unwrap();
    }

    #[test]
    fn a_stereo_wav_becomes_mono_at_its_rate() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.wav");
        write_wav(&p, 44_100, 2, 44_100);
        let pcm = decode_file(&p).unwrap();
        assert_eq!(pcm.sample_rate, 44_100);
        assert_eq!(pcm.samples.len(), 44_100);
        let at16 = pcm.resampled(16_000).unwrap();
        assert!((at16.samples.len() as i64 - 16_000).abs() <= 2);
    }

    #[test]
    fn garbage_and_missing_files_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("notes.mp3");
        std::fs::write(&p, b"this is text, not audio").unwrap();
        let err = decode_file(&p).unwrap_err().to_string();
        assert!(
            err.contains("notes.mp3") && err.contains("not an audio format"),
            "{err}"
        );
        let err = decode_file(&dir.path().join("gone.wav"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cannot open") && err.contains("gone.wav"),
            "{err}"
        );
    }
}
