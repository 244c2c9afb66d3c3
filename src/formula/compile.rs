//! Parsing a formula straight into a stack program (precedence climbing).

use super::error::CompileError;
use super::lex::{lex, Tok};
use super::{FUNCTIONS, MAX_DEPTH, MAX_LEN};

/// One instruction of a compiled formula.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    Const(f64),
    Var(usize),
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Call(Func, usize),
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Func {
    Min,
    Max,
    Abs,
    Round,
    Pow,
    Log,
    Log10,
    Log2,
    Exp,
    Sqrt,
    Floor,
    Ceil,
    Sum,
}

impl Func {
    fn from_name(name: &str) -> Option<Func> {
        Some(match name {
            "min" => Func::Min,
            "max" => Func::Max,
            "abs" => Func::Abs,
            "round" => Func::Round,
            "pow" => Func::Pow,
            "log" => Func::Log,
            "log10" => Func::Log10,
            "log2" => Func::Log2,
            "exp" => Func::Exp,
            "sqrt" => Func::Sqrt,
            "floor" => Func::Floor,
            "ceil" => Func::Ceil,
            "sum" => Func::Sum,
            _ => return None,
        })
    }
}

/// A compiled formula: reverse-Polish instructions over numbered slots.
#[derive(Debug, Clone)]
pub struct Program {
    pub(super) ops: Vec<Op>,
    pub(super) max_stack: usize,
    /// The slots this program reads.
    pub reads: Vec<usize>,
}

/// Compiles `src`, resolving each name to its index in `names`.
pub fn compile(src: &str, names: &[String]) -> Result<Program, CompileError> {
    if src.len() > MAX_LEN {
        return Err(CompileError::whole(format!("formula is {} bytes, longer than the limit of {MAX_LEN}", src.len())));
    }
    // Nesting is checked before parsing so that no input reaches the parser's recursion limit unannounced.
    let mut depth = 0usize;
    for (i, c) in src.chars().enumerate() {
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(CompileError::at(i + 1, format!("parentheses nested deeper than the limit of {MAX_DEPTH}")));
                }
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if src.trim().is_empty() {
        return Err(CompileError::whole("formula is empty"));
    }
    let toks = lex(src)?;
    let mut p = Parser { toks, pos: 0, names, ops: Vec::new(), depth: 0, stack: 0, max_stack: 0 };
    p.expr(0)?;
    let (t, col) = p.peek();
    if *t != Tok::End {
        return Err(CompileError::at(col, format!("unexpected {} after a complete expression", t.describe())));
    }
    let mut reads: Vec<usize> = p.ops.iter().filter_map(|op| if let Op::Var(i) = op { Some(*i) } else { None }).collect();
    reads.sort_unstable();
    reads.dedup();
    Ok(Program { ops: p.ops, max_stack: p.max_stack, reads })
}

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    names: &'a [String],
    ops: Vec<Op>,
    depth: usize,
    stack: usize,
    max_stack: usize,
}

/// Left-associative binary operators and their precedence; `**` is parsed in `unary`.
fn binary(t: &Tok) -> Option<(u8, Op)> {
    Some(match t {
        Tok::Plus => (1, Op::Add),
        Tok::Minus => (1, Op::Sub),
        Tok::Star => (2, Op::Mul),
        Tok::Slash => (2, Op::Div),
        Tok::Percent => (2, Op::Rem),
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek(&self) -> (&Tok, usize) {
        let (t, c) = &self.toks[self.pos];
        (t, *c)
    }

    fn next(&mut self) -> (Tok, usize) {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn emit(&mut self, op: Op) {
        match op {
            Op::Const(_) | Op::Var(_) => self.stack += 1,
            Op::Neg => {}
            Op::Call(_, n) => self.stack = self.stack + 1 - n,
            _ => self.stack -= 1,
        }
        self.max_stack = self.max_stack.max(self.stack);
        self.ops.push(op);
    }

    fn enter(&mut self, col: usize) -> Result<(), CompileError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CompileError::at(col, format!("expression nested deeper than the limit of {MAX_DEPTH}")));
        }
        Ok(())
    }

    /// Precedence climbing: parses operators binding tighter than `min_prec`.
    /// Climbing a precedence level is not nesting; only brackets, calls,
    /// unary operators and `**` count towards `MAX_DEPTH`.
    fn expr(&mut self, min_prec: u8) -> Result<(), CompileError> {
        self.unary()?;
        loop {
            let (t, _) = self.peek();
            let Some((prec, op)) = binary(t) else { break };
            if prec < min_prec {
                break;
            }
            self.next();
            self.expr(prec + 1)?;
            self.emit(op);
        }
        Ok(())
    }

    /// Unary minus binds looser than `**` (`-2 ** 2` is -4), as in Python.
    fn unary(&mut self) -> Result<(), CompileError> {
        let (t, col) = self.peek();
        match t {
            Tok::Minus | Tok::Plus => {
                let neg = *t == Tok::Minus;
                self.next();
                self.enter(col)?;
                self.unary()?;
                self.depth -= 1;
                if neg {
                    self.emit(Op::Neg);
                }
                Ok(())
            }
            _ => {
                self.atom()?;
                if *self.peek().0 == Tok::Pow {
                    self.next();
                    let col = self.peek().1;
                    self.enter(col)?;
                    self.unary()?;
                    self.depth -= 1;
                    self.emit(Op::Pow);
                }
                Ok(())
            }
        }
    }

    fn atom(&mut self) -> Result<(), CompileError> {
        let (t, col) = self.next();
        match t {
            Tok::Num(n) => {
                self.emit(Op::Const(n));
                Ok(())
            }
            Tok::LParen => {
                self.enter(col)?;
                self.expr(0)?;
                self.depth -= 1;
                self.expect_rparen(col)
            }
            Tok::Ident(name) => {
                if *self.peek().0 == Tok::LParen {
                    return self.call(&name, col);
                }
                match self.names.iter().position(|n| *n == name) {
                    Some(i) => {
                        self.emit(Op::Var(i));
                        Ok(())
                    }
                    None => {
                        let hint = if Func::from_name(&name).is_some() {
                            format!(" ('{name}' is a function: call it as {name}(...))")
                        } else {
                            String::new()
                        };
                        Err(CompileError::at(col, format!("unknown name '{name}'{hint}; available: {}", self.names.join(", "))))
                    }
                }
            }
            other => Err(CompileError::at(col, format!("expected a number, a name or '(', found {}", other.describe()))),
        }
    }

    fn expect_rparen(&mut self, open: usize) -> Result<(), CompileError> {
        let (t, col) = self.next();
        if t == Tok::RParen {
            Ok(())
        } else {
            Err(CompileError::at(col, format!("expected ')' to close the '(' at column {open}, found {}", t.describe())))
        }
    }

    fn call(&mut self, name: &str, col: usize) -> Result<(), CompileError> {
        let Some(func) = Func::from_name(name) else {
            let allowed: Vec<&str> = FUNCTIONS.iter().map(|f| f.0).collect();
            return Err(CompileError::at(col, format!("unknown function '{name}'; allowed: {}", allowed.join(", "))));
        };
        let open = self.next().1;
        self.enter(open)?;
        let mut argc = 0;
        if *self.peek().0 != Tok::RParen {
            loop {
                self.expr(0)?;
                argc += 1;
                if *self.peek().0 == Tok::Comma {
                    self.next();
                } else {
                    break;
                }
            }
        }
        self.depth -= 1;
        self.expect_rparen(open)?;
        let (_, lo, hi) = FUNCTIONS.iter().find(|f| f.0 == name).copied().expect("every Func is listed");
        if argc < lo || argc > hi {
            let want = match (lo, hi) {
                (l, h) if l == h => format!("{l} argument{}", if l == 1 { "" } else { "s" }),
                (l, usize::MAX) => format!("at least {l} argument{}", if l == 1 { "" } else { "s" }),
                (l, h) => format!("{l} to {h} arguments"),
            };
            return Err(CompileError::at(col, format!("{name} takes {want}, given {argc}")));
        }
        if argc == 0 {
            // sum() of nothing is 0.
            self.emit(Op::Const(0.0));
            return Ok(());
        }
        self.emit(Op::Call(func, argc));
        Ok(())
    }
}
