//! Per language: the chunks of a fixture with nested types, decorators, doc comments,
//! overloads and a syntax error (expected values read off the fixtures by hand).

mod common;

use common::{chunk_fixture, describe, named};
use strata_chunker::{ChunkKind, CodeLang};

const BUDGET: usize = 512;

fn expect(name: &str, lang: CodeLang, expected: &[&str]) -> strata_chunker::CodeFile {
    let (_, file) = chunk_fixture(name, lang, BUDGET);
    assert_eq!(describe(&file), expected, "{name}");
    assert!(!file.fallback, "{name}");
    file
}

#[test]
fn python() {
    let f = expect(
        "sample.py",
        CodeLang::Python,
        &[
            "module  1-6",
            "function route 9-13",
            "function login 16-23",
            "class SessionRedirectMixin 26-44",
            "method get_redirect_target <SessionRedirectMixin 31-33",
            "method rebuild_auth <SessionRedirectMixin 35-40",
            "class Policy <SessionRedirectMixin 42-44",
            "method allows <Policy 43-44",
            "lines  47-52 ERR",
        ],
    );
    assert_eq!(f.imports, Some((3, 4)));
    assert_eq!(f.error_regions, 1);
    let login = named(&f, "login");
    assert_eq!(
        login.signature,
        "@route(\"/login\") @route(\"/signin\") def login(user: str, password: Optional[str] = None) -> bool:"
    );
    assert_eq!(login.signature_end_line, 18);
    assert_eq!(login.doc, "Log a user in.\n\nReturns True on success.");
    assert_eq!(named(&f, "route").doc, "Decorates a view.");
    assert_eq!(named(&f, "rebuild_auth").signature, "@staticmethod def rebuild_auth(prepared_request, response):");
    assert_eq!(named(&f, "SessionRedirectMixin").doc, "Rebuilds requests on redirects.");
    // The comment inside the function is neither its doc nor part of its signature.
    let target = named(&f, "get_redirect_target");
    assert_eq!((target.signature.as_str(), target.doc.as_str()), ("def get_redirect_target(self, resp):", ""));
}

#[test]
fn typescript() {
    let f = expect(
        "sample.ts",
        CodeLang::TypeScript,
        &[
            "module  1-2",
            "function parse 4-9",
            "function increment 11-12",
            "function handler 14-16",
            "interface Shape 18-20",
            "type Point 22-22",
            "enum Color 24-27",
            "class Polygon 29-46",
            "method area <Polygon 35-35",
            "method scale <Polygon 37-41",
            "method vertices <Polygon 43-45",
            "class Square 48-52",
            "method area <Square 49-51",
            "function ids 54-56",
            "function broken 58-60 ERR",
            "module  62-62",
            "module Geometry 64-71",
            "class Vec <Geometry 65-70",
            "method length <Vec 66-69",
        ],
    );
    assert_eq!(f.imports, Some((1, 2)));
    assert_eq!(f.error_regions, 1);
    // Two overload signatures and the implementation: one chunk, the first signature, its doc.
    let parse = named(&f, "parse");
    assert_eq!(parse.signature, "export function parse(value: string): number");
    assert_eq!(parse.doc, "Parses a number.");
    assert_eq!(parse.signature_end_line, 7);
    assert_eq!(named(&f, "increment").signature, "const increment = (n: number): number =>");
    assert_eq!(named(&f, "increment").doc, "Adds one.");
    assert_eq!(named(&f, "Polygon").doc, "A shape with corners.");
    assert_eq!(named(&f, "Polygon").signature_end_line, 32);
    assert_eq!(named(&f, "Square").signature, "export default class Square extends Polygon");
    assert_eq!(named(&f, "Geometry").kind, ChunkKind::Module);
}

#[test]
fn javascript() {
    let f = expect(
        "sample.js",
        CodeLang::JavaScript,
        &[
            "module  1-3",
            "function readConfig 5-10",
            "function Cache 12-14",
            "method clear in Cache 16-19",
            "module  21-21",
            "function hidden 22-24",
            "module  25-26",
            "function stream 28-30",
        ],
    );
    assert_eq!(f.imports, Some((2, 3)));
    assert_eq!(f.error_regions, 0);
    assert_eq!(named(&f, "readConfig").doc, "Reads a config file.");
    assert_eq!(named(&f, "stream").signature, "export default async function* stream()");
}

#[test]
fn tsx_and_anonymous_default_export() {
    let text = "import React from \"react\";\n\nexport default () => {\n  return <div>{1}</div>;\n};\n\nexport const Button = ({ label }: { label: string }) => <button>{label}</button>;\n";
    let f = strata_chunker::chunk(CodeLang::Tsx, text, BUDGET);
    common::check_layout(text, &f);
    assert_eq!(describe(&f), ["module  1-1", "function default 3-5", "function Button 7-7"]);
    assert_eq!(f.error_regions, 0);
}

#[test]
fn go() {
    let f = expect(
        "sample.go",
        CodeLang::Go,
        &[
            "module  1-6",
            "constant MaxItems 8-11",
            "constant ErrFull 13-13",
            "class Item 15-18",
            "interface Store 20-23",
            "type ID 25-25",
            "method Put in memStore 27-34",
            "function New 36-38",
            "function broken 40-42 ERR",
        ],
    );
    assert_eq!(f.imports, Some((3, 6)));
    assert_eq!(named(&f, "Put").signature, "func (s *memStore) Put(i Item) error");
    assert_eq!(named(&f, "Put").doc, "Put adds an item.");
    assert_eq!(named(&f, "Item").signature, "type Item struct");
}

#[test]
fn rust() {
    let f = expect(
        "sample.rs",
        CodeLang::Rust,
        &[
            "module  1-4",
            "constant MAX 6-7",
            "constant GREETING 9-9",
            "class Entry 11-16",
            "enum Kind 18-21",
            "interface Store 23-30",
            "method put <Store 25-26",
            "method len <Store 27-29",
            "impl Memory 32-36",
            "method put <Memory 33-35",
            "impl Entry 38-42",
            "method fmt <Entry 39-41",
            "type Map 44-44",
            "function square 46-50",
            "module inner 52-56",
            "function helper <inner 53-55",
            "function broken 58-60 ERR",
            "class Memory 62-64",
        ],
    );
    assert_eq!(f.imports, Some((3, 4)));
    // `//!` documents the module, not the first item; `///` above `#[derive]` documents Entry.
    assert_eq!(named(&f, "MAX").doc, "The most entries.");
    assert_eq!(named(&f, "Entry").doc, "A key and its value.");
    assert_eq!(named(&f, "Entry").signature, "pub struct Entry");
    assert_eq!(named(&f, "put").doc, "Puts a value.");
    assert_eq!(named(&f, "put").signature, "fn put(&mut self, key: &str, value: u32)");
    assert_eq!(named(&f, "Memory").signature, "impl Store for Memory");
}

#[test]
fn java() {
    let f = expect(
        "Sample.java",
        CodeLang::Java,
        &[
            "module  1-4",
            "class Cart 6-44",
            "method Cart <Cart 13-15",
            "method add <Cart 17-20",
            "method add <Cart 22-26",
            "class Line <Cart 28-34",
            "method total <Line 31-33",
            "enum State <Cart 36-43",
            "method isOpen <State 40-42",
            "interface Priced 46-48",
            "class Money 50-54",
            "method Money <Money 51-53",
            "class Broken 56-60 ERR",
            "method broken <Broken 57-59 ERR",
        ],
    );
    assert_eq!(f.imports, Some((3, 4)));
    let cart = named(&f, "Cart");
    assert_eq!((cart.signature.as_str(), cart.doc.as_str()), ("@Deprecated public class Cart", "A shopping cart."));
    // The overloads stay two chunks.
    let adds: Vec<_> = f.chunks.iter().filter(|c| c.name == "add").map(|c| c.signature.as_str()).collect();
    assert_eq!(adds, ["public void add(String item)", "public void add(String item, int count)"]);
    assert_eq!(f.chunks[3].doc, "Adds one item.");
}

#[test]
fn c() {
    let f = expect(
        "sample.c",
        CodeLang::C,
        &[
            "module  1-4",
            "function SQUARE 5-5",
            "class point 7-11",
            "class counter_t 13-15",
            "enum color 17-17",
            "type handle_t 19-19",
            "module  21-21",
            "function distance 23-30",
            "module  32-32",
            "function trace 33-35",
            "module  36-36",
            "function broken 38-40 ERR",
            "function main 42-45",
        ],
    );
    assert_eq!(f.imports, Some((1, 2)));
    assert_eq!(named(&f, "distance").doc, "Squared distance between two points.");
    assert_eq!(named(&f, "point").doc, "A point on the plane.");
    assert_eq!(named(&f, "distance").signature_end_line, 26);
}

#[test]
fn cpp() {
    let f = expect(
        "sample.cpp",
        CodeLang::Cpp,
        &[
            "module  1-2",
            "module geo 4-36",
            "class Shape <geo 6-20",
            "method ~Shape <Shape 9-9",
            "method scaled <Shape 12-14",
            "class Bounds <Shape 16-19",
            "function square <geo 22-26",
            "function add <geo 28-30",
            "function add <geo 32-34",
            "class Circle 38-44",
            "method area in Circle 46-49",
            "function broken 51-53 ERR",
        ],
    );
    assert_eq!(named(&f, "square").signature, "template <typename T> T square(T x)");
    assert_eq!(named(&f, "square").doc, "Squares a number.");
    assert_eq!(named(&f, "area").doc, "The area of a circle.");
    assert_eq!(named(&f, "Shape").doc, "A shape.");
}
