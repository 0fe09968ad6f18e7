//! Candidates from the command line, or the text of an agent's JSON
//! (`mdagent::remember::input` reads the candidates in it).

use std::io::Read;

use anyhow::Context;
use mdagent::remember::{Parsed, input};
use mdstore::write::Candidate;

use crate::cli::RememberArgs;
use crate::failure::Failure;

pub fn candidate_from_args(args: &RememberArgs) -> anyhow::Result<Candidate> {
    let body = match args.body.as_deref() {
        Some("-") => Some(read_stdin("the body")?),
        other => other.map(str::to_string),
    };
    let name = match (&args.name, &args.description) {
        (Some(name), _) => name.clone(),
        (None, Some(description)) => input::name_from_description(description),
        (None, None) => {
            return Err(Failure::bad_input("remember needs --name (or a --description to derive one from)")
                .with_hint("memctl remember --name prefer-pytest --type feedback --description \"Tests use pytest\" \"New tests use pytest.\"")
                .into());
        }
    };
    Ok(Candidate {
        name,
        record_type: args.record_type.map(Into::into),
        description: args.description.clone(),
        body,
        source: args.source.map(Into::into),
        expires: args.expires.clone(),
        tags: args.tags.clone(),
        scope: None,
    })
}

/// Standard input as text. Bytes that are not UTF-8 are bad input (exit 2),
/// not an I/O failure; a byte-order mark is not part of the text.
fn read_stdin(what: &str) -> anyhow::Result<String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {what} from standard input"))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Failure::bad_input(format!(
            "{what} on standard input is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

/// The candidates of `--from-json FILE|-`: an array of objects, or one
/// object. Only a file that is not JSON at all fails the whole batch.
pub fn read_candidates(source: &str) -> anyhow::Result<Vec<Parsed>> {
    let (label, text) = if source == "-" {
        ("standard input".to_string(), read_stdin("the candidates")?)
    } else {
        let text = std::fs::read_to_string(source)
            .map_err(|e| Failure::bad_input(format!("--from-json {source}: {e}")))?;
        (source.to_string(), text)
    };
    Ok(mdagent::remember::input::candidates_from_json(
        &label, &text,
    )?)
}
