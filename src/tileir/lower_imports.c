/*
 * lower_imports.c — module-level names: the jit functions, globals and imports of the
 * kernel's file and of the project modules it imports.
 *
 * A name at module level is a jit function of that module, else its bindings (assignments
 * and imports) decide, in file order.  An import leads to a Triton module, known by name,
 * or to a file of the project, found on the search path: the kernel file's package root,
 * each -I folder, then the nearest folder above the importing file that holds the import's
 * top package.  A file is read and parsed once, and only when a kernel uses a name from
 * it: an import nobody uses (torch, typing) is never looked at.
 */
#include "lower_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---- paths ---------------------------------------------------------------------- */

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const char *path_join(Lower *L, const char *dir, const char *name)
{
    return arena_printf(L->a, "%s/%s", dir, name);
}

/* The folder a file is in, or a folder's parent, spelled relative when the path is. */
static const char *parent_dir(Lower *L, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *last = slash ? slash + 1 : path;
    if (!strcmp(last, ".") || !strcmp(last, ".."))
        return path_join(L, path, "..");
    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    return arena_strndup(L->a, path, (size_t)(slash - path));
}

/* The folder Python would put on sys.path to import the kernel's file as part of its
 * package: above the last folder, going up from the file's, that holds an __init__.py. */
static const char *package_root(Lower *L, const char *file)
{
    const char *dir = parent_dir(L, file);
    for (int guard = 0; guard < 64 && is_file(path_join(L, dir, "__init__.py")); guard++)
        dir = parent_dir(L, dir);
    return dir;
}

/* ---- reading modules --------------------------------------------------------------- */

static char *read_file(Lower *L, const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    StrBuf sb = {0};
    int c;
    while ((c = fgetc(f)) != EOF && sb.len <= TILEC_MAX_SOURCE_BYTES)
        sb_putc(&sb, (char)c);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        sb_free(&sb);
        return NULL;
    }
    *len = sb.len;
    char *text = arena_strndup(L->a, sb.data ? sb.data : "", sb.len);
    sb_free(&sb);
    return text;
}

static Module *new_package(Lower *L, const char *dir, const char *name)
{
    Module *m = NEW(L->a, Module);
    m->name = name;
    m->package_dir = dir;
    return m;
}

/* The module in file `path` (a package's __init__.py when package_dir is set), read and
 * parsed once; its diagnostics name that file. */
static Module *load_file(Lower *L, const char *path, const char *name, const char *package_dir)
{
    for (int i = 0; i < L->files.len; i++)
        if (!strcmp(L->files.data[i].path, path))
            return L->files.data[i].m;
    size_t len = 0;
    char *text = read_file(L, path, &len);
    if (!text)
        lower_error(L, (Loc){0}, "cannot read the module file %s (imported as '%s')", path, name);
    Source *src = NEW(L->a, Source);
    *src = (Source){path, text, len};
    const Source *saved = L->ctx->src;
    L->ctx->src = src;
    Module *m = parse_module(L->ctx, lex_source(L->ctx));
    L->ctx->src = saved;
    m->name = name;
    m->package_dir = package_dir;
    LoadedFile lf = {path, m};
    vec_push(L->a, &L->files, lf);
    return m;
}

/* The module `dotted` under folder root: root/a/b.py, root/a/b/__init__.py, or a folder
 * root/a/b without one (a namespace package).  NULL: none of them. */
static Module *find_in(Lower *L, const char *root, const char *dotted, const char *name)
{
    char *rel = arena_strdup(L->a, dotted);
    for (char *c = rel; *c; c++)
        if (*c == '.')
            *c = '/';
    const char *base = *rel ? path_join(L, root, rel) : root;
    const char *py = arena_printf(L->a, "%s.py", base);
    if (*rel && is_file(py))
        return load_file(L, py, name, NULL);
    const char *init = path_join(L, base, "__init__.py");
    if (is_file(init))
        return load_file(L, init, name, base);
    if (!is_dir(base))
        return NULL;
    const char *key = path_join(L, base, "");
    for (int i = 0; i < L->files.len; i++)
        if (!strcmp(L->files.data[i].path, key))
            return L->files.data[i].m;
    LoadedFile lf = {key, new_package(L, base, name)};
    vec_push(L->a, &L->files, lf);
    return lf.m;
}

static CVal *cv_project_module(Lower *L, Module *m)
{
    CVal *c = cv_module(L, m->name);
    c->mod = m;
    return c;
}

typedef Vec(const char *) DirVec;

static void add_root(Lower *L, DirVec *roots, const char *dir)
{
    for (int i = 0; i < roots->len; i++)
        if (!strcmp(roots->data[i], dir))
            return;
    vec_push(L->a, roots, dir);
}

/* Where `import top.x` looks, in order: the kernel file's package root, the -I folders,
 * then the nearest folder above the importing file that holds a `top` (a package without
 * __init__.py, or a file read outside its tree, is still found). */
static void search_path(Lower *L, const char *from_file, const char *top, DirVec *roots)
{
    add_root(L, roots, package_root(L, L->kernel_module->src->path));
    for (int i = 0; i < L->opt->include_dirs.len; i++)
        add_root(L, roots, L->opt->include_dirs.data[i]);
    const char *dir = parent_dir(L, from_file);
    for (int guard = 0; guard < 64; guard++) {
        const char *p = path_join(L, dir, top);
        if (is_dir(p) || is_file(arena_printf(L->a, "%s.py", p))) {
            add_root(L, roots, dir);
            break;
        }
        const char *up = parent_dir(L, dir);
        if (!strcmp(up, dir) || !is_dir(up))
            break;
        dir = up;
    }
}

/* The module `dotted` as an absolute import from module m: one of Triton's, Python's math,
 * or a project file.  NULL, with *why, when there is none. */
static CVal *find_module(Lower *L, Module *m, const char *dotted, const char **why)
{
    const char *dot = strchr(dotted, '.');
    const char *top = dot ? arena_strndup(L->a, dotted, (size_t)(dot - dotted)) : dotted;
    if (!strcmp(top, "triton")) {
        const char *canon = canonical_module(dotted);
        if (canon)
            return cv_module(L, canon);
        *why = arena_printf(L->a, "tilec does not know Triton's module '%s'", dotted);
        return NULL;
    }
    if (!strcmp(dotted, "math") || !strcmp(dotted, "torch"))
        return cv_module(L, dotted);
    DirVec roots = {0};
    search_path(L, m->src ? m->src->path : L->kernel_module->src->path, top, &roots);
    StrBuf list = {0};
    for (int i = 0; i < roots.len; i++) {
        Module *found = find_in(L, roots.data[i], dotted, dotted);
        if (found) {
            sb_free(&list);
            return cv_project_module(L, found);
        }
        sb_printf(&list, "%s%s", i ? ", " : "", roots.data[i]);
    }
    *why = arena_printf(L->a, "cannot find module '%s' (searched %s; add its folder with -I)", dotted,
                        list.data ? list.data : "nothing");
    sb_free(&list);
    return NULL;
}

/* attr of a module, or NULL with *why */
static CVal *module_attr(Lower *L, CVal *mod, const char *attr, Loc loc, const char **why)
{
    if (!mod->mod)
        return lower_attribute(L, mod, attr, loc);
    const char *unresolved = NULL;
    CVal *v = lower_module_name(L, mod->mod, attr, loc, &unresolved);
    if (v)
        return v;
    if (unresolved) {
        *why = unresolved;
        return NULL;
    }
    if (mod->mod->package_dir) {
        const char *name = arena_printf(L->a, "%s.%s", mod->s, attr);
        Module *sub = find_in(L, mod->mod->package_dir, attr, name);
        if (sub)
            return cv_project_module(L, sub);
    }
    const char *where = mod->mod->src ? mod->mod->src->path : mod->mod->package_dir;
    *why = arena_printf(L->a, "module '%s' (%s) has no jit function, global or import named '%s'", mod->s,
                        where, attr);
    return NULL;
}

CVal *lower_module_attr(Lower *L, CVal *mod, const char *attr, Loc loc)
{
    const char *why = NULL;
    CVal *v = module_attr(L, mod, attr, loc, &why);
    if (!v)
        lower_error(L, loc, "%s", why);
    return v;
}

/* The folder a relative import with `level` dots starts from, in module m. */
static const char *relative_base(Lower *L, Module *m, int level)
{
    const char *dir = m->package_dir ? m->package_dir : parent_dir(L, m->src->path);
    for (int i = 1; i < level; i++)
        dir = parent_dir(L, dir);
    return dir;
}

/* What import `im` of module m binds, or NULL with *why. */
static CVal *resolve_import(Lower *L, Module *m, const Import *im, const char **why)
{
    CVal *mod;
    if (im->level == 0) {
        const char *dot = strchr(im->module, '.');
        const char *path = im->whole && dot ? arena_strndup(L->a, im->module, (size_t)(dot - im->module))
                                            : im->module;
        mod = find_module(L, m, path, why);
    } else {
        const char *base = relative_base(L, m, im->level);
        const char *name = arena_printf(L->a, "%.*s%s", im->level, "..........", im->module);
        Module *found = find_in(L, base, im->module, name);
        if (!found) {
            *why = arena_printf(L->a, "cannot find module '%s' (relative to %s)", name, base);
            return NULL;
        }
        mod = cv_project_module(L, found);
    }
    if (!mod || !im->name)
        return mod;
    return module_attr(L, mod, im->name, im->loc, why);
}

/* ---- globals ---------------------------------------------------------------------------- */

static bool names_constexpr(const Node *n)
{
    return n && ((n->kind == N_ATTR && !strcmp(n->name, "constexpr")) ||
                 (n->kind == N_NAME && !strcmp(n->name, "constexpr")));
}

/* tl.constexpr(...) or triton.jit(...) */
static bool built_as_constexpr(const Node *n)
{
    if (!n || n->kind != N_CALL || !n->lhs)
        return false;
    const Node *f = n->lhs;
    return (f->kind == N_ATTR || f->kind == N_NAME) && (!strcmp(f->name, "constexpr") || !strcmp(f->name, "jit"));
}

static bool is_dotted_name(const Node *n)
{
    while (n && n->kind == N_ATTR)
        n = n->lhs;
    return n && n->kind == N_NAME;
}

/* What an alias may name (Triton 3.6 lets a kernel read such a global). */
static bool is_alias_target(const CVal *v)
{
    switch (v->kind) {
    case CV_MODULE: case CV_FUNC: case CV_BUILTIN: case CV_DTYPE: case CV_CONSTEXPR_ANN: return true;
    default: return false;
    }
}

static NORETURN void not_constexpr(Lower *L, Module *m, const Global *g, Loc loc)
{
    const char *where = m == L->kernel_module || !m->src
                            ? arena_printf(L->a, "line %d", g->loc.line)
                            : arena_printf(L->a, "%s:%d", m->src->path, g->loc.line);
    lower_error(L, loc, "cannot use the global '%s' (%s) in a kernel: Triton reads only constexpr globals "
                "(%s = tl.constexpr(...) or %s: tl.constexpr = ...), jit functions, modules and Triton's "
                "functions and dtypes", g->name, where, g->name, g->name);
}

/* ---- functions looked up by name ------------------------------------------------------- */

/* The undecorated def `name` of module m: defined there, or imported from a project module. */
static FuncDef *host_def(Lower *L, Module *m, const char *name, int depth)
{
    for (int i = 0; i < m->host_funcs.len; i++)
        if (!strcmp(m->host_funcs.data[i]->name, name))
            return m->host_funcs.data[i];
    for (int i = 0; i < m->imports.len && depth < 16; i++) {
        const Import *im = &m->imports.data[i];
        if (!im->name || strcmp(im->as, name))
            continue;
        Import whole = *im;
        whole.name = NULL;
        const char *why = NULL;
        CVal *mod = resolve_import(L, m, &whole, &why);
        FuncDef *f = mod && mod->mod ? host_def(L, mod->mod, im->name, depth + 1) : NULL;
        if (f)
            return f;
    }
    return NULL;
}

static bool is_getattr_of(const Node *n, const char *param)
{
    return n && n->kind == N_CALL && n->lhs->kind == N_NAME && !strcmp(n->lhs->name, "getattr") &&
           n->items.len == 2 && !n->kwargs.len && n->items.data[1]->kind == N_NAME &&
           !strcmp(n->items.data[1]->name, param);
}

/* Whether a statement of body returns getattr(MODULE, param). */
static bool returns_getattr(const NodeList *body, const char *param)
{
    for (int i = 0; i < body->len; i++) {
        const Node *s = body->data[i];
        if (s->kind == N_RETURN && is_getattr_of(s->lhs, param))
            return true;
        if ((s->kind == N_IF || s->kind == N_FOR || s->kind == N_WHILE) &&
            (returns_getattr(&s->body, param) || returns_getattr(&s->orelse, param)))
            return true;
    }
    return false;
}

static const char *module_string_in(const Node *n);

static const char *module_string_in_list(const NodeList *list)
{
    for (int i = 0; i < list->len; i++) {
        const char *s = module_string_in(list->data[i]);
        if (s)
            return s;
    }
    return NULL;
}

/* The first string constant under n, in source order, that spells one of Triton's modules
 * (canonical name), or NULL. */
static const char *module_string_in(const Node *n)
{
    if (!n)
        return NULL;
    if (n->kind == N_STR && !n->fstring && !strncmp(n->str, "triton.", 7))
        return canonical_module(n->str);
    const Node *parts[] = {n->lhs, n->cond, n->iter, n->rhs};
    for (size_t i = 0; i < ARRAY_LEN(parts); i++) {
        const char *s = module_string_in(parts[i]);
        if (s)
            return s;
    }
    const char *s = module_string_in_list(&n->items);
    if (!s)
        s = module_string_in_list(&n->values);
    if (!s)
        s = module_string_in_list(&n->body);
    if (!s)
        s = module_string_in_list(&n->orelse);
    return s;
}

/* NAME = find("fn"), where find is a def (host code) that takes the name and returns
 * getattr(module, name) for a module it imports by a string naming one of Triton's modules
 * (a version-independent spelling of `from triton.language.extra.libdevice import fn`): the
 * function `fn` of the first such module named in find's body.  NULL: not that form. */
static CVal *looked_up_by_name(Lower *L, Module *m, const Node *value, Loc loc)
{
    if (!value || value->kind != N_CALL || value->lhs->kind != N_NAME || value->items.len != 1 ||
        value->kwargs.len || value->items.data[0]->kind != N_STR || value->items.data[0]->fstring)
        return NULL;
    FuncDef *find = host_def(L, m, value->lhs->name, 0);
    if (!find || find->params.len != 1 || !returns_getattr(&find->body, find->params.data[0].name))
        return NULL;
    const char *module = module_string_in_list(&find->body);
    if (!module)
        return NULL;
    CVal *v = lower_attribute(L, cv_module(L, module), value->items.data[0]->str, loc);
    return is_alias_target(v) ? v : NULL;
}

/* The value of global g of module m, evaluated in m with no IR allowed. */
static CVal *eval_global(Lower *L, Module *m, const Global *g, Loc loc)
{
    bool declared = built_as_constexpr(g->value) || (g->value && names_constexpr(g->annotation));
    bool alias = !declared && is_dotted_name(g->value);
    if (!declared && !alias) {
        CVal *found = looked_up_by_name(L, m, g->value, loc);
        if (found)
            return found;
        not_constexpr(L, m, g, loc);
    }
    Env *saved_env = L->env;
    Module *saved_m = L->m;
    Block *saved_cur = L->cur;
    L->env = NEW(L->a, Env);
    L->m = m;
    L->cur = tir_block_new(L->a, NULL);
    CVal *v = lower_expr(L, g->value);
    L->cur = saved_cur;
    L->m = saved_m;
    L->env = saved_env;
    if (alias && !is_alias_target(v))
        not_constexpr(L, m, g, loc);
    if (v->kind == CV_VALUE)
        lower_error(L, loc, "global '%s' is not a translation-time constant", g->name);
    return v;
}

/* ---- names ------------------------------------------------------------------------------- */

/* One binding of a name: an assignment or an import. */
typedef struct Candidate {
    const Global *g;
    const Import *im;
    int seq;
    bool conditional;
} Candidate;

typedef Vec(Candidate) CandidateVec;

/* The bindings of `name` that may hold when a kernel runs, in file order: the last
 * unconditional one, then the conditional ones after it (all of them when every binding is
 * under an if or try).  The first that resolves is taken: the branches of a version check
 * bind the same function under different module paths. */
static CandidateVec candidates(Lower *L, Module *m, const char *name)
{
    CandidateVec all = {0};
    for (int i = 0; i < m->globals.len; i++)
        if (!strcmp(m->globals.data[i].name, name)) {
            const Global *g = &m->globals.data[i];
            Candidate c = {g, NULL, g->seq, g->conditional};
            vec_push(L->a, &all, c);
        }
    for (int i = 0; i < m->imports.len; i++)
        if (!strcmp(m->imports.data[i].as, name)) {
            const Import *im = &m->imports.data[i];
            Candidate c = {NULL, im, im->seq, im->conditional};
            int at = all.len;
            vec_push(L->a, &all, c);
            while (at > 0 && all.data[at - 1].seq > c.seq) { /* keep file order */
                all.data[at] = all.data[at - 1];
                at--;
            }
            all.data[at] = c;
        }
    int from = 0;
    for (int i = 0; i < all.len; i++)
        if (!all.data[i].conditional)
            from = i;
    CandidateVec out = {0};
    for (int i = from; i < all.len; i++)
        vec_push(L->a, &out, all.data[i]);
    return out;
}

CVal *lower_module_name(Lower *L, Module *m, const char *name, Loc loc, const char **why)
{
    for (int i = 0; i < m->funcs.len; i++)
        if (!strcmp(m->funcs.data[i]->name, name)) {
            CVal *c = cv_builtin(L, name);
            c->kind = CV_FUNC;
            c->func = m->funcs.data[i];
            return c;
        }
    int slot = -1;
    for (int i = 0; i < L->names.len && slot < 0; i++)
        if (L->names.data[i].m == m && !strcmp(L->names.data[i].name, name))
            slot = i;
    if (slot >= 0 && L->names.data[slot].val)
        return L->names.data[slot].val;
    if (slot >= 0 && L->names.data[slot].why) {
        *why = L->names.data[slot].why;
        return NULL;
    }
    if (slot >= 0)
        lower_error(L, loc, "import cycle: '%s' of %s refers back to itself", name,
                    m == L->kernel_module ? "the kernel's file" : arena_printf(L->a, "module '%s'", m->name));
    CandidateVec cs = candidates(L, m, name);
    if (!cs.len)
        return NULL;
    ModuleName entry = {m, name, NULL, NULL};
    slot = L->names.len;
    vec_push(L->a, &L->names, entry);
    CVal *v = NULL;
    const char *first_why = NULL;
    for (int i = 0; i < cs.len && !v; i++) {
        const Candidate *c = &cs.data[i];
        const char *cwhy = NULL;
        if (c->g && (c->g->value || !c->conditional))
            v = eval_global(L, m, c->g, loc);
        else if (c->im)
            v = resolve_import(L, m, c->im, &cwhy);
        if (!first_why)
            first_why = cwhy;
    }
    if (!v) {
        /* unresolved: the caller may know the name otherwise.  Kept as such, so that each later
         * use (an unrolled loop's) does not search the file system again */
        *why = arena_printf(L->a, "'%s': %s", name, first_why ? first_why : "no binding tilec can read");
        L->names.data[slot].why = *why;
        return NULL;
    }
    L->names.data[slot].val = v;
    return v;
}
