//! Sample-rate conversion with rubato's FFT resampler: whole clips (files,
//! synthesized speech) and a stream (a microphone at 44.1 or 48 kHz).

use audioadapter_buffers::direct::InterleavedSlice;
use rubato::{Fft, FixedSync, Resampler};

use super::AudioError;

const CHUNK: usize = 1024;

fn resampler(from: u32, to: u32) -> Result<Fft<f32>, AudioError> {
    Fft::<f32>::new(from as usize, to as usize, CHUNK, 1, FixedSync::Input)
        .map_err(|e| AudioError::Resample(e.to_string()))
}

/// Resamples a whole mono clip from `from` Hz to `to` Hz.
pub fn resample(samples: &[f32], from: u32, to: u32) -> Result<Vec<f32>, AudioError> {
    if from == to || samples.is_empty() {
        return Ok(samples.to_vec());
    }
    let mut r = resampler(from, to)?;
    let input = InterleavedSlice::new(samples, 1, samples.len())
        .map_err(|e| AudioError::Resample(e.to_string()))?;
    let out = r
        .process_all(&input, samples.len(), None)
        .map_err(|e| AudioError::Resample(e.to_string()))?;
    Ok(out.take_data())
}

/// Resamples a mono stream that arrives in pieces of any size.
pub struct StreamResampler {
    inner: Option<Fft<f32>>,
    pending: Vec<f32>,
    out: Vec<f32>,
}

impl StreamResampler {
    /// A stream from `from` Hz to `to` Hz.
    pub fn new(from: u32, to: u32) -> Result<Self, AudioError> {
        let inner = if from == to {
            None
        } else {
            Some(resampler(from, to)?)
        };
        let out_len = inner.as_ref().map_or(0, Resampler::output_frames_max);
        Ok(Self {
            inner,
            pending: Vec::with_capacity(CHUNK * 2),
            out: vec![0.0; out_len],
        })
    }

    /// Feeds `input`; returns what is ready at the new rate.
    pub fn push(&mut self, input: &[f32]) -> Vec<f32> {
        let Some(r) = self.inner.as_mut() else {
            return input.to_vec();
        };
        self.pending.extend_from_slice(input);
        let mut ready = Vec::new();
        loop {
            let need = r.input_frames_next();
            if self.pending.len() < need {
                break;
            }
            let (Ok(inp), Ok(mut outp)) = (
                InterleavedSlice::new(&self.pending[..need], 1, need),
                InterleavedSlice::new_mut(&mut self.out[..], 1, r.output_frames_max()),
            ) else {
                break;
            };
            match r.process_into_buffer(&inp, &mut outp, None) {
                Ok((used, made)) => {
                    ready.extend_from_slice(&self.out[..made]);
                    self.pending.drain(..used);
                }
                Err(e) => {
                    tracing::warn!("resampling failed, dropping {need} samples: {e}");
                    self.pending.drain(..need);
                }
            }
        }
        ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tone(rate: u32, hz: f32, secs: f32) -> Vec<f32> {
        (0..(rate as f32 * secs) as usize)
            .map(|i| (i as f32 / rate as f32 * hz * std::f32::consts::TAU).sin() * 0.5)
            .collect()
    }

    /// Frequency by counting upward zero crossings.
    fn frequency(samples: &[f32], rate: u32) -> f32 {
        let crossings = samples
            .windows(2)
            .filter(|w| w[0] < 0.0 && w[1] >= 0.0)
            .count();
        crossings as f32 / (samples.len() as f32 / rate as f32)
    }

    #[test]
    fn a_clip_keeps_its_length_and_pitch() {
        let out = resample(&tone(44_100, 440.0, 1.0), 44_100, 16_000).unwrap();
        assert!((out.len() as i64 - 16_000).abs() <= 2, "{}", out.len());
        assert!((frequency(&out, 16_000) - 440.0).abs() < 3.0);
    }

    #[test]
    fn a_stream_in_odd_pieces_matches_the_rate() {
        let input = tone(48_000, 300.0, 2.0);
        let mut r = StreamResampler::new(48_000, 16_000).unwrap();
        let mut out = Vec::new();
        for piece in input.chunks(333) {
            out.extend(r.push(piece));
        }
        // All but the last partial chunk has come out.
        assert!(out.len() > 16_000 * 2 - 1024, "{}", out.len());
        assert!((frequency(&out[2000..], 16_000) - 300.0).abs() < 3.0);
        let mut same = StreamResampler::new(16_000, 16_000).unwrap();
        assert_eq!(same.push(&[0.1, 0.2]), vec![0.1, 0.2]);
    }
}
