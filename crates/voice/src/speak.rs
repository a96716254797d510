//! Speaking a streamed answer: text chunks in, sentences synthesized and
//! played in order as soon as each is complete, so the first sentence
//! sounds while the model is still writing. Cancelling (barge-in) stops
//! between utterances at once and drops everything queued.

use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::{SentenceSplitter, Speech, SplitterOptions, TextToSpeech, TtsError};

/// Where synthesized speech goes (a speaker, or a recording in tests).
pub trait AudioSink: Send {
    /// Plays one utterance, or queues it on the device and returns at once
    /// (so the next sentence is synthesized while this one sounds).
    fn play(&mut self, speech: &Speech) -> Result<(), TtsError>;

    /// Waits until everything queued has been played, or `cancel` fires.
    fn finish(&mut self, cancel: &CancellationToken) -> Result<(), TtsError> {
        let _ = cancel;
        Ok(())
    }

    /// A handle that silences the device at once and drops what is
    /// queued, callable from any thread (barge-in); `None` when playing is
    /// synchronous and cancelling between utterances is enough.
    fn interrupter(&self) -> Option<Arc<dyn Fn() + Send + Sync>> {
        None
    }
}

/// A sink that keeps every utterance, in order: a file as the speaker.
#[derive(Debug, Default, Clone)]
pub struct RecordingSink {
    /// The utterances played.
    pub utterances: Vec<Speech>,
}

impl RecordingSink {
    /// All utterances as one recording, `gap` of silence between them.
    pub fn joined(&self, gap: Duration) -> Speech {
        let rate = self.utterances.first().map_or(22_050, |s| s.sample_rate);
        let silence = vec![0i16; (gap.as_secs_f64() * f64::from(rate)) as usize];
        let mut samples = Vec::new();
        for (i, u) in self.utterances.iter().enumerate() {
            if i > 0 {
                samples.extend(&silence);
            }
            samples.extend(&u.samples);
        }
        Speech {
            samples,
            sample_rate: rate,
        }
    }
}

impl AudioSink for RecordingSink {
    fn play(&mut self, speech: &Speech) -> Result<(), TtsError> {
        self.utterances.push(speech.clone());
        Ok(())
    }
}

/// What speaking an answer did.
#[derive(Debug)]
pub struct SpeakReport<S> {
    /// The sentences spoken, in order.
    pub spoken: Vec<String>,
    /// From the start to the first utterance handed to the sink.
    pub first_audio: Option<Duration>,
    /// Whether it was cancelled before the end.
    pub stopped: bool,
    /// The sink, given back.
    pub sink: S,
}

/// Speaks the text arriving on `chunks` until the sender closes or
/// `cancel` fires. Synthesis runs on one blocking thread while the text
/// keeps arriving; a queuing sink plays sentence N while N+1 is
/// synthesized. On `cancel` the sink is silenced at once.
pub async fn speak_stream<S: AudioSink + 'static>(
    chunks: tokio::sync::mpsc::Receiver<String>,
    tts: Arc<dyn TextToSpeech>,
    sink: S,
    options: SplitterOptions,
    cancel: CancellationToken,
) -> Result<SpeakReport<S>, TtsError> {
    speak_stream_observed(chunks, tts, sink, options, cancel, |_| {}).await
}

/// A step of [`speak_stream_observed`], with when it happened.
#[derive(Debug, Clone)]
pub enum SpeakStep {
    /// A sentence is complete and goes to the speech engine.
    Sentence(String, Instant),
    /// Its audio has been handed to the sink.
    Queued(String, Instant),
}

/// [`speak_stream`], telling `observe` when each sentence is complete and
/// when its audio is handed to the sink (for the speaking indicator and
/// for timing the parts of the latency).
pub async fn speak_stream_observed<S: AudioSink + 'static>(
    mut chunks: tokio::sync::mpsc::Receiver<String>,
    tts: Arc<dyn TextToSpeech>,
    sink: S,
    options: SplitterOptions,
    cancel: CancellationToken,
    observe: impl Fn(SpeakStep) + Send + Sync + 'static,
) -> Result<SpeakReport<S>, TtsError> {
    let observe = Arc::new(observe);
    let started = Instant::now();
    let interrupt = sink.interrupter();
    let (tx, rx) = mpsc::channel::<String>();
    let worker_cancel = cancel.clone();
    let worker_observe = Arc::clone(&observe);
    let worker = tokio::task::spawn_blocking(move || {
        let mut sink = sink;
        let mut spoken = Vec::new();
        let mut first_audio = None;
        for sentence in rx {
            if worker_cancel.is_cancelled() {
                break;
            }
            let speech = tts.synthesize(&sentence)?;
            if worker_cancel.is_cancelled() {
                break;
            }
            sink.play(&speech)?;
            worker_observe(SpeakStep::Queued(sentence.clone(), Instant::now()));
            first_audio.get_or_insert_with(|| started.elapsed());
            spoken.push(sentence);
        }
        if !worker_cancel.is_cancelled() {
            sink.finish(&worker_cancel)?;
        }
        Ok::<_, TtsError>((spoken, first_audio, sink))
    });
    let mut splitter = SentenceSplitter::new(options);
    loop {
        tokio::select! {
            _ = cancel.cancelled() => {
                if let Some(stop) = &interrupt {
                    stop();
                }
                break;
            }
            chunk = chunks.recv() => match chunk {
                Some(text) => {
                    for s in splitter.push(&text) {
                        observe(SpeakStep::Sentence(s.clone(), Instant::now()));
                        let _ = tx.send(s);
                    }
                }
                None => {
                    for s in splitter.finish() {
                        observe(SpeakStep::Sentence(s.clone(), Instant::now()));
                        let _ = tx.send(s);
                    }
                    break;
                }
            },
        }
    }
    drop(tx);
    // Sentences may still be playing: a cancel now silences them too.
    let mut worker = worker;
    let joined = tokio::select! {
        r = &mut worker => r,
        _ = cancel.cancelled() => {
            if let Some(stop) = &interrupt {
                stop();
            }
            worker.await
        }
    };
    let (spoken, first_audio, sink) =
        joined.map_err(|e| TtsError::Synthesis(format!("the speech thread failed: {e}")))??;
    Ok(SpeakReport {
        spoken,
        first_audio,
        stopped: cancel.is_cancelled(),
        sink,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::EspeakTts;

    /// Sends `text` word by word, one word every `every`; the handle gives
    /// the moment the last word was sent.
    fn stream_words(
        text: &'static str,
        every: Duration,
    ) -> (
        tokio::sync::mpsc::Receiver<String>,
        tokio::task::JoinHandle<Instant>,
    ) {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let producer = tokio::spawn(async move {
            for (i, w) in text.split(' ').enumerate() {
                tokio::time::sleep(every).await;
                let piece = if i == 0 {
                    w.to_string()
                } else {
                    format!(" {w}")
                };
                if tx.send(piece).await.is_err() {
                    break;
                }
            }
            Instant::now()
        });
        (rx, producer)
    }

    /// A recording sink that cancels once it has played `after` utterances:
    /// the user starts talking right then.
    struct BargeIn {
        inner: RecordingSink,
        after: usize,
        cancel: CancellationToken,
    }

    impl AudioSink for BargeIn {
        fn play(&mut self, speech: &Speech) -> Result<(), TtsError> {
            self.inner.play(speech)?;
            if self.inner.utterances.len() >= self.after {
                self.cancel.cancel();
            }
            Ok(())
        }
    }

    const ANSWER: &str = "The report is ready. Revenue grew by 12.5 percent in the north. \
        The south grew more slowly. Dr. Lee will present it on Friday.";

    #[tokio::test]
    async fn sentences_are_spoken_in_order_and_the_first_one_early() {
        let (chunks, producer) = stream_words(ANSWER, Duration::from_millis(20));
        let started = Instant::now();
        let report = speak_stream(
            chunks,
            Arc::new(EspeakTts::default()),
            RecordingSink::default(),
            SplitterOptions::default(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
        let last_word = producer.await.unwrap();
        assert_eq!(
            report.spoken,
            vec![
                "The report is ready.",
                "Revenue grew by 12.5 percent in the north.",
                "The south grew more slowly.",
                "Dr. Lee will present it on Friday."
            ]
        );
        assert_eq!(report.sink.utterances.len(), 4);
        assert!(report.sink.utterances.iter().all(|u| u.rms() > 0.02));
        // The first sentence sounded while the answer was still arriving.
        let first = started + report.first_audio.unwrap();
        assert!(
            first < last_word,
            "first audio {:?} after the last word",
            first - last_word
        );
        assert!(!report.stopped);
        let joined = report.sink.joined(Duration::from_millis(200));
        assert!(joined.duration() > Duration::from_secs(5));
    }

    #[tokio::test]
    async fn cancelling_stops_speaking_and_drops_the_queue() {
        let (chunks, _producer) = stream_words(ANSWER, Duration::from_millis(20));
        let cancel = CancellationToken::new();
        let sink = BargeIn {
            inner: RecordingSink::default(),
            after: 1,
            cancel: cancel.clone(),
        };
        let report = speak_stream(
            chunks,
            Arc::new(EspeakTts::default()),
            sink,
            SplitterOptions::default(),
            cancel,
        )
        .await
        .unwrap();
        assert!(report.stopped);
        assert_eq!(report.spoken, vec!["The report is ready."]);
        assert_eq!(report.sink.inner.utterances.len(), 1);
    }
}
