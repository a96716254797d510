//! Pictures in tool results (browser screenshots): encoded for history,
//! and on the wire only for models that read images, the latest few only
//! (each costs as many tokens as a page of text).

use base64::Engine as _;
use baton_llm::{ContentPart, Image, Message};
use baton_tools::ToolImage;

/// Tool results whose pictures still go to the model; older ones are told
/// in words.
const KEPT: usize = 2;

/// A tool's picture as history keeps it.
pub(crate) fn image(t: &ToolImage) -> Image {
    Image {
        mime_type: t.mime_type.clone(),
        data: base64::engine::general_purpose::STANDARD.encode(&t.bytes),
    }
}

/// Prepares the pictures of tool results for the wire: a model that reads
/// images gets those of the latest [`KEPT`] results, every other picture
/// is replaced by a line saying why it is not there.
pub(crate) fn for_wire(messages: &mut [Message], reads_images: bool) {
    let mut kept = 0;
    for m in messages.iter_mut().rev() {
        let Message::Tool {
            content, images, ..
        } = m
        else {
            continue;
        };
        if images.is_empty() {
            continue;
        }
        if reads_images && kept < KEPT {
            kept += 1;
            continue;
        }
        let why = if reads_images {
            "was shown earlier and is no longer attached"
        } else {
            "is not shown: this model does not read images"
        };
        let n = images.len();
        images.clear();
        content.push_str(&format!(
            "\n[{} picture{} of this result {why}]",
            n,
            if n == 1 { "" } else { "s" }
        ));
    }
}

/// A tool result as a user message, for prompt-based modes: its text and
/// its pictures.
pub(crate) fn as_user_message(name: &str, content: &str, images: &[Image]) -> Message {
    let mut parts = vec![ContentPart::Text {
        text: baton_llm::tool_result_as_text(name, content),
    }];
    parts.extend(images.iter().map(|i| ContentPart::Image {
        mime_type: i.mime_type.clone(),
        data: i.data.clone(),
    }));
    Message::User { content: parts }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shot(call: &str) -> Message {
        Message::Tool {
            call_id: call.into(),
            name: "screenshot".into(),
            content: "saved".into(),
            is_error: false,
            images: vec![image(&ToolImage {
                mime_type: "image/png".into(),
                bytes: vec![1, 2, 3],
            })],
        }
    }

    fn pictures(m: &Message) -> (usize, String) {
        match m {
            Message::Tool {
                images, content, ..
            } => (images.len(), content.clone()),
            _ => unreachable!(),
        }
    }

    #[test]
    fn only_the_latest_pictures_go_to_a_model_that_reads_them() {
        let mut h = vec![shot("a"), Message::user("x"), shot("b"), shot("c")];
        for_wire(&mut h, true);
        assert_eq!(pictures(&h[0]).0, 0);
        assert!(pictures(&h[0]).1.contains("shown earlier"), "{:?}", h[0]);
        assert_eq!(pictures(&h[2]), (1, "saved".into()));
        assert_eq!(pictures(&h[3]), (1, "saved".into()));
        assert_eq!(
            image(&ToolImage {
                mime_type: "image/png".into(),
                bytes: vec![1, 2, 3]
            })
            .data,
            "AQID"
        );
    }

    #[test]
    fn a_model_that_reads_no_images_is_told_so() {
        let mut h = vec![shot("a")];
        for_wire(&mut h, false);
        let (n, text) = pictures(&h[0]);
        assert_eq!(n, 0);
        assert!(
            text.ends_with(
                "[1 picture of this result is not shown: this model does not read images]"
            ),
            "{text}"
        );
    }
}
