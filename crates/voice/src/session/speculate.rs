//! Speculative transcription: at a pause in the user's speech (300 ms by
//! default) the utterance so far is transcribed and the answer started,
//! held unheard and unseen; when the end-of-speech pause completes, the
//! held answer is let through at once (its first sentence is usually
//! ready by then), and when speech resumes it is thrown away — its
//! exchange retracted from the conversation — so no answer is ever
//! spoken to half a sentence.

use std::sync::Arc;
use std::time::Instant;

use super::held::Gate;
use super::{FinalTranscript, Jobs, VoiceEvent, VoiceLoop, start_answer};
use crate::stt::Pass;

/// Work started at a pause in the utterance in progress.
pub(super) struct Speculation {
    /// The last voiced sample before the pause.
    at: u64,
    /// The pause turned out to be the end of the utterance.
    confirmed: bool,
    /// The answer started on the pause's transcript (its gate, its prompt
    /// and the transcription's duration in ms), held until confirmed.
    held: Option<(Gate, String, f64)>,
}

impl Speculation {
    /// Whether the pause turned out to be the end.
    pub(super) fn is_confirmed(&self) -> bool {
        self.confirmed
    }

    /// The last voiced sample before the pause.
    pub(super) fn at(&self) -> u64 {
        self.at
    }
}

impl VoiceLoop {
    /// A pause at sample `at`: transcribe what was said so far.
    pub(super) fn speculate(&mut self, at: u64, now: Instant, jobs: &mut Jobs) {
        let Some(start) = self.utterance_start else {
            return;
        };
        // Not while an answer still plays (the user talks over it), the
        // last utterance waits to be joined with this one, or a question
        // to the user waits for its answer.
        if jobs.spec.is_some()
            || jobs.answer.is_some()
            || self.carried.is_some()
            || !self.parts.responder.may_speculate()
        {
            return;
        }
        let (audio, speech_end) = self.heard(start, at, now);
        let stt = Arc::clone(&self.parts.stt);
        jobs.spec = Some(tokio::task::spawn_blocking(move || FinalTranscript {
            result: stt.transcribe(&audio, Pass::Final),
            speech_end,
            heard_end: now,
        }));
        self.spec = Some(Speculation {
            at,
            confirmed: false,
            held: None,
        });
    }

    /// The utterance ended at `at`: if that is where the pause was, the
    /// work started there stands (`true`; the held answer is let through,
    /// or the transcription still running will be answered as final).
    pub(super) fn confirm_speculation(&mut self, at: u64) -> bool {
        let Some(spec) = self.spec.as_mut().filter(|s| s.at == at) else {
            return false;
        };
        self.utterance_start = None;
        spec.confirmed = true;
        if let Some((gate, prompt, stt_ms)) = spec.held.take() {
            self.emit(VoiceEvent::Transcript {
                text: prompt,
                stt_ms,
            });
            gate.open();
            self.spec = None;
        }
        true
    }

    /// Speech resumed after the pause: the transcript was of half a
    /// sentence; its answer (if started) is stopped unheard and retracted.
    pub(super) async fn drop_speculation(&mut self, jobs: &mut Jobs) {
        // A pause already confirmed as an end belongs to the last
        // utterance, not to the one that resumed.
        if self.spec.as_ref().is_none_or(|s| s.confirmed) {
            return;
        }
        let Some(spec) = self.spec.take() else {
            return;
        };
        if let Some(job) = jobs.spec.take() {
            job.abort(); // the result, when it comes, is dropped
        }
        if let Some((gate, prompt, _)) = spec.held {
            gate.discard();
            if let Some(answer) = jobs.answer.take() {
                answer.cancel.cancel();
                let _ = answer.task.await;
            }
            self.parts.responder.retract(&prompt);
        }
    }

    /// The pause's transcript: answered at once when the pause was the
    /// end, else the answer starts held.
    pub(super) async fn on_speculative(&mut self, f: Option<FinalTranscript>, jobs: &mut Jobs) {
        let Some(spec) = self.spec.as_mut() else {
            return; // speech resumed meanwhile
        };
        let Some(f) = f else {
            self.spec = None;
            return;
        };
        if spec.confirmed {
            self.spec = None;
            self.on_transcript(f, jobs).await;
            return;
        }
        // The utterance is no longer the one paused in, or something else
        // answers: the end will transcribe it again.
        if self.utterance_start.is_none() || jobs.answer.is_some() || self.carried.is_some() {
            self.spec = None;
            return;
        }
        let text = match &f.result {
            Ok(t) if !t.text.trim().is_empty() => t.text.trim().to_string(),
            _ => {
                // Nothing usable: the end, when it comes, transcribes again.
                self.spec = None;
                return;
            }
        };
        let stt_ms = f.result.as_ref().map_or(0.0, |t| t.decode_ms as f64);
        let gate = Gate::held();
        jobs.answer = Some(start_answer(
            &self.parts,
            &self.options,
            text.clone(),
            (f.speech_end, f.heard_end),
            self.events.clone(),
            gate.clone(),
        ));
        spec.held = Some((gate, text, stt_ms));
    }
}
