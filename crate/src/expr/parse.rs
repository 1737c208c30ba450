//! The expression parser: a tokenizer and a recursive descent over
//! `or := and (OR and)*`, `and := unary (AND unary)*`, `unary := NOT unary | ( or ) | predicate`,
//! `predicate := field (op value | contains value | exists | !exists)`.

use super::{Context, Expr, ExprError, Field, Literal, Op, SortKey};
use crate::dates;

/// Expressions longer than this are refused (they come from people and models, not programs).
const MAX_LEN: usize = 4096;
/// Nesting deeper than this is refused (no stack overflow on `((((…`).
const MAX_DEPTH: usize = 64;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open,
    Close,
    Op(Op),
    And,
    Or,
    Not,
    Exists,
    /// A word or a quoted string.
    Word {
        text: String,
        quoted: bool,
    },
    End,
}

fn err<T>(message: impl Into<String>, position: usize) -> Result<T, ExprError> {
    Err(ExprError { message: message.into(), position })
}

/// Tokens with their character offsets.
fn tokenize(src: &str) -> Result<Vec<(Tok, usize)>, ExprError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let next = chars.get(i + 1).copied();
        let tok = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => Tok::Open,
            ')' => Tok::Close,
            '=' => {
                if next == Some('=') {
                    i += 1;
                }
                Tok::Op(Op::Eq)
            }
            '!' if next == Some('=') => {
                i += 1;
                Tok::Op(Op::Ne)
            }
            '!' => Tok::Not,
            '<' | '>' => {
                let eq = next == Some('=');
                if eq {
                    i += 1;
                }
                Tok::Op(match (c, eq) {
                    ('<', false) => Op::Lt,
                    ('<', true) => Op::Le,
                    (_, false) => Op::Gt,
                    _ => Op::Ge,
                })
            }
            '&' | '|' => {
                if next != Some(c) {
                    return err(format!("`{c}` alone: write `{c}{c}` or {}", if c == '&' { "AND" } else { "OR" }), i);
                }
                i += 1;
                if c == '&' {
                    Tok::And
                } else {
                    Tok::Or
                }
            }
            '"' | '\'' => {
                let mut text = String::new();
                let mut j = i + 1;
                loop {
                    match chars.get(j) {
                        None => return err("unterminated quoted text", start),
                        Some('\\') if chars.get(j + 1).is_some() => {
                            text.push(chars[j + 1]);
                            j += 2;
                        }
                        Some(&q) if q == c => break,
                        Some(&o) => {
                            text.push(o);
                            j += 1;
                        }
                    }
                }
                i = j;
                Tok::Word { text, quoted: true }
            }
            _ => {
                let mut j = i;
                while j < chars.len() && !chars[j].is_whitespace() && !"()=!<>\"'&|".contains(chars[j]) {
                    j += 1;
                }
                let text: String = chars[i..j].iter().collect();
                i = j - 1;
                match text.to_lowercase().as_str() {
                    "and" => Tok::And,
                    "or" => Tok::Or,
                    "not" => Tok::Not,
                    "exists" => Tok::Exists,
                    "contains" => Tok::Op(Op::Contains),
                    _ => Tok::Word { text, quoted: false },
                }
            }
        };
        out.push((tok, start));
        i += 1;
    }
    out.push((Tok::End, chars.len()));
    Ok(out)
}

struct Parser<'c> {
    toks: Vec<(Tok, usize)>,
    at: usize,
    ctx: &'c Context,
    depth: usize,
}

/// Parses an expression; relative dates (`today`, `now-2h`) are read against `ctx`.
pub fn parse(src: &str, ctx: &Context) -> Result<Expr, ExprError> {
    if src.len() > MAX_LEN {
        return err(format!("the expression is over {MAX_LEN} bytes"), 0);
    }
    let mut p = Parser { toks: tokenize(src)?, at: 0, ctx, depth: 0 };
    if p.peek() == &Tok::End {
        return err("empty expression", 0);
    }
    let e = p.or()?;
    match p.peek() {
        Tok::End => Ok(e),
        Tok::Close => err("`)` without its `(`", p.pos()),
        _ => err("expected AND, OR or the end of the expression", p.pos()),
    }
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.at].0
    }

    fn pos(&self) -> usize {
        self.toks[self.at].1
    }

    fn bump(&mut self) -> (Tok, usize) {
        let t = self.toks[self.at].clone();
        if self.at + 1 < self.toks.len() {
            self.at += 1;
        }
        t
    }

    fn or(&mut self) -> Result<Expr, ExprError> {
        let mut e = self.and()?;
        while self.peek() == &Tok::Or {
            self.bump();
            e = Expr::Or(Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, ExprError> {
        let mut e = self.unary()?;
        while self.peek() == &Tok::And {
            self.bump();
            e = Expr::And(Box::new(e), Box::new(self.unary()?));
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return err(format!("nested more than {MAX_DEPTH} deep"), self.pos());
        }
        let e = match self.peek() {
            Tok::Not => {
                self.bump();
                Expr::Not(Box::new(self.unary()?))
            }
            Tok::Open => {
                let open = self.bump().1;
                let e = self.or()?;
                match self.bump() {
                    (Tok::Close, _) => e,
                    (_, at) if at >= self.toks.last().map_or(0, |t| t.1) => return err("`(` is never closed", open),
                    (_, at) => return err("expected `)`", at),
                }
            }
            _ => self.predicate()?,
        };
        self.depth -= 1;
        Ok(e)
    }

    fn predicate(&mut self) -> Result<Expr, ExprError> {
        let (tok, at) = self.bump();
        let field = match tok {
            Tok::Word { text, quoted } => field(&text, quoted, at)?,
            Tok::End => return err("expected a field name, found the end of the expression", at),
            _ => return err("expected a field name", at),
        };
        match self.bump() {
            (Tok::Exists, _) => Ok(Expr::Exists { field, exists: true }),
            (Tok::Not, _) if self.peek() == &Tok::Exists => {
                self.bump();
                Ok(Expr::Exists { field, exists: false })
            }
            (Tok::Op(op), at) => {
                let value = match self.bump() {
                    (Tok::Word { text, quoted }, vat) => literal(text, quoted, vat, self.ctx)?,
                    (Tok::End, _) => return err(format!("expected a value after `{}`", op_text(op)), at),
                    (_, vat) => return err("expected a value", vat),
                };
                Ok(Expr::Cmp { field, op, value })
            }
            (Tok::End, at) => err(format!("expected a comparison after `{}`", field.name()), at),
            (_, at) => err("expected =, !=, <, <=, >, >=, contains, exists or !exists", at),
        }
    }
}

fn op_text(op: Op) -> &'static str {
    match op {
        Op::Eq => "=",
        Op::Ne => "!=",
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Gt => ">",
        Op::Ge => ">=",
        Op::Contains => "contains",
    }
}

const BUILT_INS: &str = "file.path, file.name, file.folder, file.tags, file.mtime, file.ctime, file.size, file.title";

fn field(text: &str, quoted: bool, at: usize) -> Result<Field, ExprError> {
    if quoted {
        return Ok(Field::Prop(text.to_string()));
    }
    let Some(rest) = text.strip_prefix("file.") else {
        return Ok(Field::Prop(text.to_string()));
    };
    Ok(match rest.to_lowercase().as_str() {
        "path" => Field::Path,
        "name" => Field::Name,
        "folder" => Field::Folder,
        "tags" | "tag" => Field::Tags,
        "mtime" => Field::Mtime,
        "size" => Field::Size,
        "title" => Field::Title,
        "ctime" => Field::Ctime,
        _ => {
            return err(format!("unknown field `{text}` (built-in fields: {BUILT_INS}; quote a property named so)"), at)
        }
    })
}

/// A value: a number, a date or date-time, a relative date, a boolean, or text.
fn literal(text: String, quoted: bool, at: usize, ctx: &Context) -> Result<Literal, ExprError> {
    let mut lit = Literal {
        number: text.trim().parse::<f64>().ok().filter(|n| n.is_finite()),
        day: dates::parse_date(text.trim()),
        instant: None,
        boolean: match text.trim().to_lowercase().as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        lower: text.to_lowercase(),
        text,
    };
    if lit.day.is_none() {
        lit.instant = dates::parse_datetime(&lit.text, ctx.offset_minutes);
    }
    if !quoted && lit.day.is_none() && lit.instant.is_none() {
        relative(&mut lit, at, ctx)?;
    }
    Ok(lit)
}

/// `today`, `yesterday`, `tomorrow`, `now`, with an optional `+N`/`-N` and a unit (`d`, `w`;
/// `h` too after `now`).
fn relative(lit: &mut Literal, at: usize, ctx: &Context) -> Result<(), ExprError> {
    let lower = lit.text.to_lowercase();
    let split = lower.find(['+', '-']).unwrap_or(lower.len());
    let (base, shift) = lower.split_at(split);
    let base_day = match base {
        "today" | "now" => 0,
        "yesterday" => -1,
        "tomorrow" => 1,
        _ => return Ok(()),
    };
    let Some(today) = ctx.today else {
        return err(format!("`{}` needs the host's date (today)", lit.text), at);
    };
    let shift_ms = if shift.is_empty() {
        0.0
    } else {
        let sign = if shift.starts_with('-') { -1.0 } else { 1.0 };
        let body = &shift[1..];
        let unit_at = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
        let (n, unit) = body.split_at(unit_at);
        let n: f64 = match n.parse::<u32>() {
            Ok(n) => n as f64,
            Err(_) => return err(format!("`{}`: expected a number of days after {base}", lit.text), at),
        };
        let unit_ms = match unit {
            "d" | "" => 86_400_000.0,
            "w" => 7.0 * 86_400_000.0,
            "h" if base == "now" => 3_600_000.0,
            _ => return err(format!("`{}`: the unit is d (days) or w (weeks), h (hours) after now", lit.text), at),
        };
        sign * n * unit_ms
    };
    if base == "now" {
        let now = ctx.now.unwrap_or(today as f64 * 86_400_000.0 - ctx.offset_minutes as f64 * 60_000.0);
        lit.instant = Some(now + shift_ms);
    } else {
        lit.day = Some(today + base_day + (shift_ms / 86_400_000.0) as i32);
    }
    Ok(())
}

/// A sort specification: `field [asc|desc]` or `-field`, comma-separated.
pub fn parse_sort(src: &str) -> Result<Vec<SortKey>, ExprError> {
    let mut keys = Vec::new();
    let mut offset = 0;
    for part in src.split(',') {
        let words: Vec<&str> = part.split_whitespace().collect();
        let blank = if words.is_empty() { 0 } else { part.chars().take_while(|c| c.is_whitespace()).count() };
        let at = offset + blank;
        offset += part.chars().count() + 1;
        let (name, descending) = match words.as_slice() {
            [] => return err("empty sort field", at),
            [name] => match name.strip_prefix('-') {
                Some(n) => (n, true),
                None => (*name, false),
            },
            [name, dir] if dir.eq_ignore_ascii_case("asc") => (*name, false),
            [name, dir] if dir.eq_ignore_ascii_case("desc") => (*name, true),
            _ => return err("a sort field is `name`, `name asc`, `name desc` or `-name`", at),
        };
        let name = name.trim_matches(|c| c == '"' || c == '\'');
        if name.is_empty() {
            return err("empty sort field", at);
        }
        keys.push(SortKey { field: field(name, false, at)?, descending });
    }
    Ok(keys)
}
