//! The orchestration pipeline on scripted members (the engine's members,
//! on the scripted LLM server, are tested in the CLI and engine tests):
//! every path of seed 001.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use baton_orchestrator::{
    Ask, CancellationToken, Member, MemberError, Options, OrchestrationEvent, Orchestrator,
    OrchestratorError, Phase, Reply, Stage,
};
use futures::future::BoxFuture;

type Answer = Box<dyn Fn(&Ask) -> Result<String, String> + Send + Sync>;

/// A member answering with `answer`, after `delay`; counts its calls.
struct Fake {
    name: String,
    specs: Vec<String>,
    answer: Answer,
    delay: Duration,
    calls: AtomicUsize,
    asked: Mutex<Vec<Ask>>,
}

fn fake(
    name: &str,
    specs: &[&str],
    answer: impl Fn(&Ask) -> Result<String, String> + Send + Sync + 'static,
) -> Arc<Fake> {
    Arc::new(Fake {
        name: name.into(),
        specs: specs.iter().map(|s| s.to_string()).collect(),
        answer: Box::new(answer),
        delay: Duration::from_millis(20),
        calls: AtomicUsize::new(0),
        asked: Mutex::default(),
    })
}

impl Member for Fake {
    fn name(&self) -> &str {
        &self.name
    }
    fn specialisations(&self) -> &[String] {
        &self.specs
    }
    fn ask(
        &self,
        ask: Ask,
        cancel: CancellationToken,
    ) -> BoxFuture<'_, Result<Reply, MemberError>> {
        Box::pin(async move {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.asked.lock().unwrap().push(ask.clone());
            tokio::select! {
                _ = tokio::time::sleep(self.delay) => {}
                _ = cancel.cancelled() => return Err(MemberError::Cancelled),
            }
            (self.answer)(&ask)
                .map(|text| Reply { text, tokens: 100 })
                .map_err(MemberError::Failed)
        })
    }
}

const PLAN2: &str = r#"{"assignments": [{"task": "Summarise report A", "specialisation": "research"}, {"task": "Summarise report B", "specialisation": "writing"}]}"#;

/// A planner, two workers, a reviewer and a synthesizer.
fn team(review: impl Fn(&Ask) -> Result<String, String> + Send + Sync + 'static) -> Vec<Arc<Fake>> {
    vec![
        fake("planner", &["planning"], |_| Ok(PLAN2.into())),
        fake("ada", &["research"], |a| {
            Ok(if a.message.contains("feedback") {
                "A, with numbers".into()
            } else {
                "A".into()
            })
        }),
        fake("bo", &["writing"], |_| Ok("B".into())),
        fake("rita", &["review"], review),
        fake("syn", &["synthesis"], |a| {
            Ok(format!("SYNTH[{}]", a.message.matches("## ").count()))
        }),
    ]
}

fn members(fakes: &[Arc<Fake>]) -> Vec<Arc<dyn Member>> {
    fakes
        .iter()
        .map(|f| Arc::clone(f) as Arc<dyn Member>)
        .collect()
}

/// Every event, in order.
fn recorder() -> (
    Arc<Mutex<Vec<OrchestrationEvent>>>,
    baton_orchestrator::EventHandler,
) {
    let seen: Arc<Mutex<Vec<OrchestrationEvent>>> = Arc::default();
    let s = Arc::clone(&seen);
    (
        seen,
        Arc::new(move |e: &OrchestrationEvent| s.lock().unwrap().push(e.clone())),
    )
}

/// Waits (up to 10 s) until the run's last event has been delivered: events
/// come on a thread of their own, after the work.
async fn settle(seen: &Mutex<Vec<OrchestrationEvent>>) {
    let started = Instant::now();
    let done = || {
        seen.lock()
            .unwrap()
            .iter()
            .any(|e| (e.stage, e.phase) == (Stage::Orchestration, Phase::Stopped))
    };
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the last event never came"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn plan_parallel_work_review_revise_and_synthesis() {
    let first_review = AtomicUsize::new(0);
    let fakes = team(move |a| {
        // The research answer is sent back once, then approved.
        if a.message.contains("ada's answer") && first_review.fetch_add(1, Ordering::SeqCst) == 0 {
            Ok(r#"{"approved": false, "feedback": "Add the numbers."}"#.into())
        } else {
            Ok(r#"{"approved": true, "feedback": "Good."}"#.into())
        }
    });
    let (seen, handler) = recorder();
    let orch = Orchestrator::new(members(&fakes), Options::default())
        .unwrap()
        .on_event(handler);
    let r = orch
        .orchestrate("Compare reports A and B", &[], CancellationToken::new())
        .await
        .unwrap();
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.final_response, "SYNTH[2]");
    assert_eq!(r.plan.len(), 2);
    assert!(!r.short_circuited);
    let ada = r.agent_responses.iter().find(|x| x.agent == "ada").unwrap();
    assert_eq!(
        (ada.response.as_str(), ada.revisions),
        ("A, with numbers", 1)
    );
    assert_eq!(r.reviews.len(), 3, "{:?}", r.reviews);
    assert!(
        r.reviews
            .iter()
            .all(|x| x.reviewer == "rita" && x.author != "rita")
    );
    assert_eq!(
        r.total_tokens,
        100 * 8,
        "a plan, 2 answers, 3 reviews, a revision and the synthesis"
    );
    // The briefs carry the plan and the assignment (the training).
    let brief = fakes[1].asked.lock().unwrap()[0].brief.clone();
    assert!(
        brief.contains("You are ada")
            && brief.contains("Summarise report A  ← yours")
            && brief.contains("Summarise report B"),
        "{brief}"
    );
    settle(&seen).await;
    let events = seen.lock().unwrap();
    let stages: Vec<(Stage, Phase)> = events.iter().map(|e| (e.stage, e.phase)).collect();
    assert_eq!(
        stages.first(),
        Some(&(Stage::Orchestration, Phase::Starting))
    );
    assert_eq!(stages.last(), Some(&(Stage::Orchestration, Phase::Stopped)));
    for stage in [
        Stage::Planning,
        Stage::AgentTraining,
        Stage::AgentExecution,
        Stage::AgentReview,
        Stage::AgentRevise,
        Stage::Synthesis,
    ] {
        assert!(
            stages.contains(&(stage, Phase::Starting)) && stages.contains(&(stage, Phase::Stopped)),
            "{stage:?}"
        );
    }
    assert!(events.iter().all(|e| e.session_id == r.session_id));
    // Each stage is timed (every member answer takes 20 ms here): in the
    // stopped events and on the result.
    assert!(
        events
            .iter()
            .all(|e| (e.phase == Phase::Stopped) == e.elapsed_ms.is_some()),
        "{events:?}"
    );
    let took = |stage: Stage| -> Vec<u64> {
        r.stages
            .iter()
            .filter(|t| t.stage == stage)
            .map(|t| t.elapsed_ms)
            .collect()
    };
    assert_eq!(took(Stage::AgentExecution).len(), 2, "{:?}", r.stages);
    assert_eq!(took(Stage::AgentReview).len(), 3, "{:?}", r.stages);
    for stage in [
        Stage::Planning,
        Stage::AgentExecution,
        Stage::AgentReview,
        Stage::Synthesis,
    ] {
        assert!(
            took(stage).iter().all(|ms| *ms >= 20),
            "{stage:?}: {:?}",
            r.stages
        );
    }
    let planning_and_synthesis = took(Stage::Planning)[0] + took(Stage::Synthesis)[0];
    assert!(
        r.elapsed_ms >= planning_and_synthesis + 20,
        "{} ms",
        r.elapsed_ms
    );
}

#[tokio::test]
async fn parallel_is_faster_than_sequential_and_sequential_shares_state() {
    let run = |sequential: bool| async move {
        let fakes = team(|_| Ok(r#"{"approved": true}"#.into()));
        let options = Options {
            sequential,
            enable_peer_review: false,
            ..Options::default()
        };
        let orch = Orchestrator::new(members(&fakes), options).unwrap();
        let started = Instant::now();
        let r = orch
            .orchestrate("Compare", &[], CancellationToken::new())
            .await
            .unwrap();
        assert!(r.success);
        let second_brief = fakes[2].asked.lock().unwrap()[0].brief.clone();
        (started.elapsed(), second_brief)
    };
    let (parallel, _) = run(false).await;
    let (sequential, brief) = run(true).await;
    assert!(sequential > parallel, "{sequential:?} vs {parallel:?}");
    assert!(
        brief.contains("What the team has done so far")
            && brief.contains("ada: Summarise report A"),
        "{brief}"
    );
}

#[tokio::test]
async fn one_assignment_short_circuits_review_and_synthesis() {
    let planner = fake("planner", &["planning"], |_| {
        Ok(r#"{"assignments": [{"task": "Say hi", "specialisation": "writing"}]}"#.into())
    });
    let bo = fake("bo", &["writing"], |_| Ok("Hi!".into()));
    let syn = fake("syn", &["synthesis", "review"], |_| Ok("never".into()));
    let fakes = vec![planner, bo, Arc::clone(&syn)];
    let r = Orchestrator::new(members(&fakes), Options::default())
        .unwrap()
        .orchestrate("Say hi", &[], CancellationToken::new())
        .await
        .unwrap();
    assert!(r.success && r.short_circuited);
    assert_eq!(r.final_response, "Hi!");
    assert!(r.reviews.is_empty());
    assert_eq!(syn.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_broken_plan_is_retried_then_falls_back_and_missing_roles_are_said() {
    let tries = AtomicUsize::new(0);
    let solo = fake("solo", &["general"], move |a| {
        if a.brief.contains("You plan work") {
            tries.fetch_add(1, Ordering::SeqCst);
            Ok("First I would read everything, then write.".into())
        } else {
            Ok("The whole answer.".into())
        }
    });
    let r = Orchestrator::new(members(&[Arc::clone(&solo)]), Options::default())
        .unwrap()
        .orchestrate("Do it all", &[], CancellationToken::new())
        .await
        .unwrap();
    assert!(r.success, "{:?}", r.error);
    assert_eq!(r.final_response, "The whole answer.");
    assert_eq!(r.plan[0].task, "Do it all");
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("no agent has the planning specialisation")),
        "{:?}",
        r.notes
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("could not be read") && n.contains("not JSON")),
        "{:?}",
        r.notes
    );
    // The retry told the planner what was wrong.
    let asked = solo.asked.lock().unwrap().clone();
    assert!(
        asked[1]
            .message
            .contains("could not be used: it is not JSON"),
        "{}",
        asked[1].message
    );

    // A plan fixed on the retry is used; no synthesizer: the first agent combines.
    let tries = AtomicUsize::new(0);
    let planner = fake("planner", &["planning"], move |_| {
        Ok(if tries.fetch_add(1, Ordering::SeqCst) == 0 {
            "nope".into()
        } else {
            PLAN2.into()
        })
    });
    let fakes = vec![
        planner,
        fake("ada", &["research"], |_| Ok("A".into())),
        fake("bo", &["writing"], |_| Ok("B".into())),
    ];
    let options = Options {
        enable_peer_review: false,
        ..Options::default()
    };
    let r = Orchestrator::new(members(&fakes), options)
        .unwrap()
        .orchestrate("Compare", &[], CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(r.plan.len(), 2);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("no agent has the synthesis specialisation: planner combined")),
        "{:?}",
        r.notes
    );
}

#[tokio::test]
async fn the_reviewer_is_never_the_author() {
    // Two agents, each can review: each reviews the other's work.
    let plan = r#"[{"task": "t1", "specialisation": "x"}, {"task": "t2", "specialisation": "y"}]"#;
    let a = fake("a", &["planning", "x", "review", "synthesis"], move |ask| {
        Ok(if ask.brief.contains("You plan") {
            plan.into()
        } else if ask.brief.contains("You review") {
            r#"{"approved": true}"#.into()
        } else {
            "from a".into()
        })
    });
    let b = fake("b", &["y", "review"], |ask| {
        Ok(if ask.brief.contains("You review") {
            r#"{"approved": true}"#.into()
        } else {
            "from b".into()
        })
    });
    let r = Orchestrator::new(members(&[a, b]), Options::default())
        .unwrap()
        .orchestrate("Two things", &[], CancellationToken::new())
        .await
        .unwrap();
    assert!(r.success);
    assert_eq!(r.reviews.len(), 2);
    for review in &r.reviews {
        assert_ne!(review.reviewer, review.author, "{review:?}");
    }
}

#[tokio::test]
async fn the_token_budget_stops_the_run_with_what_it_has() {
    let fakes = team(|_| Ok(r#"{"approved": true}"#.into()));
    // Plan (100) and two works (200) pass 250: no reviews, no synthesis.
    let options = Options {
        max_tokens: Some(250),
        ..Options::default()
    };
    let r = Orchestrator::new(members(&fakes), options)
        .unwrap()
        .orchestrate("Compare", &[], CancellationToken::new())
        .await
        .unwrap();
    assert!(!r.success && !r.cancelled);
    assert!(
        r.error
            .as_deref()
            .unwrap()
            .contains("token budget of 250 ran out"),
        "{:?}",
        r.error
    );
    assert!(r.total_tokens <= 300, "{}", r.total_tokens);
    assert!(!r.final_response.is_empty(), "the partial answer is kept");
    assert_eq!(
        fakes[4].calls.load(Ordering::SeqCst),
        0,
        "no synthesis past the budget"
    );
}

#[tokio::test]
async fn cancelling_mid_review_returns_promptly() {
    let slow_reviewer = Arc::new(Fake {
        delay: Duration::from_secs(30),
        ..Arc::into_inner(fake("rita", &["review"], |_| {
            Ok(r#"{"approved": true}"#.into())
        }))
        .unwrap()
    });
    let mut fakes = team(|_| Ok(String::new()));
    fakes[3] = slow_reviewer;
    let (seen, handler) = recorder();
    let orch = Orchestrator::new(members(&fakes), Options::default())
        .unwrap()
        .on_event(handler);
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    let watcher = Arc::clone(&seen);
    tokio::spawn(async move {
        while !watcher
            .lock()
            .unwrap()
            .iter()
            .any(|e| e.stage == Stage::AgentReview)
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        stopper.cancel();
    });
    let started = Instant::now();
    let r = orch.orchestrate("Compare", &[], cancel).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(r.cancelled && !r.success);
    assert_eq!(r.error.as_deref(), Some("cancelled"));
}

#[tokio::test]
async fn a_failing_event_handler_is_ignored_and_one_run_at_a_time() {
    let fakes = team(|_| Ok(r#"{"approved": true}"#.into()));
    let (seen, handler) = recorder();
    let orch = Arc::new(
        Orchestrator::new(members(&fakes), Options::default())
            .unwrap()
            .on_event(Arc::new(|_| panic!("a broken handler")))
            .on_event(handler),
    );
    let running = Arc::clone(&orch);
    let first = tokio::spawn(async move {
        running
            .orchestrate("Compare", &[], CancellationToken::new())
            .await
    });
    while !orch.is_processing() {
        tokio::task::yield_now().await;
    }
    let busy = orch
        .orchestrate("Another", &[], CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(busy, OrchestratorError::Busy);
    assert!(busy.to_string().contains("already running"));
    let r = first.await.unwrap().unwrap();
    assert!(r.success, "{:?}", r.error);
    assert!(!orch.is_processing());
    settle(&seen).await;
    assert!(
        seen.lock().unwrap().len() > 10,
        "the other handler still got every event"
    );
    assert_eq!(
        orch.orchestrate("  \u{7} ", &[], CancellationToken::new())
            .await
            .unwrap_err(),
        OrchestratorError::EmptyPrompt
    );
    assert!(matches!(
        Orchestrator::new(
            members(&[
                fake("a", &[], |_| Ok(String::new())),
                fake("A", &[], |_| Ok(String::new()))
            ]),
            Options::default()
        ),
        Err(OrchestratorError::DuplicateName(_))
    ));
}

#[tokio::test]
async fn a_failing_member_ends_the_run_in_words() {
    let mut fakes = team(|_| Ok(r#"{"approved": true}"#.into()));
    fakes[2] = fake("bo", &["writing"], |_| {
        Err("the provider refused the key".into())
    });
    let r = Orchestrator::new(members(&fakes), Options::default())
        .unwrap()
        .orchestrate("Compare", &[], CancellationToken::new())
        .await
        .unwrap();
    assert!(!r.success && !r.cancelled);
    assert_eq!(
        r.error.as_deref(),
        Some("bo failed: the provider refused the key")
    );
    assert!(
        r.agent_responses.iter().any(|x| x.agent == "ada"),
        "the other answer is kept"
    );
}

/// A host's own stages: a planner by rule, a selector that gives every
/// assignment to one member, a scheduler that runs the second assignment
/// first and alone, a synthesizer that joins the parts, and a filter
/// that upper-cases the request. No member plans or synthesizes.
#[tokio::test]
async fn a_host_replaces_every_stage() {
    use baton_orchestrator::{
        AgentResponse, Assignment, Planner, PromptFilter, Scheduler, Selection, Stages, Synthesizer,
    };

    struct Loud;
    impl PromptFilter for Loud {
        fn filter(&self, prompt: &str) -> Option<String> {
            Some(prompt.trim().to_uppercase()).filter(|p| !p.is_empty())
        }
    }
    struct ByRule;
    impl Planner for ByRule {
        fn plan<'a>(
            &'a self,
            request: &'a str,
            _: &'a [String],
        ) -> BoxFuture<'a, Option<Vec<Assignment>>> {
            let part = move |n: u32| Assignment {
                task: format!("{request} part {n}"),
                specialisation: "writing".into(),
            };
            Box::pin(async move { Some(vec![part(1), part(2)]) })
        }
    }
    struct Always(Arc<dyn Member>);
    impl Selection for Always {
        fn author(&mut self, _: &str) -> Arc<dyn Member> {
            Arc::clone(&self.0)
        }
        fn reviewer(&self, _: &str) -> Option<Arc<dyn Member>> {
            None
        }
    }
    struct SecondFirst;
    impl Scheduler for SecondFirst {
        fn waves(&self, _: &[Assignment], _: &Options) -> Vec<Vec<usize>> {
            vec![vec![1], vec![0, 7]]
        }
    }
    struct Joined;
    impl Synthesizer for Joined {
        fn synthesize<'a>(
            &'a self,
            _: &'a str,
            parts: &'a [AgentResponse],
        ) -> BoxFuture<'a, Option<String>> {
            let text: Vec<String> = parts.iter().map(|p| p.response.clone()).collect();
            Box::pin(async move { Some(text.join(" + ")) })
        }
    }

    let fakes = team(|_| Ok(r#"{"approved": true}"#.into()));
    let bo = Arc::clone(&fakes[2]) as Arc<dyn Member>;
    let stages = Stages {
        filter: Arc::new(Loud),
        planner: Arc::new(ByRule),
        selection: Arc::new(move |_: &[Arc<dyn Member>]| {
            Box::new(Always(Arc::clone(&bo))) as Box<dyn Selection>
        }),
        scheduler: Arc::new(SecondFirst),
        synthesizer: Arc::new(Joined),
    };
    let options = Options {
        enable_peer_review: true,
        ..Options::default()
    };
    let o = Orchestrator::new(members(&fakes), options)
        .unwrap()
        .with_stages(stages);
    let r = o
        .orchestrate("  summarise the reports ", &[], CancellationToken::new())
        .await
        .unwrap();
    assert!(r.success, "{r:?}");
    assert_eq!(r.final_response, "B + B");
    let tasks: Vec<&str> = r
        .agent_responses
        .iter()
        .map(|a| a.assignment.task.as_str())
        .collect();
    assert_eq!(
        tasks,
        [
            "SUMMARISE THE REPORTS part 2",
            "SUMMARISE THE REPORTS part 1"
        ]
    );
    assert!(r.agent_responses.iter().all(|a| a.agent == "bo"));
    for idle in [0, 1, 3, 4] {
        assert_eq!(
            fakes[idle].calls.load(Ordering::SeqCst),
            0,
            "{} was not asked",
            fakes[idle].name
        );
    }
    assert_eq!(fakes[2].calls.load(Ordering::SeqCst), 2);
}
