//! The real model on real sentences: a question finds the passage that
//! says the same in other words.

use baton_embed::{DIMENSIONS, Embedder, ModelFiles, similarity};

fn embedder() -> Embedder {
    let dir = baton_test_support::models_dir();
    let files = ModelFiles::in_models_dir(&dir).unwrap_or_else(|| {
        panic!(
            "the embedding model is missing in {}: run `make setup`",
            dir.display()
        )
    });
    Embedder::load(&files, 2).unwrap()
}

#[test]
fn a_question_is_nearest_the_passage_that_answers_it_in_other_words() {
    let e = embedder();
    let passages = [
        "Pilotage fees for the port of Gdynia came to 14,200 euros in March.",
        "The quarterly budget review is scheduled for Thursday afternoon.",
        "Our cat prefers to sleep on the warm windowsill in winter.",
    ];
    let question = "What did we pay the harbour pilots?";
    let mut texts = vec![question];
    texts.extend(passages);
    let v = e.embed(&texts).unwrap();
    assert_eq!(v.len(), 4);
    for x in &v {
        assert_eq!(x.len(), DIMENSIONS);
        let norm: f32 = x.iter().map(|a| a * a).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "{norm}");
    }
    let scores: Vec<f32> = v[1..].iter().map(|p| similarity(&v[0], p)).collect();
    assert!(
        scores[0] > scores[1] + 0.1 && scores[0] > scores[2] + 0.1,
        "{scores:?}"
    );
}

#[test]
fn a_text_embeds_the_same_alone_or_in_a_batch_and_long_texts_are_cut() {
    let e = embedder();
    let long = "harbour ".repeat(2000);
    let batch = e.embed(&["a short line", &long]).unwrap();
    let alone = e.embed(&["a short line"]).unwrap();
    assert!(
        similarity(&batch[0], &alone[0]) > 0.999,
        "padding must not change a vector"
    );
    assert_eq!(batch[1].len(), DIMENSIONS);
    assert!(e.embed(&[]).unwrap().is_empty());
}

#[test]
fn a_missing_or_damaged_model_is_named_in_the_error() {
    let empty = std::env::temp_dir().join(format!("baton-embed-none-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    assert!(ModelFiles::in_models_dir(&empty).is_none());
    let mut files = ModelFiles::in_models_dir(&baton_test_support::models_dir()).unwrap();
    let damaged = empty.join("damaged.onnx");
    std::fs::write(&damaged, b"not an onnx graph").unwrap();
    files.model = damaged.clone();
    let err = Embedder::load(&files, 1).unwrap_err().to_string();
    assert!(
        err.contains("damaged.onnx") && err.contains("make setup"),
        "{err}"
    );
}
