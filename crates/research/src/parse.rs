//! Reading the agents' JSON answers leniently (repaired as tool calls
//! are): a plan, a source's claims, a review.

use baton_tools::repair::repair_json;
use serde::Deserialize;
use serde_json::Value;

/// A claim as the reader agent gives it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct RawClaim {
    /// What it says.
    #[serde(default, alias = "text", alias = "statement")]
    pub claim: String,
    /// The passage copied from the page.
    #[serde(default, alias = "passage", alias = "evidence")]
    pub quote: String,
    /// The sub-question it answers (1-based).
    #[serde(default)]
    pub question: Option<usize>,
}

/// The reviewer's verdict.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Review {
    /// Claims found unsupported (1-based) and why.
    pub unsupported: Vec<(usize, String)>,
    /// Claims that contradict each other (1-based) and the note.
    pub conflicts: Vec<(Vec<usize>, String)>,
}

/// The sub-questions of a plan (`{"questions": […]}` or a bare list), at
/// most `max`, empty ones left out; why none could be read otherwise.
pub(crate) fn questions(text: &str, max: usize) -> Result<Vec<String>, String> {
    let value = repair_json(text).map_err(|e| e.to_string())?;
    let list = match &value {
        Value::Array(items) => items,
        Value::Object(o) => o
            .get("questions")
            .or_else(|| o.get("queries"))
            .and_then(Value::as_array)
            .ok_or("the plan has no \"questions\" list")?,
        _ => return Err("the plan is not a JSON object".into()),
    };
    let mut out: Vec<String> = Vec::new();
    for q in list.iter().filter_map(Value::as_str).map(str::trim) {
        if !q.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(q)) {
            out.push(q.to_string());
        }
    }
    out.truncate(max.max(1));
    if out.is_empty() {
        return Err("the plan lists no questions".into());
    }
    Ok(out)
}

/// A source's claims (`{"claims": […]}` or a bare list); why they could
/// not be read otherwise.
pub(crate) fn claims(text: &str) -> Result<Vec<RawClaim>, String> {
    let value = repair_json(text).map_err(|e| e.to_string())?;
    let list = match value {
        Value::Array(items) => items,
        Value::Object(mut o) => match o.remove("claims") {
            Some(Value::Array(items)) => items,
            _ => return Err("the answer has no \"claims\" list".into()),
        },
        _ => return Err("the answer is not a JSON object".into()),
    };
    Ok(list
        .into_iter()
        .filter_map(|c| serde_json::from_value::<RawClaim>(c).ok())
        .filter(|c| !c.claim.trim().is_empty())
        .collect())
}

/// The reviewer's verdict; why it could not be read otherwise.
pub(crate) fn review(text: &str) -> Result<Review, String> {
    let value = repair_json(text).map_err(|e| e.to_string())?;
    if !value.is_object() {
        return Err("the review is not a JSON object".into());
    }
    if value.get("unsupported").is_none() && value.get("conflicts").is_none() {
        return Err("the review has neither \"unsupported\" nor \"conflicts\"".into());
    }
    let number = |v: &Value| v.as_u64().map(|n| n as usize);
    let unsupported = value["unsupported"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|u| match u {
                    Value::Number(_) => number(u).map(|n| (n, String::new())),
                    _ => number(&u["claim"]).map(|n| {
                        let why = u["why"].as_str().unwrap_or_default();
                        (n, why.to_string())
                    }),
                })
                .collect()
        })
        .unwrap_or_default();
    let conflicts = value["conflicts"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|c| {
                    let claims: Vec<usize> =
                        c["claims"].as_array()?.iter().filter_map(number).collect();
                    let note = c["note"].as_str().unwrap_or_default().to_string();
                    (claims.len() >= 2).then_some((claims, note))
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Review {
        unsupported,
        conflicts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_read_from_objects_lists_and_fenced_prose() {
        assert_eq!(
            questions(r#"{"questions": ["a?", " b? ", "", "A?"]}"#, 5).unwrap(),
            ["a?", "b?"]
        );
        assert_eq!(
            questions("Here:\n```json\n[\"x\", \"y\", \"z\"]\n```", 2).unwrap(),
            ["x", "y"]
        );
        assert!(questions(r#"{"questions": []}"#, 3).is_err());
        assert!(questions("no idea", 3).is_err());
    }

    #[test]
    fn claims_without_words_are_left_out_and_other_spellings_read() {
        let c = claims(
            r#"{"claims": [{"claim": "A", "quote": "q", "question": 2},
                           {"statement": "B", "passage": "p"}, {"claim": " "}, 7]}"#,
        )
        .unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].question, Some(2));
        assert_eq!((c[1].claim.as_str(), c[1].quote.as_str()), ("B", "p"));
        assert!(claims(r#"{"facts": []}"#).is_err());
    }

    #[test]
    fn reviews_name_claims_by_number() {
        let r = review(
            r#"{"unsupported": [{"claim": 2, "why": "says more"}, 4],
                "conflicts": [{"claims": [1, 3], "note": "years differ"}, {"claims": [5]}]}"#,
        )
        .unwrap();
        assert_eq!(r.unsupported, [(2, "says more".into()), (4, String::new())]);
        assert_eq!(r.conflicts, [(vec![1, 3], "years differ".into())]);
        assert_eq!(review(r#"{"unsupported": []}"#).unwrap(), Review::default());
        assert!(review("{}").is_err());
        assert!(review("[1]").is_err());
    }
}
