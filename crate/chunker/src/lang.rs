//! What each language's definitions are: a syntax node's chunk kind, name, enclosing type,
//! body (where the signature ends) and members (a container's body, whose definitions become
//! its children).

use tree_sitter::Node;

use crate::{ChunkKind, CodeLang};

/// A definition found at a node.
pub(crate) struct Found<'t> {
    pub kind: ChunkKind,
    pub name: String,
    /// The enclosing type when no chunk encloses it (a Go receiver, C++ `Foo::bar`'s `Foo`).
    pub container: String,
    /// The node the signature ends before; None: the signature is the definition's first line.
    pub body: Option<Node<'t>>,
    /// A container's body: its definitions become the chunk's children.
    pub members: Option<Node<'t>>,
    /// A Python docstring's string node.
    pub docstring: Option<Node<'t>>,
    /// A bodiless overload signature, merged into the next definition of the same name.
    pub overload: bool,
}

impl<'t> Found<'t> {
    fn new(kind: ChunkKind, name: String) -> Found<'t> {
        Found { kind, name, container: String::new(), body: None, members: None, docstring: None, overload: false }
    }
    fn body(mut self, body: Option<Node<'t>>) -> Self {
        self.body = body;
        self
    }
    fn members(mut self, members: Option<Node<'t>>) -> Self {
        self.members = members;
        self
    }
}

pub(crate) fn text<'s>(node: Node, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

fn field_text(node: Node, field: &str, src: &str) -> String {
    node.child_by_field_name(field).map(|n| text(n, src).to_string()).unwrap_or_default()
}

/// A node's named children (through a cursor: indexing children one by one is quadratic).
pub(crate) fn named_children<'t>(node: Node<'t>) -> std::vec::IntoIter<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect::<Vec<_>>().into_iter()
}

/// Functions inside a type are methods.
fn function(in_type: bool) -> ChunkKind {
    if in_type {
        ChunkKind::Method
    } else {
        ChunkKind::Function
    }
}

/// The definition at `node`, if it is one. `in_type`: the node is a member of a class, impl,
/// trait or interface.
pub(crate) fn classify<'t>(lang: CodeLang, node: Node<'t>, src: &str, in_type: bool) -> Option<Found<'t>> {
    match lang {
        CodeLang::Python => python(node, src, in_type),
        CodeLang::JavaScript | CodeLang::TypeScript | CodeLang::Tsx => script(node, src, in_type),
        CodeLang::Go => go(node, src),
        CodeLang::Rust => rust(node, src, in_type),
        CodeLang::Java => java(node, src),
        CodeLang::C | CodeLang::Cpp => c_family(node, src, in_type),
        CodeLang::Json | CodeLang::Yaml => None,
    }
}

/// The node is an import (`import`, `from … import`, `use`, `#include`, `require(…)`, Go's
/// import block).
pub(crate) fn is_import(lang: CodeLang, node: Node, src: &str) -> bool {
    match (lang, node.kind()) {
        (CodeLang::Python, "import_statement" | "import_from_statement" | "future_import_statement") => true,
        (CodeLang::JavaScript | CodeLang::TypeScript | CodeLang::Tsx, "import_statement") => true,
        (
            CodeLang::JavaScript | CodeLang::TypeScript | CodeLang::Tsx,
            "lexical_declaration" | "variable_declaration",
        ) => named_children(node).any(|d| {
            d.child_by_field_name("value").is_some_and(|v| {
                v.kind() == "call_expression"
                    && v.child_by_field_name("function").is_some_and(|f| text(f, src) == "require")
            })
        }),
        (CodeLang::Go, "import_declaration") => true,
        (CodeLang::Rust, "use_declaration" | "extern_crate_declaration") => true,
        (CodeLang::Java, "import_declaration") => true,
        (CodeLang::C | CodeLang::Cpp, "preproc_include") => true,
        _ => false,
    }
}

/// Nodes whose children are searched for imports too (a C header's include guard).
pub(crate) fn is_preprocessor_block(kind: &str) -> bool {
    matches!(kind, "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif")
}

/// Comments and the attributes that belong to the definition below them.
pub(crate) fn is_comment(kind: &str) -> bool {
    kind.ends_with("comment")
}

/// Rust's `#[…]` and a class member's decorators in JS/TS (siblings of the definition there).
pub(crate) fn is_leading_attribute(lang: CodeLang, kind: &str) -> bool {
    match lang {
        CodeLang::Rust => kind == "attribute_item",
        CodeLang::JavaScript | CodeLang::TypeScript | CodeLang::Tsx => kind == "decorator",
        _ => false,
    }
}

fn python<'t>(node: Node<'t>, src: &str, in_type: bool) -> Option<Found<'t>> {
    let (kind, members) = match node.kind() {
        "decorated_definition" => return python(node.child_by_field_name("definition")?, src, in_type),
        "function_definition" => (function(in_type), false),
        "class_definition" => (ChunkKind::Class, true),
        _ => return None,
    };
    let body = node.child_by_field_name("body");
    let mut f = Found::new(kind, field_text(node, "name", src)).body(body);
    if members {
        f.members = body;
    }
    f.docstring = body.and_then(|b| b.named_child(0)).filter(|s| s.kind() == "expression_statement").and_then(|s| {
        let first = s.named_child(0)?;
        (first.kind() == "string" && s.named_child_count() == 1).then_some(first)
    });
    Some(f)
}

fn script<'t>(node: Node<'t>, src: &str, in_type: bool) -> Option<Found<'t>> {
    let name = || field_text(node, "name", src);
    let body = node.child_by_field_name("body");
    Some(match node.kind() {
        "export_statement" => {
            // `export function f`, `export default class {…}`, `export default () => …`.
            let mut f = match node.child_by_field_name("declaration") {
                Some(d) => script(d, src, in_type)?,
                None => script_value(node.child_by_field_name("value")?, String::new())?,
            };
            if f.name.is_empty() {
                f.name = "default".into();
            }
            f
        }
        "ambient_declaration" => script(named_children(node).next()?, src, in_type)?,
        "function_declaration" | "generator_function_declaration" => Found::new(function(in_type), name()).body(body),
        "function_signature" => Found { overload: true, ..Found::new(ChunkKind::Function, name()) },
        "class_declaration" | "abstract_class_declaration" | "class" => {
            Found::new(ChunkKind::Class, name()).body(body).members(body)
        }
        "method_definition" => Found::new(ChunkKind::Method, name()).body(body),
        "method_signature" if in_type => Found { overload: true, ..Found::new(ChunkKind::Method, name()) },
        "abstract_method_signature" => Found::new(ChunkKind::Method, name()),
        "interface_declaration" => Found::new(ChunkKind::Interface, name()).body(body),
        "type_alias_declaration" => Found::new(ChunkKind::Type, name()),
        "enum_declaration" => Found::new(ChunkKind::Enum, name()).body(body),
        "internal_module" | "module" => Found::new(ChunkKind::Module, name()).body(body).members(body),
        "lexical_declaration" | "variable_declaration" if !in_type => {
            // `const f = () => …`, `let g = function () {…}`, `const C = class {…}`.
            let mut declarators = named_children(node).filter(|d| d.kind() == "variable_declarator");
            let d = declarators.next()?;
            if declarators.next().is_some() {
                return None;
            }
            script_value(d.child_by_field_name("value")?, field_text(d, "name", src))?
        }
        "expression_statement" if !in_type => {
            // `exports.f = function …`, `Foo.prototype.bar = (…) => …`.
            let a = named_children(node).next().filter(|a| a.kind() == "assignment_expression")?;
            let (left, right) = (a.child_by_field_name("left")?, a.child_by_field_name("right")?);
            let target = text(left, src);
            let mut parts = target.rsplit('.');
            let name = parts.next().unwrap_or(target).trim().to_string();
            let rest: Vec<&str> = parts.collect();
            let mut f = script_value(right, name)?;
            if rest.first() == Some(&"prototype") && f.kind == ChunkKind::Function {
                f.kind = ChunkKind::Method;
                f.container = rest.get(1).unwrap_or(&"").trim().to_string();
            }
            f
        }
        _ => return None,
    })
}

/// A function or class expression given a name by a declaration, assignment or export.
fn script_value<'t>(value: Node<'t>, name: String) -> Option<Found<'t>> {
    Some(match value.kind() {
        "arrow_function" | "function_expression" | "function" | "generator_function" => {
            Found::new(ChunkKind::Function, name).body(value.child_by_field_name("body"))
        }
        "class" => {
            let b = value.child_by_field_name("body");
            Found::new(ChunkKind::Class, name).body(b).members(b)
        }
        _ => return None,
    })
}

fn go<'t>(node: Node<'t>, src: &str) -> Option<Found<'t>> {
    let body = node.child_by_field_name("body");
    Some(match node.kind() {
        "function_declaration" => Found::new(ChunkKind::Function, field_text(node, "name", src)).body(body),
        "method_declaration" => {
            let mut f = Found::new(ChunkKind::Method, field_text(node, "name", src)).body(body);
            // `func (s *memStore) Put(…)`: the receiver's type without pointer and type arguments.
            let receiver = node.child_by_field_name("receiver").map(|r| text(r, src)).unwrap_or("");
            let ty = receiver.trim_matches(|c| c == '(' || c == ')').split_whitespace().last().unwrap_or("");
            f.container = ty.trim_start_matches('*').split('[').next().unwrap_or("").to_string();
            f
        }
        "type_declaration" => {
            let spec = named_children(node).find(|s| matches!(s.kind(), "type_spec" | "type_alias"))?;
            let kind = match spec.child_by_field_name("type").map(|t| t.kind()) {
                Some("struct_type") => ChunkKind::Class,
                Some("interface_type") => ChunkKind::Interface,
                _ => ChunkKind::Type,
            };
            Found::new(kind, field_text(spec, "name", src))
        }
        "const_declaration" | "var_declaration" => {
            let spec = named_children(node).find(|s| matches!(s.kind(), "const_spec" | "var_spec"))?;
            Found::new(ChunkKind::Constant, field_text(spec, "name", src))
        }
        _ => return None,
    })
}

fn rust<'t>(node: Node<'t>, src: &str, in_type: bool) -> Option<Found<'t>> {
    let name = || field_text(node, "name", src);
    let body = node.child_by_field_name("body");
    Some(match node.kind() {
        "function_item" => Found::new(function(in_type), name()).body(body),
        "function_signature_item" => Found::new(function(in_type), name()),
        "struct_item" | "union_item" => Found::new(ChunkKind::Class, name()).body(body),
        "enum_item" => Found::new(ChunkKind::Enum, name()).body(body),
        "trait_item" => Found::new(ChunkKind::Interface, name()).body(body).members(body),
        "impl_item" => {
            // `impl<T> Display for Entry<T>`: the implementing type's name.
            let ty = field_text(node, "type", src);
            let ty = ty.split('<').next().unwrap_or("").rsplit("::").next().unwrap_or("").trim().to_string();
            Found::new(ChunkKind::Impl, ty).body(body).members(body)
        }
        "mod_item" => Found::new(ChunkKind::Module, name()).body(Some(body?)).members(body),
        "const_item" | "static_item" => Found::new(ChunkKind::Constant, name()),
        "type_item" => Found::new(ChunkKind::Type, name()),
        "macro_definition" => Found::new(ChunkKind::Function, name()),
        _ => return None,
    })
}

fn java<'t>(node: Node<'t>, src: &str) -> Option<Found<'t>> {
    let name = field_text(node, "name", src);
    let body = node.child_by_field_name("body");
    Some(match node.kind() {
        "class_declaration" | "record_declaration" => Found::new(ChunkKind::Class, name).body(body).members(body),
        "interface_declaration" | "annotation_type_declaration" => Found::new(ChunkKind::Interface, name).body(body),
        "enum_declaration" => Found::new(ChunkKind::Enum, name).body(body).members(body),
        "method_declaration" | "constructor_declaration" | "compact_constructor_declaration" => {
            Found::new(ChunkKind::Method, name).body(body)
        }
        _ => return None,
    })
}

fn c_family<'t>(node: Node<'t>, src: &str, in_type: bool) -> Option<Found<'t>> {
    let body = node.child_by_field_name("body");
    Some(match node.kind() {
        "function_definition" => {
            let (scope, name) = declarator_name(node.child_by_field_name("declarator")?, src)?;
            let mut f = Found::new(function(in_type || !scope.is_empty()), name).body(body);
            f.container = scope;
            f
        }
        "struct_specifier" | "union_specifier" | "class_specifier" => {
            Found::new(ChunkKind::Class, field_text(node, "name", src)).body(Some(body?)).members(body)
        }
        "enum_specifier" => Found::new(ChunkKind::Enum, field_text(node, "name", src)).body(Some(body?)),
        // `struct point {…};` and a class's nested `struct Bounds {…};`.
        "declaration" | "field_declaration" if node.child_by_field_name("declarator").is_none() => {
            c_family(node.child_by_field_name("type")?, src, in_type)?
        }
        "type_definition" => {
            let name = text(node.child_by_field_name("declarator")?, src).trim_start_matches('*').to_string();
            let ty = node.child_by_field_name("type");
            let has_body = ty.and_then(|t| t.child_by_field_name("body"));
            let kind = match (ty.map(|t| t.kind()), has_body) {
                (Some("enum_specifier"), Some(_)) => ChunkKind::Enum,
                (Some(_), Some(_)) => ChunkKind::Class,
                _ => ChunkKind::Type,
            };
            Found::new(kind, name).body(has_body)
        }
        "preproc_function_def" => Found::new(ChunkKind::Function, field_text(node, "name", src)),
        "namespace_definition" => Found::new(ChunkKind::Module, field_text(node, "name", src)).body(body).members(body),
        "template_declaration" => {
            let inner = named_children(node).rfind(|n| n.kind() != "template_parameter_list")?;
            c_family(inner, src, in_type)?
        }
        _ => return None,
    })
}

/// The name a C/C++ declarator declares, and its scope (`Foo::bar` → ("Foo", "bar")).
fn declarator_name(mut d: Node, src: &str) -> Option<(String, String)> {
    // pointer_declarator → function_declarator → identifier / qualified_identifier …
    for _ in 0..16 {
        match d.kind() {
            "identifier" | "field_identifier" | "destructor_name" | "operator_name" | "type_identifier" => {
                return Some((String::new(), text(d, src).to_string()));
            }
            "qualified_identifier" => {
                let scope = field_text(d, "scope", src);
                let name = d.child_by_field_name("name")?;
                let (inner_scope, name) = declarator_name(name, src).unwrap_or_default();
                // `ns::Foo::bar` and `Foo<T>::bar`: the innermost enclosing name, "Foo".
                let scope = if inner_scope.is_empty() { scope } else { inner_scope };
                let scope = scope.rsplit("::").next().unwrap_or("").split('<').next().unwrap_or("").trim();
                return Some((scope.to_string(), name));
            }
            _ => d = d.child_by_field_name("declarator").or_else(|| d.named_child(0))?,
        }
    }
    None
}
