//! eSpeak NG, the offline speech engine Debian ships, called directly in
//! synchronous mode (audio into a buffer, no sound server needed). The
//! `espeakng` wrapper crate crashes with espeak-ng 1.51, so this uses the
//! raw bindings. eSpeak NG keeps global state and is not thread-safe: every
//! call holds one process-wide lock.
#![allow(unsafe_code)]

use std::ffi::{CString, c_int, c_short};
use std::sync::{Mutex, OnceLock};

use espeakng_sys as sys;

use super::{Speech, TextToSpeech, TtsError};

/// The library, initialized once: its sample rate, or why it failed.
static ENGINE: OnceLock<Result<u32, String>> = OnceLock::new();
/// Held for every call into the library.
static LOCK: Mutex<()> = Mutex::new(());
/// Samples the synthesis callback receives.
static BUFFER: Mutex<Vec<i16>> = Mutex::new(Vec::new());

/// Receives audio from espeak-ng during `espeak_Synth`.
unsafe extern "C" fn on_audio(
    wav: *mut c_short,
    count: c_int,
    _events: *mut sys::espeak_EVENT,
) -> c_int {
    if !wav.is_null() && count > 0 {
        // SAFETY: espeak-ng passes `count` valid samples at `wav` for the
        // duration of this call.
        let samples = unsafe { std::slice::from_raw_parts(wav, count as usize) };
        BUFFER
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(samples);
    }
    0 // continue
}

fn engine() -> Result<u32, TtsError> {
    ENGINE
        .get_or_init(|| {
            // SAFETY: called once, under the OnceLock; a null path means
            // espeak-ng's own data folder.
            let rate = unsafe {
                sys::espeak_Initialize(
                    sys::espeak_AUDIO_OUTPUT_AUDIO_OUTPUT_SYNCHRONOUS,
                    0,
                    std::ptr::null(),
                    0,
                )
            };
            if rate <= 0 {
                return Err(
                    "espeak-ng did not start (is the espeak-ng-data package installed?)".into(),
                );
            }
            // SAFETY: a plain function pointer with the expected signature.
            unsafe { sys::espeak_SetSynthCallback(Some(on_audio)) };
            Ok(rate as u32)
        })
        .clone()
        .map_err(TtsError::Unavailable)
}

/// eSpeak NG with a voice and a speaking rate.
#[derive(Debug, Clone)]
pub struct EspeakTts {
    voice: String,
    words_per_minute: u32,
}

impl Default for EspeakTts {
    fn default() -> Self {
        Self::new("en-us", 175)
    }
}

impl EspeakTts {
    /// A voice by espeak-ng name (`en-us`, `en-gb`, `de`, …) at a rate in
    /// words per minute (80–450).
    pub fn new(voice: impl Into<String>, words_per_minute: u32) -> Self {
        Self {
            voice: voice.into(),
            words_per_minute: words_per_minute.clamp(80, 450),
        }
    }
}

impl TextToSpeech for EspeakTts {
    fn name(&self) -> &str {
        "espeak-ng"
    }

    fn synthesize(&self, text: &str) -> Result<Speech, TtsError> {
        let sample_rate = engine()?;
        let voice = CString::new(self.voice.as_str())
            .map_err(|_| TtsError::Synthesis("the voice name contains a NUL byte".into()))?;
        let text = CString::new(text.replace('\0', " "))
            .map_err(|_| TtsError::Synthesis("the text contains a NUL byte".into()))?;
        let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
        BUFFER.lock().unwrap_or_else(|e| e.into_inner()).clear();
        // SAFETY: the library is initialized; the strings outlive the calls;
        // the lock keeps other threads out of espeak-ng's global state.
        let status = unsafe {
            if sys::espeak_SetVoiceByName(voice.as_ptr()) != sys::espeak_ERROR_EE_OK {
                return Err(TtsError::Synthesis(format!(
                    "espeak-ng has no voice named `{}`",
                    self.voice
                )));
            }
            sys::espeak_SetParameter(
                sys::espeak_PARAMETER_espeakRATE,
                self.words_per_minute as c_int,
                0,
            );
            let status = sys::espeak_Synth(
                text.as_ptr().cast(),
                text.as_bytes_with_nul().len(),
                0,
                sys::espeak_POSITION_TYPE_POS_CHARACTER,
                0,
                sys::espeakCHARS_UTF8,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            sys::espeak_Synchronize();
            status
        };
        if status != sys::espeak_ERROR_EE_OK {
            return Err(TtsError::Synthesis(format!(
                "espeak-ng returned error {status}"
            )));
        }
        let samples = std::mem::take(&mut *BUFFER.lock().unwrap_or_else(|e| e.into_inner()));
        Ok(Speech {
            samples,
            sample_rate,
        })
    }
}

/// One clause of text as eSpeak NG's phonemes (IPA), with the punctuation
/// that ended it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Clause {
    /// The phonemes, in IPA with stress marks.
    pub phonemes: String,
    /// `.` `,` `?` `!` `:` or `;` when the clause ended with one.
    pub punctuation: Option<char>,
}

/// `text` as phonemes of `voice`, clause by clause (what Piper voices are
/// trained on). eSpeak NG reads one clause per call and moves the text
/// pointer past it; the punctuation is taken from the text it consumed.
pub(crate) fn phonemes(voice: &str, text: &str) -> Result<Vec<Clause>, TtsError> {
    engine()?;
    let voice_c = CString::new(voice)
        .map_err(|_| TtsError::Synthesis("the voice name contains a NUL byte".into()))?;
    let text_c = CString::new(text.replace('\0', " "))
        .map_err(|_| TtsError::Synthesis("the text contains a NUL byte".into()))?;
    let bytes = text_c.as_bytes();
    let base = text_c.as_ptr() as usize;
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: the library is initialized and locked; the voice name is a
    // valid C string for the call.
    if unsafe { sys::espeak_SetVoiceByName(voice_c.as_ptr()) } != sys::espeak_ERROR_EE_OK {
        return Err(TtsError::Synthesis(format!(
            "espeak-ng has no voice named `{voice}`"
        )));
    }
    let mut clauses = Vec::new();
    let mut ptr: *const std::ffi::c_void = text_c.as_ptr().cast();
    while !ptr.is_null() {
        let start = (ptr as usize).saturating_sub(base).min(bytes.len());
        // SAFETY: `ptr` points into `text_c` (alive, NUL-terminated) or is
        // null; espeak-ng returns a string it owns until the next call,
        // copied at once.
        let out = unsafe {
            sys::espeak_TextToPhonemes(
                &mut ptr,
                sys::espeakCHARS_UTF8 as c_int,
                sys::espeakPHONEMES_IPA as c_int,
            )
        };
        if out.is_null() {
            break;
        }
        let phonemes = unsafe { std::ffi::CStr::from_ptr(out) }
            .to_string_lossy()
            .trim()
            .to_string();
        let end = if ptr.is_null() {
            bytes.len()
        } else {
            (ptr as usize).saturating_sub(base).min(bytes.len())
        };
        let consumed = String::from_utf8_lossy(&bytes[start..end.max(start)]);
        let punctuation = consumed.chars().rev().find(|c| ".,?!:;".contains(*c));
        if !phonemes.is_empty() {
            clauses.push(Clause {
                phonemes,
                punctuation,
            });
        }
    }
    Ok(clauses)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speaks_a_sentence_into_audible_samples_at_the_engine_rate() {
        let tts = EspeakTts::default();
        let started = std::time::Instant::now();
        let speech = tts
            .synthesize("Hello from Baton. The report is ready.")
            .unwrap();
        let took = started.elapsed();
        let secs = speech.duration().as_secs_f64();
        assert_eq!(speech.sample_rate, 22050);
        assert!((1.0..6.0).contains(&secs), "{secs} s of audio");
        assert!(speech.rms() > 0.02, "audible: rms {}", speech.rms());
        // Faster than real time by far (measured ≈ 100× here).
        assert!(took.as_secs_f64() < secs, "took {took:?} for {secs} s");
        // A longer text makes longer audio; a slower rate too.
        let longer = tts
            .synthesize("Hello from Baton. The report is ready. It has three sections and a table.")
            .unwrap();
        assert!(longer.samples.len() > speech.samples.len());
        let slow = EspeakTts::new("en-us", 100)
            .synthesize("Hello from Baton. The report is ready.")
            .unwrap();
        assert!(slow.samples.len() > speech.samples.len() * 3 / 2);
    }

    #[test]
    fn text_becomes_ipa_phonemes_clause_by_clause_with_its_punctuation() {
        let clauses = phonemes("en-us", "Hello world. Is it raining?").unwrap();
        assert_eq!(clauses.len(), 2, "{clauses:?}");
        assert!(
            clauses[0].phonemes.contains('ˈ'),
            "stress marks: {clauses:?}"
        );
        assert_eq!(clauses[0].punctuation, Some('.'));
        assert_eq!(clauses[1].punctuation, Some('?'));
        assert!(phonemes("en-us", "").unwrap().is_empty());
    }

    #[test]
    fn an_unknown_voice_is_a_clear_error() {
        let e = EspeakTts::new("no-such-voice-xx", 175)
            .synthesize("hi")
            .unwrap_err();
        assert!(
            e.to_string().contains("no voice named `no-such-voice-xx`"),
            "{e}"
        );
    }
}
