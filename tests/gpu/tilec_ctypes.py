"""libtilec (include/tilec.h) from Python through ctypes: the subset that the GPU tests use to
run kernels through the library path (translate -> NVRTC compile -> load -> launch).

    lib = Library("build/release/libtilec.so")
    ctx = lib.context(cache_dir="/tmp/cache")          # one per thread
    tr = ctx.translate(source, kernel="add_kernel", signature="*fp32:16, ...", grid="...")
    if tr.status == "TILEC_OK": ...                    # tr.code, tr.params, tr.diagnostics
    ctx.compile(tr.code, arch=90)                      # raises LibError on failure
    k = ctx.kernel_create(source, dict(kernel=..., ...), arch=90)
    k.launch(stream, None, [arg_pointer(p), arg_int(n)])   # "" on success, else the message
    k.destroy()

The structures below mirror include/tilec.h field for field; self_test() checks the mirror
against a real translation and an argument check, without a GPU (nothing here imports torch
or needs CUDA until a kernel is loaded into a CUDA context).
"""

import ctypes
from ctypes import (POINTER, Structure, Union, byref, c_char_p, c_double, c_int, c_long,
                    c_longlong, c_size_t, c_uint, c_ulonglong, c_void_p)

STATUS_OK = 0
STATUS_INPUT = 2                 # TILEC_ERROR_INPUT: the kernel or its specialisation
TYPE_POINTER, TYPE_INT, TYPE_UINT, TYPE_FLOAT, TYPE_BOOL = range(5)
BINARY_CUBIN = 0
HEADER_VERSION = "0.2.0"         # TILEC_VERSION_STRING of the header mirrored here


class LibError(Exception):
    """A library call failed; the message is tilec_context_error's (or the diagnostics)."""

    def __init__(self, status_name, message):
        super().__init__(f"{status_name}: {message}")
        self.status_name = status_name


# ---- the structures of include/tilec.h ---------------------------------------------------

class ContextOptions(Structure):
    _fields_ = [("nvrtc_library", c_char_p), ("cuda_library", c_char_p), ("cuda_include", c_char_p),
                ("cache_dir", c_char_p), ("device", c_int)]


class Define(Structure):
    _fields_ = [("name", c_char_p), ("value", c_char_p)]


class TranslateOptions(Structure):
    _fields_ = [("filename", c_char_p), ("source_size", c_size_t), ("kernel", c_char_p),
                ("signature", c_char_p), ("defines", POINTER(Define)), ("num_defines", c_int),
                ("num_warps", c_int), ("num_stages", c_int), ("min_blocks_per_sm", c_int), ("config", c_int),
                ("arch", c_int),
                ("grid", c_char_p), ("debug", c_int), ("output", c_int), ("dump", c_char_p),
                ("command", c_char_p), ("include_dirs", POINTER(c_char_p)), ("num_include_dirs", c_int),
                ("value", c_char_p), ("report", c_void_p), ("specialize", c_int),
                ("variants", POINTER(c_char_p)), ("num_variants", c_int)]


class Param(Structure):
    _fields_ = [("name", c_char_p), ("type", c_char_p), ("kind", c_int), ("bits", c_int),
                ("divisibility", c_longlong), ("is_constexpr", c_int), ("value", c_char_p),
                ("specialize", c_int)]


class KernelInfo(Structure):
    _fields_ = [("name", c_char_p), ("params", POINTER(Param)), ("num_params", c_int),
                ("num_args", c_int), ("num_warps", c_int), ("threads_per_block", c_int),
                ("shared_bytes", c_int), ("dynamic_shared", c_int), ("grid", c_char_p),
                ("arch", c_int), ("min_blocks_per_sm", c_int), ("min_blocks_arch", c_int)]


class Diagnostic(Structure):
    _fields_ = [("severity", c_int), ("file", c_char_p), ("line", c_int), ("column", c_int),
                ("message", c_char_p)]


class Translation(Structure):
    _fields_ = [("status", c_int), ("code", c_void_p), ("code_size", c_size_t),
                ("header", c_char_p), ("info", KernelInfo), ("diagnostics", POINTER(Diagnostic)),
                ("num_diagnostics", c_int), ("diagnostic_text", c_char_p), ("error", c_char_p)]


class CompileOptions(Structure):
    _fields_ = [("arch", c_int), ("kind", c_int), ("extra_options", POINTER(c_char_p)),
                ("num_extra_options", c_int), ("no_cache", c_int)]


class Binary(Structure):
    _fields_ = [("kind", c_int), ("arch", c_int), ("data", c_void_p), ("size", c_size_t),
                ("log", c_char_p), ("from_cache", c_int), ("registers", c_int),
                ("spill_store_bytes", c_int), ("spill_load_bytes", c_int), ("stack_bytes", c_int),
                ("static_shared_bytes", c_int)]


class ArgValue(Union):
    _fields_ = [("ptr", c_ulonglong), ("i", c_longlong), ("u", c_ulonglong), ("f", c_double)]


class Arg(Structure):
    _fields_ = [("kind", c_int), ("v", ArgValue)]


def arg_pointer(address):
    a = Arg(TYPE_POINTER)
    a.v.ptr = address or 0
    return a


def arg_int(value):
    value = int(value)
    if value >= 1 << 63:
        a = Arg(TYPE_UINT)
        a.v.u = value
    else:
        a = Arg(TYPE_INT)
        a.v.i = value
    return a


def arg_float(value):
    a = Arg(TYPE_FLOAT)
    a.v.f = float(value)
    return a


def arg_bool(value):
    a = Arg(TYPE_BOOL)
    a.v.i = 1 if value else 0
    return a


def arg_for(dtype, value):
    """A launch argument for a parameter of signature type dtype ("*fp32", "i32", "fp16", "i1")."""
    if dtype.startswith("*"):
        return arg_pointer(value)
    if dtype == "i1":
        return arg_bool(value)
    if dtype.startswith(("fp", "bf")):
        return arg_float(value)
    return arg_int(value)


def _b(text):
    return None if text is None else str(text).encode()


def _s(raw):
    return None if raw is None else raw.decode(errors="replace")


# ---- the library -----------------------------------------------------------------------

class Library:
    """The loaded libtilec.so with its functions' types declared."""

    def __init__(self, path):
        self.path = path
        lib = self.lib = ctypes.CDLL(path)
        ctx_p, tr_p, bin_p, k_p = c_void_p, POINTER(Translation), POINTER(Binary), c_void_p
        sigs = {
            "tilec_version": (c_char_p, []),
            "tilec_status_name": (c_char_p, [c_int]),
            "tilec_context_create": (c_int, [POINTER(ContextOptions), POINTER(ctx_p)]),
            "tilec_context_destroy": (None, [ctx_p]),
            "tilec_context_error": (c_char_p, [ctx_p]),
            "tilec_translate_source": (c_int, [c_char_p, POINTER(TranslateOptions), POINTER(tr_p)]),
            "tilec_translation_free": (None, [tr_p]),
            "tilec_compile": (c_int, [ctx_p, c_char_p, POINTER(CompileOptions), POINTER(bin_p)]),
            "tilec_binary_free": (None, [bin_p]),
            "tilec_nvrtc_version": (c_int, [ctx_p, POINTER(c_int), POINTER(c_int)]),
            "tilec_cache_stats": (None, [ctx_p, POINTER(c_long), POINTER(c_long)]),
            "tilec_kernel_create": (c_int, [ctx_p, c_char_p, POINTER(TranslateOptions),
                                            POINTER(CompileOptions), POINTER(k_p)]),
            "tilec_kernel_load": (c_int, [ctx_p, tr_p, bin_p, POINTER(k_p)]),
            "tilec_kernel_destroy": (None, [k_p]),
            "tilec_kernel_get_info": (POINTER(KernelInfo), [k_p]),
            "tilec_launch": (c_int, [k_p, c_void_p, POINTER(c_uint), POINTER(Arg), c_int]),
            "tilec_kernel_num_variants": (c_int, [k_p]),
            "tilec_kernel_variant_signature": (c_char_p, [k_p, c_int]),
        }
        for name, (restype, argtypes) in sigs.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        self.version = _s(lib.tilec_version())

    def status_name(self, status):
        return _s(self.lib.tilec_status_name(status))

    def context(self, cache_dir=None, cuda_include=None, nvrtc_library=None):
        opt = ContextOptions(nvrtc_library=_b(nvrtc_library), cuda_include=_b(cuda_include),
                             cache_dir=_b(cache_dir))
        handle = c_void_p()
        status = self.lib.tilec_context_create(byref(opt), byref(handle))
        if status != STATUS_OK:
            raise LibError(self.status_name(status), "tilec_context_create failed")
        return Context(self, handle)


def translate_options(filename, source_size, kernel=None, signature=None, defines=None,
                      num_warps=0, num_stages=0, config=0, arch=0, grid=None, debug=False, include_dirs=None,
                      specialize=False, variants=None):
    """A TranslateOptions (its strings kept alive by the structure itself)."""
    o = TranslateOptions(filename=_b(filename), source_size=source_size, kernel=_b(kernel),
                         signature=_b(signature), num_warps=num_warps or 0, num_stages=num_stages or 0,
                         config=config or 0, arch=arch or 0, grid=_b(grid), debug=int(bool(debug)),
                         specialize=int(bool(specialize)))
    items = list((defines or {}).items())
    if items:
        array = (Define * len(items))(*[Define(_b(k), _b(v)) for k, v in items])
        o.defines = ctypes.cast(array, POINTER(Define))
        o.num_defines = len(items)
        o._defines_keepalive = array
    if variants:
        vs = (c_char_p * len(variants))(*[_b(v) for v in variants])
        o.variants = ctypes.cast(vs, POINTER(c_char_p))
        o.num_variants = len(variants)
        o._variants_keepalive = vs
    if include_dirs:
        dirs = (c_char_p * len(include_dirs))(*[_b(d) for d in include_dirs])
        o.include_dirs = ctypes.cast(dirs, POINTER(c_char_p))
        o.num_include_dirs = len(include_dirs)
        o._include_dirs_keepalive = dirs
    return o


class TranslationResult:
    """What tilec_translate_source gave, copied into Python objects."""

    def __init__(self, lib, t):
        self.status = lib.status_name(t.status)
        self.code = ctypes.string_at(t.code, t.code_size).decode() if t.code else None
        self.diagnostic_text = _s(t.diagnostic_text) or ""
        self.error = _s(t.error)
        self.diagnostics = [(_s(d.file), d.line, d.column, _s(d.message))
                            for d in t.diagnostics[:t.num_diagnostics]] if t.num_diagnostics else []
        self.params, self.num_args, self.grid, self.threads = [], 0, None, 0
        if t.status == STATUS_OK:
            info = t.info
            self.params = [dict(name=_s(p.name), type=_s(p.type), kind=p.kind, bits=p.bits,
                                is_constexpr=bool(p.is_constexpr), value=_s(p.value),
                                specialize=p.specialize)
                           for p in info.params[:info.num_params]]
            self.num_args, self.grid = info.num_args, _s(info.grid)
            self.threads, self.shared_bytes = info.threads_per_block, info.shared_bytes

    def runtime_params(self):
        return [p for p in self.params if not p["is_constexpr"]]

    def first_message(self):
        """The first line of the diagnostics (as the CLI prints them), or the summary."""
        for line in self.diagnostic_text.splitlines():
            if line.strip():
                return line.strip()
        return self.error or self.status


class Context:
    """A tilec_context (not thread-safe: one per thread)."""

    def __init__(self, lib, handle):
        self.lib, self.handle = lib, handle

    def close(self):
        if self.handle:
            self.lib.lib.tilec_context_destroy(self.handle)
            self.handle = None

    def error(self):
        return _s(self.lib.lib.tilec_context_error(self.handle)) or ""

    def _fail(self, status):
        raise LibError(self.lib.status_name(status), self.error())

    def translate(self, source, **options):
        """source: bytes or str; options: those of translate_options.  Never raises for
        input errors: the result's status says TILEC_ERROR_INPUT and has the diagnostics."""
        src = source.encode() if isinstance(source, str) else source
        o = translate_options(source_size=len(src), **options)
        t = POINTER(Translation)()
        status = self.lib.lib.tilec_translate_source(src, byref(o), byref(t))
        if not t:
            raise LibError(self.lib.status_name(status), "tilec_translate_source gave no translation")
        try:
            return TranslationResult(self.lib, t.contents)
        finally:
            self.lib.lib.tilec_translation_free(t)

    def compile(self, code, arch, no_cache=False):
        """NVRTC: a cubin for sm_<arch>.  Returns (cubin size, from_cache, registers)."""
        co = CompileOptions(arch=arch, kind=BINARY_CUBIN, no_cache=int(no_cache))
        b = POINTER(Binary)()
        status = self.lib.lib.tilec_compile(self.handle, code.encode(), byref(co), byref(b))
        if status != STATUS_OK:
            self._fail(status)
        try:
            return b.contents.size, bool(b.contents.from_cache), b.contents.registers
        finally:
            self.lib.lib.tilec_binary_free(b)

    def kernel_create(self, source, options, arch):
        """tilec_kernel_create: translate + compile (cached) + load into the current CUDA
        context.  Needs the driver and a GPU."""
        src = source.encode() if isinstance(source, str) else source
        o = translate_options(source_size=len(src), **options)
        co = CompileOptions(arch=arch, kind=BINARY_CUBIN)
        k = c_void_p()
        status = self.lib.lib.tilec_kernel_create(self.handle, src, byref(o), byref(co), byref(k))
        if status != STATUS_OK:
            self._fail(status)
        return Kernel(self, k)

    def kernel_load_unbuilt(self, source, options):
        """A kernel made by tilec_kernel_load from a translation and an empty binary: enough
        to check launch arguments (tilec_launch checks them before it touches the driver),
        never to run.  For self-tests on machines without a GPU."""
        src = source.encode() if isinstance(source, str) else source
        o = translate_options(source_size=len(src), **options)
        t = POINTER(Translation)()
        status = self.lib.lib.tilec_translate_source(src, byref(o), byref(t))
        try:
            if status != STATUS_OK:
                raise LibError(self.lib.status_name(status), _s(t.contents.error) if t else "")
            empty = ctypes.create_string_buffer(b"\0" * 16)
            b = Binary(kind=BINARY_CUBIN, arch=80, data=ctypes.cast(empty, c_void_p), size=16, log=b"",
                       registers=-1, spill_store_bytes=-1, spill_load_bytes=-1, stack_bytes=-1,
                       static_shared_bytes=-1)
            k = c_void_p()
            status = self.lib.lib.tilec_kernel_load(self.handle, t, byref(b), byref(k))
            if status != STATUS_OK:
                self._fail(status)
            return Kernel(self, k)
        finally:
            if t:
                self.lib.lib.tilec_translation_free(t)

    def cache_stats(self):
        hits, misses = c_long(), c_long()
        self.lib.lib.tilec_cache_stats(self.handle, byref(hits), byref(misses))
        return hits.value, misses.value

    def nvrtc_version(self):
        major, minor = c_int(), c_int()
        status = self.lib.lib.tilec_nvrtc_version(self.handle, byref(major), byref(minor))
        if status != STATUS_OK:
            self._fail(status)
        return major.value, minor.value


class Kernel:
    """A tilec_kernel."""

    def __init__(self, ctx, handle):
        self.ctx, self.handle = ctx, handle
        info = ctx.lib.lib.tilec_kernel_get_info(handle).contents
        self.name = _s(info.name)
        self.params = [(_s(p.name), _s(p.type), bool(p.is_constexpr))
                       for p in info.params[:info.num_params]]
        self.num_args, self.grid = info.num_args, _s(info.grid)

    def runtime_params(self):
        return [(name, typ) for name, typ, const in self.params if not const]

    def variants(self):
        """The signatures of the variants a specialising kernel has compiled, the given one first."""
        lib = self.ctx.lib.lib
        return [_s(lib.tilec_kernel_variant_signature(self.handle, i))
                for i in range(lib.tilec_kernel_num_variants(self.handle))]

    def launch(self, stream, grid, args):
        """tilec_launch.  grid: up to three dimensions, or None for the kernel's grid
        expression; args: Arg values.  Returns "" on success, else the status and message."""
        dims = None
        if grid is not None:
            g = [int(x) for x in grid] + [1] * (3 - len(grid))
            dims = (c_uint * 3)(*g)
        array = (Arg * max(1, len(args)))(*args)
        status = self.ctx.lib.lib.tilec_launch(self.handle, c_void_p(stream or None), dims, array,
                                               len(args))
        if status == STATUS_OK:
            return ""
        return f"{self.ctx.lib.status_name(status)}: {self.ctx.error()}"

    def destroy(self):
        if self.handle:
            self.ctx.lib.lib.tilec_kernel_destroy(self.handle)
            self.handle = None


def self_test(lib):
    """Checks the structure mirror against the library without a GPU: a translation's code,
    metadata and diagnostics, and tilec_launch's argument checks (a zero grid launches
    nothing, so a good call returns before the driver).  Returns a list of problems."""
    problems = []
    if lib.version != HEADER_VERSION:
        problems.append(f"library version {lib.version}, binding written for {HEADER_VERSION}")
    src = ("import triton\nimport triton.language as tl\n\n@triton.jit\n"
           "def k(X, Y, n, a, BLOCK: tl.constexpr):\n"
           "    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
           "    tl.store(Y + i, tl.load(X + i, mask=i < n) * a, mask=i < n)\n")
    ctx = lib.context()
    try:
        opts = dict(filename="selftest.py", kernel="k", signature="*fp32:16, *fp32:16, i32, fp32",
                    defines={"BLOCK": "256"}, num_warps=2, grid="cdiv(n, BLOCK)")
        tr = ctx.translate(src, **opts)
        if tr.status != "TILEC_OK" or not tr.code or "k_launch" not in tr.code:
            problems.append(f"translation: {tr.status} {tr.diagnostic_text or tr.error}")
        runtime = [(p["name"], p["type"]) for p in tr.runtime_params()]
        if runtime != [("X", "*fp32"), ("Y", "*fp32"), ("n", "i32"), ("a", "fp32")]:
            problems.append(f"runtime parameters read as {runtime}")
        spec = [p["specialize"] for p in tr.runtime_params()]
        if spec != [0, 0, 3, 0]:
            problems.append(f"what a specialising launch looks at read as {spec} (X, Y given :16; n an i32; "
                            f"a a float)")
        if (tr.num_args, tr.grid, tr.threads) != (4, "cdiv(n, BLOCK)", 64):
            problems.append(f"kernel info read as num_args={tr.num_args} grid={tr.grid!r} "
                            f"threads={tr.threads}")
        # the last fields of the options: a mirror that lacks them leaves the library reading
        # past the structure (garbage variants, or none)
        var = ctx.translate(src, **dict(opts, signature="*fp32, *fp32:16, i32, fp32", variants=["n=i32:16"]))
        if var.status != "TILEC_OK" or "namespace variant1" not in (var.code or "") or \
                "if (n % 16 == 0) {" not in var.code:
            problems.append(f"a translation with one variant: {var.status} {var.first_message()}")
        bad = ctx.translate(src, **dict(opts, defines={"BLOCK": "100"}))
        if bad.status != "TILEC_ERROR_INPUT" or not bad.diagnostics or "power-of-two" not in \
                bad.diagnostic_text:
            problems.append(f"a bad BLOCK gave {bad.status}: {bad.diagnostic_text!r}")
        k = ctx.kernel_load_unbuilt(src, opts)
        try:
            good = [arg_for("*fp32", 0x1000), arg_for("*fp32", 0x2000), arg_for("i32", 5),
                    arg_for("fp32", 0.5)]
            err = k.launch(None, (0, 1, 1), good)
            if err:
                problems.append(f"good arguments refused: {err}")
            err = k.launch(None, (0, 1, 1), good[:2] + [arg_float(5.0), good[3]])
            if "TILEC_ERROR_LAUNCH_ARGS" not in err or "argument 3 (n)" not in err:
                problems.append(f"a float for n gave {err!r}")
            err = k.launch(None, (0, 1, 1), good[:2] + [arg_int(1 << 40), good[3]])
            if "does not fit" not in err:
                problems.append(f"2**40 for an i32 gave {err!r}")
        finally:
            k.destroy()
    finally:
        ctx.close()
    return problems
