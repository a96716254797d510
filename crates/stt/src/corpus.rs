//! The speech fixture corpus: assistant-like requests with numbers and
//! names, spoken by eSpeak NG at test and benchmark time.

use baton_voice::audio::resample;
use baton_voice::stt::STT_SAMPLE_RATE;
use baton_voice::{EspeakTts, TextToSpeech, TtsError};

/// What users say to an assistant, 30 requests.
pub const SENTENCES: [&str; 30] = [
    "Summarize the attached report in three bullet points.",
    "What is the weather like in Paris tomorrow?",
    "Open the budget spreadsheet and add a row for March.",
    "Send an email to Alice saying the meeting moved to Thursday.",
    "How many days are left until the end of the year?",
    "Set a timer for fifteen minutes.",
    "Translate this paragraph into French.",
    "Find the invoice from last week and tell me the total.",
    "Remind me to call my mother at six in the evening.",
    "What time is it in Tokyo right now?",
    "Search my documents for the word contract.",
    "Read me the first page of the user manual.",
    "Book a table for four people on Friday night.",
    "Compare the sales of January and February.",
    "Please write a short thank you note to David.",
    "Which files did I change yesterday?",
    "Add twenty dollars to the travel expenses.",
    "Turn the volume down and play some quiet music.",
    "Explain how the new billing system works.",
    "Create a new folder called project notes.",
    "Check whether the server is running.",
    "List the tasks that are due this week.",
    "Who wrote the proposal for the London office?",
    "Move the meeting with Peter to next Monday.",
    "Convert one hundred euros to dollars.",
    "Give me a summary of my unread messages.",
    "Delete the draft I wrote this morning.",
    "Open the browser and go to the company website.",
    "How long does it take to drive to Berlin?",
    "Make the title of the document bold.",
];

/// `text` spoken by eSpeak NG (default voice), as 16 kHz mono samples.
pub fn spoken(text: &str) -> Result<Vec<f32>, TtsError> {
    let speech = EspeakTts::default().synthesize(text)?;
    resample(&speech.to_f32(), speech.sample_rate, STT_SAMPLE_RATE)
        .map_err(|e| TtsError::Synthesis(e.to_string()))
}
