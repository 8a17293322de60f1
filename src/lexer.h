/*
 * lexer.h — Python tokens for the parser.
 *
 * Contract: lex_source() turns a whole .py file into an array of tokens that
 * ends with TOK_EOF.  It tokenizes *all* Python that appears in real kernel
 * files (so non-jit code can be skipped by the parser), produces NEWLINE,
 * INDENT and DEDENT exactly as CPython's tokenizer does (no NEWLINE for blank
 * or comment-only lines, none inside brackets or after a backslash
 * continuation; DEDENTs for every closed level before the next statement and
 * at EOF), and reports malformed input (unterminated strings, bad numbers,
 * inconsistent dedent, stray characters, unbalanced brackets) through
 * diag_error.  It never looks at what the tokens mean.
 *
 * The file is read as Python reads it: as UTF-8 (anything else is an error), a leading BOM
 * dropped, and CRLF and a lone CR translated to LF (universal newlines), so that a CR ends a
 * comment or a line exactly where Python's would.  When that changes the text, ctx->src is
 * replaced by the translated copy (in the arena), which later passes and diagnostics use;
 * its line and column numbers are the file's.  Names follow Python's identifier rule (Unicode
 * XID_Start, then XID_Continue); one that NFKC normalization would change is refused.
 */
#ifndef TILEC_LEXER_H
#define TILEC_LEXER_H

#include "common.h"

/* X(kind, spelling) — spelling is what messages print. */
#define TOKEN_LIST(X)                                                          \
    X(TOK_EOF, "end of file")                                                  \
    X(TOK_NEWLINE, "newline")                                                  \
    X(TOK_INDENT, "indent")                                                    \
    X(TOK_DEDENT, "dedent")                                                    \
    X(TOK_NAME, "name")          /* text = the identifier */                   \
    X(TOK_INT, "integer")        /* ival; big = true if it overflowed 64 bits */\
    X(TOK_FLOAT, "float")        /* fval */                                    \
    X(TOK_IMAG, "imaginary")     /* fval; e.g. 1j */                           \
    X(TOK_STRING, "string")      /* text = decoded contents; fstring flag */   \
    /* keywords */                                                             \
    X(TOK_DEF, "'def'") X(TOK_RETURN, "'return'") X(TOK_IF, "'if'")            \
    X(TOK_ELIF, "'elif'") X(TOK_ELSE, "'else'") X(TOK_FOR, "'for'")            \
    X(TOK_WHILE, "'while'") X(TOK_IN, "'in'") X(TOK_NOT, "'not'")              \
    X(TOK_AND, "'and'") X(TOK_OR, "'or'") X(TOK_IS, "'is'")                    \
    X(TOK_PASS, "'pass'") X(TOK_BREAK, "'break'")                              \
    X(TOK_CONTINUE, "'continue'") X(TOK_TRUE, "'True'")                        \
    X(TOK_FALSE, "'False'") X(TOK_NONE, "'None'") X(TOK_LAMBDA, "'lambda'")    \
    X(TOK_CLASS, "'class'") X(TOK_IMPORT, "'import'") X(TOK_FROM, "'from'")    \
    X(TOK_AS, "'as'") X(TOK_ASSERT, "'assert'") X(TOK_WITH, "'with'")          \
    X(TOK_TRY, "'try'") X(TOK_EXCEPT, "'except'") X(TOK_FINALLY, "'finally'")  \
    X(TOK_RAISE, "'raise'") X(TOK_GLOBAL, "'global'")                          \
    X(TOK_NONLOCAL, "'nonlocal'") X(TOK_DEL, "'del'") X(TOK_YIELD, "'yield'")  \
    X(TOK_ASYNC, "'async'") X(TOK_AWAIT, "'await'")                            \
    /* brackets */                                                             \
    X(TOK_LPAREN, "'('") X(TOK_RPAREN, "')'") X(TOK_LBRACKET, "'['")           \
    X(TOK_RBRACKET, "']'") X(TOK_LBRACE, "'{'") X(TOK_RBRACE, "'}'")           \
    /* punctuation */                                                          \
    X(TOK_COLON, "':'") X(TOK_COMMA, "','") X(TOK_DOT, "'.'")                  \
    X(TOK_SEMI, "';'") X(TOK_ARROW, "'->'") X(TOK_ELLIPSIS, "'...'")           \
    X(TOK_AT, "'@'") X(TOK_WALRUS, "':='")                                     \
    /* operators */                                                            \
    X(TOK_PLUS, "'+'") X(TOK_MINUS, "'-'") X(TOK_STAR, "'*'")                  \
    X(TOK_SLASH, "'/'") X(TOK_DSLASH, "'//'") X(TOK_PERCENT, "'%'")            \
    X(TOK_DSTAR, "'**'") X(TOK_LSHIFT, "'<<'") X(TOK_RSHIFT, "'>>'")           \
    X(TOK_AMP, "'&'") X(TOK_PIPE, "'|'") X(TOK_CARET, "'^'")                   \
    X(TOK_TILDE, "'~'") X(TOK_LT, "'<'") X(TOK_GT, "'>'") X(TOK_LE, "'<='")    \
    X(TOK_GE, "'>='") X(TOK_EQ, "'=='") X(TOK_NE, "'!='")                      \
    X(TOK_ASSIGN, "'='") X(TOK_PLUSEQ, "'+='") X(TOK_MINUSEQ, "'-='")          \
    X(TOK_STAREQ, "'*='") X(TOK_SLASHEQ, "'/='") X(TOK_DSLASHEQ, "'//='")      \
    X(TOK_PERCENTEQ, "'%='") X(TOK_DSTAREQ, "'**='") X(TOK_LSHIFTEQ, "'<<='")  \
    X(TOK_RSHIFTEQ, "'>>='") X(TOK_AMPEQ, "'&='") X(TOK_PIPEEQ, "'|='")        \
    X(TOK_CARETEQ, "'^='") X(TOK_ATEQ, "'@='")

typedef enum TokenKind {
#define X(k, s) k,
    TOKEN_LIST(X)
#undef X
    TOK__COUNT
} TokenKind;

typedef struct Token {
    TokenKind kind;
    Loc loc;
    int offset;          /* byte offset of the first character in the source */
    int length;          /* bytes of source text the token spans */
    const char *text;    /* NAME: identifier; STRING: decoded contents (arena) */
    int text_len;        /* STRING: length of decoded contents (may hold NUL) */
    int64_t ival;        /* INT */
    double fval;         /* FLOAT, IMAG */
    bool big;            /* INT: literal does not fit in int64 (value in fval) */
    bool fstring;        /* STRING: had an f prefix (contents not evaluated) */
    bool bytes;          /* STRING: had a b prefix */
    bool at_line_start;  /* first token of a logical line */
} Token;

typedef struct TokenArray {
    Token *data;
    int len;
} TokenArray;

/* Tokenize ctx->src.  Errors go through diag_error (longjmp). */
TokenArray lex_source(Ctx *ctx);

const char *token_kind_name(TokenKind k);

#endif
