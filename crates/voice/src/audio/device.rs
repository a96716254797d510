//! Sound cards through cpal: the device lists, a microphone that delivers
//! 16 kHz mono chunks, and a speaker that drains a [`PlaybackQueue`].
//! Each cpal stream lives on its own thread (streams are not `Send` on
//! every platform) until its handle is dropped.

use std::sync::Arc;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{SampleFormat, SizedSample, StreamConfig};
use tokio_util::sync::CancellationToken;

use super::playback::{PlaybackQueue, Speaker};
use super::source::AudioChunks;
use super::{AudioError, StreamResampler};
use crate::stt::STT_SAMPLE_RATE;

/// A sound device, for pickers and settings.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct DeviceInfo {
    /// Stable id to select it by (e.g. "alsa:pulse").
    pub id: String,
    /// Name to show.
    pub name: String,
    /// Whether it is the system's default.
    pub is_default: bool,
}

fn device_error(what: &str, e: impl std::fmt::Display) -> AudioError {
    AudioError::Device(format!("{what}: {e}"))
}

fn list(input: bool) -> Result<Vec<DeviceInfo>, AudioError> {
    let host = cpal::default_host();
    let default = if input {
        host.default_input_device()
    } else {
        host.default_output_device()
    }
    .and_then(|d| d.id().ok())
    .map(|id| id.to_string());
    let devices = if input {
        host.input_devices().map(|d| d.collect::<Vec<_>>())
    } else {
        host.output_devices().map(|d| d.collect::<Vec<_>>())
    }
    .map_err(|e| device_error("cannot list the sound devices", e))?;
    Ok(devices
        .into_iter()
        .filter_map(|d| {
            let id = d.id().ok()?.to_string();
            let name = d
                .description()
                .map(|desc| desc.name().to_string())
                .unwrap_or_else(|_| id.clone());
            Some(DeviceInfo {
                is_default: default.as_deref() == Some(id.as_str()),
                id,
                name,
            })
        })
        .collect())
}

/// The microphones and other inputs.
pub fn input_devices() -> Result<Vec<DeviceInfo>, AudioError> {
    list(true)
}

/// The speakers and other outputs.
pub fn output_devices() -> Result<Vec<DeviceInfo>, AudioError> {
    list(false)
}

fn pick(input: bool, id: Option<&str>) -> Result<cpal::Device, AudioError> {
    let host = cpal::default_host();
    let kind = if input { "microphone" } else { "speaker" };
    match id {
        Some(id) => {
            let parsed: cpal::DeviceId = id
                .parse()
                .map_err(|e| device_error(&format!("“{id}” is not a device id"), e))?;
            host.device_by_id(&parsed)
                .ok_or_else(|| AudioError::Device(format!("the {kind} “{id}” is not connected")))
        }
        None => if input {
            host.default_input_device()
        } else {
            host.default_output_device()
        }
        .ok_or_else(|| AudioError::Device(format!("no {kind} found (is a sound server running?)"))),
    }
}

/// An open microphone; capturing stops when it is dropped.
pub struct Microphone {
    stop: CancellationToken,
    /// The device's own rate, before conversion to 16 kHz.
    pub device_rate: u32,
    /// The device's name.
    pub name: String,
}

impl Drop for Microphone {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn input_stream<T>(
    device: &cpal::Device,
    config: StreamConfig,
    raw: std_mpsc::SyncSender<Vec<f32>>,
) -> Result<cpal::Stream, AudioError>
where
    T: SizedSample + Send + 'static,
    f32: cpal::FromSample<T>,
{
    let channels = usize::from(config.channels.max(1));
    device
        .build_input_stream::<T, _, _>(
            config,
            move |data: &[T], _| {
                let mono: Vec<f32> = data
                    .chunks(channels)
                    .map(|f| {
                        f.iter()
                            .map(|&s| <f32 as cpal::FromSample<T>>::from_sample_(s))
                            .sum::<f32>()
                            / channels as f32
                    })
                    .collect();
                // A full channel means the consumer stalled: drop, never block.
                let _ = raw.try_send(mono);
            },
            |e| tracing::debug!("microphone stream: {e}"),
            None,
        )
        .map_err(|e| device_error("cannot open the microphone", e))
}

impl Microphone {
    /// Opens a microphone (`None`: the default) and starts capturing;
    /// chunks arrive at 16 kHz mono.
    pub fn open(id: Option<&str>) -> Result<(Self, AudioChunks), AudioError> {
        let (tx, rx) = tokio::sync::mpsc::channel::<Vec<f32>>(512);
        let (ready_tx, ready_rx) = std_mpsc::channel::<Result<(u32, String), AudioError>>();
        let stop = CancellationToken::new();
        let id = id.map(str::to_string);
        let thread_stop = stop.clone();
        std::thread::Builder::new()
            .name("baton-microphone".into())
            .spawn(move || {
                let (raw_tx, raw_rx) = std_mpsc::sync_channel::<Vec<f32>>(512);
                let opened = (|| {
                    let device = pick(true, id.as_deref())?;
                    let supported = device
                        .default_input_config()
                        .map_err(|e| device_error("the microphone has no usable format", e))?;
                    let config = supported.config();
                    let stream = match supported.sample_format() {
                        SampleFormat::I16 => input_stream::<i16>(&device, config, raw_tx)?,
                        SampleFormat::U16 => input_stream::<u16>(&device, config, raw_tx)?,
                        SampleFormat::I32 => input_stream::<i32>(&device, config, raw_tx)?,
                        _ => input_stream::<f32>(&device, config, raw_tx)?,
                    };
                    stream
                        .play()
                        .map_err(|e| device_error("cannot start the microphone", e))?;
                    let name = device
                        .description()
                        .map(|d| d.name().to_string())
                        .unwrap_or_default();
                    Ok((stream, config.sample_rate, name))
                })();
                let (stream, rate) = match opened {
                    Ok((stream, rate, name)) => {
                        let _ = ready_tx.send(Ok((rate, name)));
                        (stream, rate)
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let Ok(mut resampler) = StreamResampler::new(rate, STT_SAMPLE_RATE) else {
                    return;
                };
                while !thread_stop.is_cancelled() {
                    match raw_rx.recv_timeout(Duration::from_millis(20)) {
                        Ok(chunk) => {
                            let out = resampler.push(&chunk);
                            if !out.is_empty() && tx.blocking_send(out).is_err() {
                                break; // nobody listens any more
                            }
                        }
                        Err(std_mpsc::RecvTimeoutError::Timeout) => {}
                        Err(std_mpsc::RecvTimeoutError::Disconnected) => break,
                    }
                }
                drop(stream);
            })
            .map_err(|e| device_error("cannot start the capture thread", e))?;
        let (device_rate, name) = ready_rx
            .recv()
            .map_err(|_| AudioError::Device("the capture thread stopped".into()))??;
        Ok((
            Self {
                stop,
                device_rate,
                name,
            },
            rx,
        ))
    }
}

fn output_stream<T>(
    device: &cpal::Device,
    config: StreamConfig,
    queue: Arc<PlaybackQueue>,
) -> Result<cpal::Stream, AudioError>
where
    T: SizedSample + cpal::FromSample<f32> + Send + 'static,
{
    let channels = usize::from(config.channels.max(1));
    let mut mono = Vec::new();
    device
        .build_output_stream::<T, _, _>(
            config,
            move |data: &mut [T], _| {
                let frames = data.len() / channels;
                mono.resize(frames, 0.0);
                queue.pull(&mut mono);
                for (frame, &v) in data.chunks_mut(channels).zip(mono.iter()) {
                    frame.fill(T::from_sample_(v));
                }
            },
            |e| tracing::debug!("speaker stream: {e}"),
            None,
        )
        .map_err(|e| device_error("cannot open the speaker", e))
}

/// Opens a speaker (`None`: the default) and starts draining a new queue.
pub fn open_speaker(id: Option<&str>) -> Result<Speaker, AudioError> {
    let (ready_tx, ready_rx) = std_mpsc::channel::<Result<Arc<PlaybackQueue>, AudioError>>();
    let stop = CancellationToken::new();
    let id = id.map(str::to_string);
    let thread_stop = stop.clone();
    std::thread::Builder::new()
        .name("baton-speaker".into())
        .spawn(move || {
            let opened = (|| {
                let device = pick(false, id.as_deref())?;
                let supported = device
                    .default_output_config()
                    .map_err(|e| device_error("the speaker has no usable format", e))?;
                let mut config = supported.config();
                // Small buffers: a stop is heard within a few milliseconds.
                if let cpal::SupportedBufferSize::Range { min, max } = supported.buffer_size() {
                    let want = config.sample_rate / 100; // 10 ms
                    config.buffer_size = cpal::BufferSize::Fixed(want.clamp(*min, *max));
                }
                let queue = PlaybackQueue::new(config.sample_rate);
                let stream = match supported.sample_format() {
                    SampleFormat::I16 => output_stream::<i16>(&device, config, Arc::clone(&queue)),
                    SampleFormat::U16 => output_stream::<u16>(&device, config, Arc::clone(&queue)),
                    SampleFormat::I32 => output_stream::<i32>(&device, config, Arc::clone(&queue)),
                    _ => output_stream::<f32>(&device, config, Arc::clone(&queue)),
                }
                .or_else(|_| {
                    // Some devices refuse a fixed buffer: take theirs.
                    config.buffer_size = cpal::BufferSize::Default;
                    output_stream::<f32>(&device, config, Arc::clone(&queue))
                })?;
                stream
                    .play()
                    .map_err(|e| device_error("cannot start the speaker", e))?;
                Ok((stream, queue))
            })();
            match opened {
                Ok((stream, queue)) => {
                    let _ = ready_tx.send(Ok(queue));
                    while !thread_stop.is_cancelled() {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    drop(stream);
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            }
        })
        .map_err(|e| device_error("cannot start the playback thread", e))?;
    let queue = ready_rx
        .recv()
        .map_err(|_| AudioError::Device("the playback thread stopped".into()))??;
    Ok(Speaker::from_parts(queue, stop))
}
