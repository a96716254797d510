//! The planner's instructions and reading its plan: repaired and validated
//! with the tool-call code, one retry with the problem named, else the
//! whole request as one assignment.

use baton_tools::repair::repair_json;
use baton_tools::validate::validate;
use serde_json::{Value, json};

use crate::Assignment;

/// Assignments a plan may have at most.
pub(crate) const MAX_ASSIGNMENTS: usize = 8;

/// The plan's JSON Schema.
fn plan_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"assignments": {"type": "array", "minItems": 1, "maxItems": MAX_ASSIGNMENTS, "items": {
            "type": "object",
            "properties": {"task": {"type": "string", "minLength": 1}, "specialisation": {"type": "string"}},
            "required": ["task", "specialisation"]
        }}},
        "required": ["assignments"]
    })
}

/// Baton's planning instructions, naming the team's specialisations.
pub(crate) fn planner_brief(specialisations: &[String]) -> String {
    format!(
        "You plan work for a team of agents. Split the user's request into assignments, each done by one agent \
         with one of these specialisations: {}. Give one assignment when one agent can do it all; at most {MAX_ASSIGNMENTS}. \
         Each task must say everything its agent needs (the agents do not see each other's work). \
         Answer with JSON only, no prose: {{\"assignments\": [{{\"task\": \"…\", \"specialisation\": \"…\"}}]}}",
        specialisations.join(", ")
    )
}

/// The plan in the planner's answer, or what is wrong with it.
pub(crate) fn read_plan(text: &str) -> Result<Vec<Assignment>, String> {
    let value = repair_json(text).map_err(|e| format!("it is not JSON ({})", e.0))?;
    let mut value = match value {
        // A bare list of assignments is a plan too.
        Value::Array(items) => json!({"assignments": items}),
        v => v,
    };
    // Both spellings of `specialisation` are meant the same.
    if let Some(items) = value["assignments"].as_array_mut() {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(v) = item.remove("specialization") {
                item.entry("specialisation").or_insert(v);
            }
        }
    }
    let valid = validate(&plan_schema(), value).map_err(|e| format!("it is not a plan: {e}"))?;
    let plan: Vec<Assignment> = serde_json::from_value(valid["assignments"].clone())
        .map_err(|e| format!("it is not a plan: {e}"))?;
    Ok(plan)
}

/// The message that asks for the plan again after `problem`.
pub(crate) fn retry_message(prompt: &str, problem: &str) -> String {
    format!(
        "{prompt}\n\n(Your last answer could not be used: {problem}. Answer with the JSON plan only.)"
    )
}

/// A review's verdict: `{"approved": …, "feedback": …}`, repaired.
pub(crate) fn read_review(text: &str) -> Result<(bool, String), String> {
    let schema = json!({
        "type": "object",
        "properties": {"approved": {"type": "boolean"}, "feedback": {"type": "string", "default": ""}},
        "required": ["approved"]
    });
    let value = repair_json(text).map_err(|e| format!("it is not JSON ({})", e.0))?;
    let valid = validate(&schema, value).map_err(|e| format!("it is not a review: {e}"))?;
    let feedback = valid["feedback"].as_str().unwrap_or("").to_string();
    Ok((valid["approved"].as_bool().unwrap_or(true), feedback))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_repaired_validated_or_explained() {
        let plan = read_plan(
            "Here is the plan:\n```json\n{'assignments': [{'task': 'Read the reports', 'specialization': 'research',},]}\n```",
        )
        .unwrap();
        assert_eq!(plan[0].specialisation, "research");
        let bare = read_plan(r#"[{"task": "a", "specialisation": "x"}]"#).unwrap();
        assert_eq!(bare.len(), 1);
        let e = read_plan("I would first read the reports, then write.").unwrap_err();
        assert!(e.contains("not JSON"), "{e}");
        let e = read_plan(r#"{"assignments": []}"#).unwrap_err();
        assert!(e.contains("not a plan"), "{e}");
        let e = read_plan(r#"{"assignments": [{"specialisation": "x"}]}"#).unwrap_err();
        assert!(e.contains("task"), "{e}");
    }

    #[test]
    fn reviews_are_read_leniently() {
        assert_eq!(
            read_review(r#"{"approved": false, "feedback": "Add numbers."}"#).unwrap(),
            (false, "Add numbers.".into())
        );
        assert_eq!(
            read_review("{approved: true}").unwrap(),
            (true, String::new())
        );
        assert!(read_review("Looks good to me").is_err());
    }
}
