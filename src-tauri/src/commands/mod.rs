//! The commands the UI invokes, one file per area. Each validates its
//! input and calls the engine; none holds engine logic.

pub mod attachments;
pub mod browser;
pub mod chat;
pub mod desktop;
pub mod files;
pub mod index;
pub mod mail;
pub mod mcp;
pub mod memory;
pub mod models;
pub mod projects;
mod relay;
pub mod research;
pub mod schedule;
pub mod server;
pub mod sessions;
pub mod settings;
pub mod team;
pub mod transfer;
pub mod voice;
