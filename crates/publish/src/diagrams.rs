//! The Mermaid diagrams documents can hold: one list, given to the model
//! (`diagram_types`), used by the tests (each kind is drawn) and by the
//! README.

use serde::Serialize;

/// One kind of diagram, with a small example in Mermaid's syntax.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Diagram {
    /// What it is called.
    pub kind: &'static str,
    /// What it shows.
    pub shows: &'static str,
    /// A small example (the first word names the kind).
    pub example: &'static str,
    /// A label the drawn example shows (the tests look for it).
    #[serde(skip)]
    pub label: &'static str,
}

/// The diagrams Baton draws, in Mermaid 11's syntax.
pub const DIAGRAMS: &[Diagram] = &[
    Diagram {
        kind: "flowchart",
        shows: "steps and decisions",
        example: "flowchart LR\n  A[Order received] --> B{Paid?}\n  B -->|yes| C[Ship parcel]\n  B -->|no| D[Send reminder]",
        label: "Send reminder",
    },
    Diagram {
        kind: "sequence",
        shows: "messages between people or systems over time",
        example: "sequenceDiagram\n  Customer->>Shop: Order\n  Shop-->>Customer: Confirmation",
        label: "Confirmation",
    },
    Diagram {
        kind: "class",
        shows: "types, their fields and relations",
        example: "classDiagram\n  class Invoice {\n    +Date issued\n    +total() Money\n  }\n  Customer --> Invoice",
        label: "Invoice",
    },
    Diagram {
        kind: "state",
        shows: "states and the transitions between them",
        example: "stateDiagram-v2\n  [*] --> Draft\n  Draft --> Approved: review\n  Approved --> [*]",
        label: "Approved",
    },
    Diagram {
        kind: "er",
        shows: "entities and relationships (a database)",
        example: "erDiagram\n  CUSTOMER ||--o{ PURCHASE : places\n  PURCHASE ||--|{ LINEITEM : contains",
        label: "LINEITEM",
    },
    Diagram {
        kind: "gantt",
        shows: "a schedule of tasks",
        example: "gantt\n  title Launch plan\n  dateFormat YYYY-MM-DD\n  section Build\n  Design :a1, 2026-01-05, 5d\n  Prototype :after a1, 10d",
        label: "Prototype",
    },
    Diagram {
        kind: "pie",
        shows: "shares of a whole",
        example: "pie title Costs\n  \"Rent\" : 40\n  \"Salaries\" : 60",
        label: "Salaries",
    },
    Diagram {
        kind: "mindmap",
        shows: "ideas branching from one topic",
        example: "mindmap\n  root((Launch))\n    Marketing\n      Newsletter\n    Sales",
        label: "Newsletter",
    },
    Diagram {
        kind: "timeline",
        shows: "events in order",
        example: "timeline\n  title Company history\n  2024 : Founded\n  2025 : First customer",
        label: "Founded",
    },
];
