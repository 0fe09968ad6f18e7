//! What a use case needs from the face that runs it (the command line, the
//! hook, the MCP server): a way to tell the person or agent what happened.
//! A use case says a note or a warning through this and never prints; each
//! face decides where it goes (the CLI's stderr, quiet or not; an MCP
//! answer's notes).

/// Where a use case says what it did beside its result.
pub trait Tell {
    /// What was done or skipped, worth knowing and no fault.
    fn note(&self, text: &str);
    /// Something went wrong that did not stop the use case (a commit not
    /// made after a saved write).
    fn warn(&self, text: &str);
}
