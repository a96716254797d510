//! Audio in and out: files decoded to mono, rate conversion, microphones
//! and speakers (real devices through cpal, or files in tests).

mod decode;
mod device;
mod echo;
mod playback;
mod resample;
mod source;

use std::path::PathBuf;

pub use decode::{Pcm, decode_bytes, decode_file};
pub use device::{DeviceInfo, Microphone, input_devices, open_speaker, output_devices};
pub use echo::cancel_echo;
pub use playback::{PlaybackQueue, Speaker, Tap};
pub use resample::{StreamResampler, resample};
pub use source::{AudioChunks, paced_source};

/// Why audio could not be read, converted or played.
#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    /// The file could not be opened.
    #[error("cannot open {path}: {reason}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file is not audio Baton can decode.
    #[error("cannot read the audio in {path}: {reason}")]
    Decode {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// Rate conversion failed.
    #[error("cannot convert the sample rate: {0}")]
    Resample(String),
    /// A sound device is missing or failed.
    #[error("sound device: {0}")]
    Device(String),
}
