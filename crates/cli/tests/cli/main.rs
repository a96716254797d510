//! The `baton` binary end to end: a real process against the scripted
//! server, with its own config folder; keychain tests use the real Secret
//! Service that `make test` starts (gnome-keyring in a D-Bus session).
//!
//! One module per area of the command line; what they share (the private
//! folders of one run, running a command, fixtures, speech helpers) is in
//! `support`. Test names carry their module (`ask::…`), which
//! `.config/nextest.toml`'s filters see: the voice tests' modules are
//! named so that those filters pick the same tests as before.

mod actions;
mod agents;
mod ask;
mod attacks;
mod browser;
mod chat;
mod config;
mod documents;
mod mail;
mod mcp;
mod memory;
mod models;
mod orchestrate;
mod projects;
mod research;
mod schedule;
mod search;
mod secrets;
mod serve;
mod sheet;
mod sound_server;
mod speech;
mod speech_loop;
mod support;
mod tools;
mod transfer;
