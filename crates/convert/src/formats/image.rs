//! Images: the text in them, by OCR.

use crate::{Conversion, ConvertError, ConvertOptions, Format};

pub(crate) fn convert(bytes: &[u8], options: &ConvertOptions) -> Result<Conversion, ConvertError> {
    let Some(engine) = options.ocr.as_ref() else {
        return Err(ConvertError::Unsupported {
            what: "an image".into(),
            hint: Some("no OCR engine is configured".into()),
        });
    };
    let text = engine.recognize(bytes).map_err(|e| ConvertError::Corrupt {
        format: "image",
        reason: e.to_string(),
    })?;
    let mut c;
    if text.text.trim().is_empty() {
        c = Conversion::new(
            Format::Image,
            "*(no text was found in this image)*\n".into(),
        );
        c.warnings.push("no text was found in the image".into());
    } else {
        c = Conversion::new(Format::Image, format!("{}\n", text.text.trim()));
        let confidence = text
            .confidence
            .map(|c| format!(", confidence {c}%"))
            .unwrap_or_default();
        c.warnings.push(format!(
            "text read by OCR ({}{confidence}); check numbers and names",
            engine.name()
        ));
    }
    Ok(c)
}
