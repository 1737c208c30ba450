//! Messages in code: a quoted phrase found inside a string literal or a comment, across the
//! pieces of a formatted or concatenated string, with a value where the literal interpolates
//! one; a pasted error message ranking the definition that raises it above identifiers that
//! share its common words (the native chunker, feature `code`).

use super::*;

fn file(path: &str, text: &str) -> NoteInput {
    NoteInput { path: path.into(), bytes: text.as_bytes().to_vec(), mtime: 1000.0, ctime: None }
}

const ADAPTERS_PY: &str = r#""""HTTP adapters."""
import os


def find(items, key):
    """Finds the first item whose key matches; raises an error when none does."""
    for item in items:
        if item.key == key:
            return item
    raise LookupError("no item found for the key")


def get_error(response):
    """Returns the error of a response, if it has one: a bundle of error details."""
    return response.error


class HTTPAdapter:
    def cert_verify(self, conn, url, verify, cert):
        """Verifies the certificate of a connection."""
        cert_loc = verify
        if not os.path.exists(cert_loc):
            raise OSError(
                f"Could not find a suitable TLS CA certificate bundle, "
                f"invalid path: {cert_loc}"
            )
        # Certificates are checked before the connection is reused.
        conn.cert_reqs = "CERT_REQUIRED"
"#;

const LOOKUP_TS: &str = r#"/** Finds a suitable error handler for a certificate bundle. */
export function findErrorHandler(bundle: string[], path: string): string | undefined {
  return bundle.find((h) => h === path);
}

export function loadBundle(path: string): string {
  if (!path) throw new Error("the bundle path " + path + " is not a file");
  return path;
}
"#;

fn engine() -> Engine {
    let mut e = Engine::create(CoreConfig::default()).unwrap();
    let files = vec![file("requests/adapters.py", ADAPTERS_PY), file("web/lookup.ts", LOOKUP_TS)];
    e.update(UpdateBatch { upserts: files, commit: true, ..Default::default() }).unwrap();
    e
}

/// The first hits' definition names.
fn names(e: &mut Engine, q: &str) -> Vec<String> {
    let req = SearchRequest { query: q.into(), k: Some(5), mode: Some(SearchMode::Lexical), ..Default::default() };
    let hits = e.search(&req).unwrap().hits;
    hits.iter().map(|h| h.code.as_ref().map_or_else(|| h.heading_path.clone(), |c| c.name.clone())).collect()
}

#[test]
fn a_quoted_phrase_is_found_in_string_literals_and_comments() {
    let mut e = engine();
    // Words the stemmer changes ("suitable", "certificate") must be found as written, in code too.
    assert_eq!(
        names(&mut e, r#""suitable TLS CA certificate bundle""#).first().map(String::as_str),
        Some("cert_verify")
    );
    assert_eq!(names(&mut e, r#""checked before the connection""#).first().map(String::as_str), Some("cert_verify"));
    // Not as written: no hit.
    assert!(names(&mut e, r#""suitably TLS CA certificate bundle""#).is_empty());
}

#[test]
fn a_phrase_spans_the_pieces_of_a_string_and_a_value_fills_its_placeholder() {
    let mut e = engine();
    // Across the two f-string pieces, as the reader sees the message.
    assert_eq!(names(&mut e, r#""certificate bundle, invalid path""#).first().map(String::as_str), Some("cert_verify"));
    // The value it was printed with, where the literal interpolates `{cert_loc}`.
    let printed = r#""invalid path: /etc/ssl/certs/ca-bundle.crt""#;
    assert_eq!(names(&mut e, printed).first().map(String::as_str), Some("cert_verify"));
    // A concatenation with a value in the middle.
    let ts = r#""the bundle path /home/me/ca.pem is not a file""#;
    assert_eq!(names(&mut e, ts).first().map(String::as_str), Some("loadBundle"));
    // A value where the literal has words does not match.
    assert!(names(&mut e, r#""invalid value: /etc/ssl/ca.pem""#).is_empty());
    assert!(names(&mut e, r#""could not find a TLS CA certificate bundle""#).is_empty());
}

#[test]
fn a_pasted_error_message_ranks_the_definition_that_raises_it_first() {
    let mut e = engine();
    let pasted = "OSError: Could not find a suitable TLS CA certificate bundle, invalid path: /tmp/ca.pem";
    let got = names(&mut e, pasted);
    assert_eq!(got.first().map(String::as_str), Some("cert_verify"), "{got:?}");
    let got = names(&mut e, "Error: the bundle path ./certs is not a file");
    assert_eq!(got.first().map(String::as_str), Some("loadBundle"), "{got:?}");
    // Words alone still find the identifiers that hold them.
    assert_eq!(names(&mut e, "find error handler").first().map(String::as_str), Some("findErrorHandler"));
}
