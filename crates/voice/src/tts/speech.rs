//! Synthesized audio: 16-bit mono samples at a sample rate.

use std::io::Cursor;
use std::path::Path;
use std::time::Duration;

use super::TtsError;

/// One utterance of audio.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Speech {
    /// Mono samples.
    pub samples: Vec<i16>,
    /// Samples per second.
    pub sample_rate: u32,
}

/// A sample −1.0–1.0 as 16-bit PCM.
pub fn f32_to_i16(v: f32) -> i16 {
    (v.clamp(-1.0, 1.0) * 32767.0) as i16
}

impl Speech {
    /// 16-bit speech from samples in −1.0–1.0.
    pub fn from_f32(samples: &[f32], sample_rate: u32) -> Self {
        Self {
            samples: samples.iter().copied().map(f32_to_i16).collect(),
            sample_rate,
        }
    }

    /// The samples as −1.0–1.0.
    pub fn to_f32(&self) -> Vec<f32> {
        self.samples
            .iter()
            .map(|&s| f32::from(s) / 32768.0)
            .collect()
    }

    /// How long it plays.
    pub fn duration(&self) -> Duration {
        Duration::from_secs_f64(self.samples.len() as f64 / f64::from(self.sample_rate.max(1)))
    }

    /// Root-mean-square level, 0.0 (silence) to 1.0.
    pub fn rms(&self) -> f64 {
        if self.samples.is_empty() {
            return 0.0;
        }
        let sum: f64 = self
            .samples
            .iter()
            .map(|&s| (f64::from(s) / 32768.0).powi(2))
            .sum();
        (sum / self.samples.len() as f64).sqrt()
    }

    /// The audio as a WAV file (PCM 16-bit mono).
    pub fn to_wav(&self) -> Vec<u8> {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: self.sample_rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut out = Cursor::new(Vec::with_capacity(44 + self.samples.len() * 2));
        {
            let mut w = hound::WavWriter::new(&mut out, spec).expect("WAV header to memory");
            for &s in &self.samples {
                w.write_sample(s).expect("WAV sample to memory");
            }
            w.finalize().expect("WAV to memory");
        }
        out.into_inner()
    }

    /// Writes a WAV file atomically (temp file, then rename).
    pub fn write_wav(&self, path: &Path) -> Result<(), TtsError> {
        let fail = |e: std::io::Error| TtsError::Write {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let tmp = path.with_extension("wav.tmp");
        std::fs::write(&tmp, self.to_wav()).map_err(fail)?;
        std::fs::rename(&tmp, path).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wav_round_trips_and_duration_follows_the_rate() {
        let speech = Speech {
            samples: (0..22050).map(|i| ((i % 100) as i16 - 50) * 300).collect(),
            sample_rate: 22050,
        };
        assert_eq!(speech.duration(), Duration::from_secs(1));
        assert!(speech.rms() > 0.1);
        let wav = speech.to_wav();
        let mut r = hound::WavReader::new(Cursor::new(wav)).unwrap();
        assert_eq!(r.spec().sample_rate, 22050);
        let back: Vec<i16> = r.samples::<i16>().map(Result::unwrap).collect();
        assert_eq!(back, speech.samples);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wav");
        speech.write_wav(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), speech.to_wav());
        assert!(!dir.path().join("a.wav.tmp").exists());
        let bad = dir.path().join("missing").join("a.wav");
        assert!(matches!(
            speech.write_wav(&bad),
            Err(TtsError::Write { .. })
        ));
    }
}
