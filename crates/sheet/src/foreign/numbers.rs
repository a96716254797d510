//! OpenDocument number styles (`number:number-style`, `…currency-style`,
//! `…percentage-style`, `…date-style`, `…time-style`, `…text-style`) as
//! Excel number format codes: `#,##0.00`, `"$"#,##0.00`, `0.0%`,
//! `yyyy-mm-dd`, `[h]:mm:ss`, with their conditional sections (`style:map`)
//! and colours.

use std::collections::HashMap;

use super::carry::Rgb;
use super::odf::hex;

/// What kind of value a number style shows.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
enum Kind {
    #[default]
    Number,
    Percentage,
    Time,
    Boolean,
    Other,
}

/// One number style as read: its code so far, its conditional sections.
#[derive(Debug, Clone, Default)]
struct NumberStyle {
    kind: Kind,
    code: String,
    /// (condition, the style it applies).
    maps: Vec<(String, String)>,
    color: Option<Rgb>,
    /// Hours past 24 shown as they are (`[h]`).
    elapsed: bool,
}

/// The number styles of a document, read element by element.
#[derive(Debug, Default)]
pub(crate) struct NumberStyles {
    done: HashMap<String, NumberStyle>,
    current: Option<(String, NumberStyle)>,
    /// The element whose text is being read, and the text so far.
    reading: Option<(String, String)>,
}

impl NumberStyles {
    /// Whether a number style is open.
    pub fn open(&self) -> bool {
        self.current.is_some()
    }

    /// An element starts (`empty`: and ends).
    pub fn start(&mut self, name: &str, a: &HashMap<String, String>, empty: bool) {
        if let Some(kind) = style_kind(name) {
            let style = NumberStyle {
                kind,
                elapsed: a.get("truncate-on-overflow").is_some_and(|t| t == "false"),
                ..NumberStyle::default()
            };
            self.current = Some((a.get("name").cloned().unwrap_or_default(), style));
            if empty {
                self.end(name);
            }
            return;
        }
        let Some((_, style)) = self.current.as_mut() else {
            return;
        };
        match name {
            "number:text" | "number:currency-symbol" | "number:fill-character" if !empty => {
                self.reading = Some((name.to_string(), String::new()));
            }
            "number:currency-symbol" => style.code.push_str("\"$\""),
            "style:map" => {
                if let (Some(c), Some(s)) = (a.get("condition"), a.get("apply-style-name")) {
                    style.maps.push((c.clone(), s.clone()));
                }
            }
            "style:text-properties" => style.color = a.get("color").and_then(|c| hex(c)),
            other => push_element(style, other, a),
        }
    }

    /// Text inside the element being read.
    pub fn text(&mut self, text: &str) {
        if let Some((_, t)) = self.reading.as_mut() {
            t.push_str(text);
        }
    }

    /// An element ends.
    pub fn end(&mut self, name: &str) {
        if style_kind(name).is_some() {
            if let Some((n, s)) = self.current.take() {
                self.done.insert(n, s);
            }
            return;
        }
        let Some((reading, text)) = self.reading.take_if(|(r, _)| r == name) else {
            return;
        };
        let Some((_, style)) = self.current.as_mut() else {
            return;
        };
        match reading.as_str() {
            "number:currency-symbol" if text.is_empty() => style.code.push_str("\"$\""),
            "number:currency-symbol" => style.code.push_str(&quoted(&text)),
            "number:fill-character" => {
                style.code.push('*');
                style.code.push(text.chars().next().unwrap_or(' '));
            }
            _ if text == "%" && style.kind == Kind::Percentage => style.code.push('%'),
            _ => style.code.push_str(&literal(&text)),
        }
    }

    /// The Excel code of style `name`; none for General and booleans.
    pub fn code(&self, name: &str) -> Option<String> {
        self.code_at(name, 0)
            .filter(|c| !c.is_empty() && c != "General")
    }

    fn code_at(&self, name: &str, depth: usize) -> Option<String> {
        let style = self.done.get(name)?;
        if style.kind == Kind::Boolean || depth > 3 {
            return None;
        }
        let own = match style.color.and_then(color_name) {
            Some(color) => format!("[{color}]{}", style.code),
            None => style.code.clone(),
        };
        let mut sections = Vec::new();
        for (condition, applied) in &style.maps {
            let code = self.code_at(applied, depth + 1)?;
            sections.push(match condition.replace(' ', "").as_str() {
                "value()>=0" | "value()>0" | "value()<0" => code,
                other => format!("[{}]{code}", other.trim_start_matches("value()")),
            });
        }
        sections.push(own);
        Some(sections.join(";"))
    }
}

fn style_kind(name: &str) -> Option<Kind> {
    Some(match name {
        "number:number-style" | "number:currency-style" => Kind::Number,
        "number:percentage-style" => Kind::Percentage,
        "number:time-style" => Kind::Time,
        "number:boolean-style" => Kind::Boolean,
        "number:date-style" | "number:text-style" => Kind::Other,
        _ => return None,
    })
}

/// The code of one element of a number style.
fn push_element(style: &mut NumberStyle, name: &str, a: &HashMap<String, String>) {
    let long = a.get("style").is_some_and(|s| s == "long");
    let pick = |l: &'static str, s: &'static str| if long { l } else { s };
    let piece: String = match name {
        "number:number" => number(a),
        "number:scientific-number" => {
            let digits = count(a, "min-exponent-digits").max(1);
            format!("{}E+{}", number(a), "0".repeat(digits))
        }
        "number:fraction" => fraction(a),
        "number:text-content" => "@".into(),
        "number:day" => pick("dd", "d").into(),
        "number:month" if a.get("textual").is_some_and(|t| t == "true") => {
            pick("mmmm", "mmm").into()
        }
        "number:month" => pick("mm", "m").into(),
        "number:year" => pick("yyyy", "yy").into(),
        "number:day-of-week" => pick("dddd", "ddd").into(),
        "number:hours" => {
            let h = pick("hh", "h");
            if style.kind == Kind::Time && style.elapsed {
                format!("[{h}]")
            } else {
                h.into()
            }
        }
        "number:minutes" => pick("mm", "m").into(),
        "number:seconds" => {
            let decimals = count(a, "decimal-places");
            let s = pick("ss", "s");
            if decimals > 0 {
                format!("{s}.{}", "0".repeat(decimals))
            } else {
                s.into()
            }
        }
        "number:am-pm" => "AM/PM".into(),
        _ => return,
    };
    style.code.push_str(&piece);
}

fn count(a: &HashMap<String, String>, key: &str) -> usize {
    a.get(key)
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0)
        .min(30)
}

/// `number:number`: integer digits, grouping and decimals; without
/// `decimal-places` it is General.
fn number(a: &HashMap<String, String>) -> String {
    if !a.contains_key("decimal-places") {
        return "General".into();
    }
    let places = count(a, "decimal-places");
    let min_places = a
        .get("min-decimal-places")
        .map_or(places, |_| count(a, "min-decimal-places"))
        .min(places);
    let digits = count(a, "min-integer-digits");
    let grouping = a.get("grouping").is_some_and(|g| g == "true");
    let mut code = match (grouping, digits) {
        (true, 0) => "#,###".to_string(),
        (true, d) => format!("#,##{}", "0".repeat(d.min(3))),
        (false, 0) => "#".to_string(),
        (false, d) => "0".repeat(d),
    };
    if places > 0 {
        code.push('.');
        code.push_str(&"0".repeat(min_places));
        code.push_str(&"#".repeat(places - min_places));
    }
    code
}

fn fraction(a: &HashMap<String, String>) -> String {
    let whole = if count(a, "min-integer-digits") > 0 {
        "# "
    } else {
        ""
    };
    let numerator = "?".repeat(count(a, "min-numerator-digits").max(1));
    let denominator = match a.get("denominator-value") {
        Some(v) => v.clone(),
        None => "?".repeat(count(a, "min-denominator-digits").max(1)),
    };
    format!("{whole}{numerator}/{denominator}")
}

/// Literal text: bare where Excel shows the characters as they are,
/// else quoted.
fn literal(text: &str) -> String {
    if text.chars().all(|c| " $-+/():!^&'~{}<>=".contains(c)) {
        text.to_string()
    } else {
        quoted(text)
    }
}

fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', ""))
}

/// The colours Excel names in a format code.
fn color_name(rgb: Rgb) -> Option<&'static str> {
    Some(match rgb {
        [0xFF, 0, 0] => "Red",
        [0, 0, 0xFF] => "Blue",
        [0, 0xFF, 0] => "Green",
        [0xFF, 0xFF, 0] => "Yellow",
        [0xFF, 0, 0xFF] => "Magenta",
        [0, 0xFF, 0xFF] => "Cyan",
        [0xFF, 0xFF, 0xFF] => "White",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn styles(xml: &str) -> NumberStyles {
        let mut n = NumberStyles::default();
        let mut reader = quick_xml::Reader::from_str(xml);
        loop {
            match reader.read_event().unwrap() {
                quick_xml::events::Event::Start(e) => {
                    n.start(e.name().as_ref(), &crate::opc::attrs(&e), false)
                }
                quick_xml::events::Event::Empty(e) => {
                    n.start(e.name().as_ref(), &crate::opc::attrs(&e), true)
                }
                quick_xml::events::Event::Text(t) => n.text(&t),
                quick_xml::events::Event::End(e) => n.end(e.name().as_ref()),
                quick_xml::events::Event::Eof => break,
                _ => {}
            }
        }
        n
    }

    #[test]
    fn libreoffice_number_styles_become_excel_codes() {
        let n = styles(concat!(
            r#"<r><number:number-style style:name="N145"><number:text>$</number:text>"#,
            r#"<number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/></number:number-style>"#,
            r#"<number:percentage-style style:name="N146"><number:number number:decimal-places="1" number:min-decimal-places="1" number:min-integer-digits="1"/><number:text>%</number:text></number:percentage-style>"#,
            r#"<number:date-style style:name="N49"><number:year number:style="long"/><number:text>-</number:text><number:month number:style="long"/><number:text>-</number:text><number:day number:style="long"/></number:date-style>"#,
            r#"<number:number-style style:name="N0"><number:number number:min-integer-digits="1"/></number:number-style>"#,
            r#"<number:currency-style style:name="N124P0" style:volatile="true"><number:currency-symbol>€</number:currency-symbol><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/></number:currency-style>"#,
            r##"<number:currency-style style:name="N124"><style:text-properties fo:color="#ff0000"/><number:text>-</number:text><number:currency-symbol>€</number:currency-symbol><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1" number:grouping="true"/><style:map style:condition="value()&gt;=0" style:apply-style-name="N124P0"/></number:currency-style>"##,
            r#"<number:time-style style:name="N7" number:truncate-on-overflow="false"><number:hours/><number:text>:</number:text><number:minutes number:style="long"/></number:time-style>"#,
            r#"<number:text-style style:name="N100"><number:text-content/></number:text-style></r>"#,
        ));
        assert_eq!(n.code("N145").as_deref(), Some("$#,##0.00"));
        assert_eq!(n.code("N146").as_deref(), Some("0.0%"));
        assert_eq!(n.code("N49").as_deref(), Some("yyyy-mm-dd"));
        assert_eq!(n.code("N0"), None, "General");
        assert_eq!(
            n.code("N124").as_deref(),
            Some("\"€\"#,##0.00;[Red]-\"€\"#,##0.00")
        );
        assert_eq!(n.code("N100").as_deref(), Some("@"));
        assert_eq!(n.code("N7").as_deref(), Some("[h]:mm"));
        assert_eq!(n.code("missing"), None);
    }
}
