//! Tokens of a formula, each with its column (1-based, in characters).

use super::error::CompileError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Num(f64),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Pow,
    LParen,
    RParen,
    Comma,
    End,
}

impl Tok {
    pub fn describe(&self) -> String {
        match self {
            Tok::Num(n) => format!("number {n}"),
            Tok::Ident(s) => format!("name '{s}'"),
            Tok::Plus => "'+'".into(),
            Tok::Minus => "'-'".into(),
            Tok::Star => "'*'".into(),
            Tok::Slash => "'/'".into(),
            Tok::Percent => "'%'".into(),
            Tok::Pow => "'**'".into(),
            Tok::LParen => "'('".into(),
            Tok::RParen => "')'".into(),
            Tok::Comma => "','".into(),
            Tok::End => "end of formula".into(),
        }
    }
}

/// Digits with single underscores between them (Python's `digitpart`).
fn digitpart(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('_') && !s.ends_with('_') && !s.contains("__") && s.chars().all(|c| c.is_ascii_digit() || c == '_')
}

/// Refuses what Python's tokenizer refuses, so a formula that works here works on the reference:
/// `007` and `0_7` (leading zeros in an integer), `1__0`, `1_`, `1_.5`.
fn python_literal(raw: &str) -> Result<(), &'static str> {
    let (mantissa, exponent) = match raw.find(['e', 'E']) {
        Some(i) => (&raw[..i], Some(&raw[i + 1..])),
        None => (raw, None),
    };
    if let Some(e) = exponent {
        if !digitpart(e.trim_start_matches(['+', '-'])) {
            return Err("its exponent is not digits");
        }
    }
    let bad_point = |int: &str, frac: &str| {
        (int.is_empty() && frac.is_empty()) || (!int.is_empty() && !digitpart(int)) || (!frac.is_empty() && !digitpart(frac))
    };
    match mantissa.split_once('.') {
        Some((int, frac)) if bad_point(int, frac) => return Err("underscores go only between digits"),
        Some(_) => {}
        None if !digitpart(mantissa) => return Err("underscores go only between digits"),
        None if exponent.is_none() && mantissa.starts_with('0') && mantissa.chars().any(|c| c.is_ascii_digit() && c != '0') => {
            return Err("leading zeros are not allowed in an integer (as in Python)");
        }
        None => {}
    }
    Ok(())
}

pub fn lex(src: &str) -> Result<Vec<(Tok, usize)>, CompileError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_') {
                i += 1;
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                        i += 1;
                    }
                }
            }
            let raw: String = chars[start..i].iter().collect();
            python_literal(&raw).map_err(|why| CompileError::at(col, format!("malformed number '{raw}': {why}")))?;
            let text: String = raw.chars().filter(|c| *c != '_').collect();
            let n: f64 = text
                .parse()
                .map_err(|_| CompileError::at(col, format!("malformed number '{}'", chars[start..i].iter().collect::<String>())))?;
            out.push((Tok::Num(n), col));
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(chars[start..i].iter().collect()), col));
            continue;
        }
        let tok = match c {
            '+' => Tok::Plus,
            '-' => Tok::Minus,
            '*' if chars.get(i + 1) == Some(&'*') => {
                i += 1;
                Tok::Pow
            }
            '*' => Tok::Star,
            '/' => Tok::Slash,
            '%' => Tok::Percent,
            '(' => Tok::LParen,
            ')' => Tok::RParen,
            ',' => Tok::Comma,
            '^' => return Err(CompileError::at(col, "'^' is not an operator here; use ** for power")),
            '=' | '<' | '>' | '!' => {
                return Err(CompileError::at(
                    col,
                    format!("'{c}' is not allowed: formulas are arithmetic only (no assignment or comparison)"),
                ))
            }
            '.' => return Err(CompileError::at(col, "'.' is not allowed: formulas have no attribute access")),
            '[' | ']' | '{' | '}' => {
                return Err(CompileError::at(col, format!("'{c}' is not allowed: formulas have no indexing or collections")))
            }
            _ => return Err(CompileError::at(col, format!("unexpected character '{}'", c.escape_default()))),
        };
        out.push((tok, col));
        i += 1;
    }
    out.push((Tok::End, chars.len() + 1));
    Ok(out)
}
