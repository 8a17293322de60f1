/*
 * pyeval.h — the constant host Python around kernels.
 *
 * Contract: evaluates expressions of a parsed Module's host code (decorator
 * arguments, module-level assignments in file order, calls of undecorated
 * defs that only build values) without running Python.  The subset is
 * literals, arithmetic, comparisons, boolean and conditional expressions,
 * subscripts, displays and comprehensions, a few builtins (range, zip,
 * enumerate, itertools.product, len, min, max, sum, all, any, int, float,
 * str, bool, list, tuple, dict, sorted, reversed) and triton.Config.  Anything
 * else evaluates to PY_UNKNOWN; evaluation never reports a diagnostic, and a
 * step budget bounds it so nothing hangs.  Values live in the Ctx arena.
 */
#ifndef TILEC_PYEVAL_H
#define TILEC_PYEVAL_H

#include "../parser/ast.h"

typedef enum PyKind {
    PY_UNKNOWN,  /* not evaluated: outside the subset, or a runtime value */
    PY_NONE,
    PY_BOOL,     /* i */
    PY_INT,      /* i */
    PY_FLOAT,    /* f */
    PY_STR,      /* s */
    PY_LIST,     /* items */
    PY_TUPLE,    /* items */
    PY_DICT,     /* items = keys, vals */
    PY_CONFIG,   /* triton.Config: kwargs (a PY_DICT), opts (num_warps, ... as a PY_DICT) */
    PY_LAMBDA,   /* node (N_LAMBDA), scope */
    PY_FUNC,     /* func (an undecorated def) */
    PY_BUILTIN,  /* s = its name */
} PyKind;

typedef struct PyValue PyValue;
typedef struct PyScope PyScope;
typedef Vec(PyValue *) PyValues;

struct PyValue {
    PyKind kind;
    int64_t i;
    double f;
    const char *s;
    PyValues items, vals;
    PyValue *kwargs, *opts;
    Node *node;
    PyScope *scope;
    FuncDef *func;
};

typedef struct PyEval PyEval;

PyEval *py_new(Ctx *ctx, const Module *m);
/* Evaluate an expression at module level (globals assigned above its line). */
PyValue *py_eval(PyEval *e, Node *n);
/* Call a function value (a lambda) with positional arguments. */
PyValue *py_call(PyEval *e, PyValue *fn, PyValue **args, int nargs);

PyValue *py_dict_new(PyEval *e);
void py_dict_set(PyEval *e, PyValue *dict, const char *key, PyValue *v);
PyValue *py_dict_get(const PyValue *dict, const char *key); /* NULL if absent */
PyValue *py_int(PyEval *e, int64_t i);
PyValue *py_float(PyEval *e, double f);
PyValue *py_bool(PyEval *e, bool b);
PyValue *py_str(PyEval *e, const char *s);
PyValue *py_none(PyEval *e);
PyValue *py_unknown(PyEval *e);

#endif
