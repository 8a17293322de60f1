/*
 * builtins.h — every function a kernel may call, one row each: Triton's
 * tl.* library, tensor and dtype methods, libdevice / tl.math, Python's
 * math module and the Python builtins.  builtins.c turns the rows into the
 * lookup table and binds each call's arguments to the row's parameters
 * before its handler runs; lower_internal.h declares the handlers.
 *
 *   B(name, flags, handler, data, "parameters")
 *     name        as the kernel writes it, after module aliases are resolved
 *                 ("tl.load", "libdevice.exp", "math.log2", "min");
 *                 "tensor.NAME", "dtype.NAME" and "tensordesc.NAME" are
 *                 methods of a tensor, a dtype or a tensor descriptor, their
 *                 receiver bound to the first parameter
 *     flags       BI_METHOD: also a tensor method, x.NAME(...) binding x to
 *                 the first parameter
 *     handler     CVal *builtin_HANDLER(const BuiltinCall *c)
 *     data        an int the handler reads as c->data (which reduction,
 *                 which atomic, which op...)
 *     parameters  as in a Python signature: "x" is required; "x=None",
 *                 "x=False", "x=True" and "x=INT" are optional with that
 *                 default (an explicit None also gives the default; None
 *                 arrives as NULL); "*x" takes the remaining positional
 *                 arguments as a tuple, and the parameters after it are
 *                 keyword-only
 *   LATER(name, flags, what)
 *     known to Triton, not supported by tilec yet: calls are reported as
 *     "NAME is not supported yet (WHAT)"
 *
 * The unary and binary math functions (tl.exp, libdevice.pow...) are not
 * rows here: builtins.c adds one row per MATH_LIST / MATH2_LIST entry of
 * tir.h, under tl. and libdevice., plus the libdevice spellings in
 * BUILTIN_MATH_ALIASES.  Rows listed first win, so libdevice.exp (expf)
 * comes before the generated one.
 */
#ifndef TILEC_BUILTINS_H
#define TILEC_BUILTINS_H

enum { BI_METHOD = 1 };

#define BUILTIN_LIST(B, LATER)                                                                                    \
    /* ---- programs, memory, constants, casts (lower_builtins.c) */                                             \
    B("tl.program_id", 0, program_id, OP_PROGRAM_ID, "axis")                                                      \
    B("tl.num_programs", 0, program_id, OP_NUM_PROGRAMS, "axis")                                                  \
    B("tl.arange", 0, arange, 0, "start, end")                                                                    \
    B("tl.load", 0, load, 0,                                                                                      \
      "pointer, mask=None, other=None, boundary_check=None, padding_option=None, cache_modifier=None, "           \
      "eviction_policy=None, volatile=False")                                                                     \
    B("tl.store", 0, store, 0,                                                                                    \
      "pointer, value, mask=None, boundary_check=None, cache_modifier=None, eviction_policy=None")                \
    B("tl.zeros", 0, zeros, 0, "shape, dtype")                                                                    \
    B("tl.full", 0, full, 0, "shape, value, dtype")                                                               \
    B("tl.zeros_like", 0, zeros_like, 0, "input, dtype=None")                                                     \
    B("tl.full_like", 0, full_like, 0, "input, value, dtype=None")                                                \
    B("tl.where", 0, where, 0, "condition, x, y")                                                                 \
    B("tl.maximum", 0, minmax, 1, "x, y, propagate_nan=None")                                                     \
    B("tl.minimum", 0, minmax, 0, "x, y, propagate_nan=None")                                                     \
    B("tl.clamp", 0, clamp, 0, "x, min, max, propagate_nan=None")                                                 \
    B("tl.fma", 0, fma, 0, "x, y, z")                                                                             \
    B("tl.umulhi", 0, umulhi, 0, "x, y")                                                                          \
    B("tl.cdiv", 0, cdiv, 0, "x, div")                                                                            \
    B("tl.swizzle2d", 0, swizzle2d, 0, "i, j, size_i, size_j, size_g")                                          \
    B("tl.fdiv", 0, fdiv, 0, "x, y, ieee_rounding=False")                                                         \
    B("tl.cast", BI_METHOD, cast, 0, "input, dtype, fp_downcast_rounding=None, bitcast=False")                            \
    B("tensor.to", 0, to, 0, "self, dtype, fp_downcast_rounding=None, bitcast=False")                             \
    B("tl.multiple_of", 0, hint, 0, "input, values")                                                              \
    B("tl.max_contiguous", 0, hint, 1, "input, values")                                                           \
    B("tl.max_constancy", 0, hint, 2, "input, values")                                                            \
    B("tl.assume", 0, assume, 0, "cond")                                                                          \
    B("tl.debug_barrier", 0, debug_barrier, 0, "")                                                                \
    B("tl.static_assert", 0, static_assert, 0, "cond, msg=None")                                                  \
    B("tl.static_print", 0, static_print, 0, "*values, sep=None, end=None, file=None, flush=None")                \
    B("tl.constexpr", 0, constexpr, 0, "value")                                                                   \
    B("tl.get_int_dtype", 0, get_int_dtype, 0, "bitwidth, signed")                                                \
    B("tl._log2", 0, log2_constexpr, 0, "i")                                                                      \
    B("tl.range", 0, for_iterable, 0,                                                                             \
      "arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None, disallow_acc_multi_buffer=False, "    \
      "flatten=False, warp_specialize=False, disable_licm=False")                                                 \
    B("tl.static_range", 0, for_iterable, 0, "arg1, arg2=None, step=None")                                        \
    B("libdevice.exp", 0, math1, MATH_EXP_LIBDEVICE, "x") /* __nv_expf, not tl.exp's approximation */             \
    B("libdevice.expf", 0, math1, MATH_EXP_LIBDEVICE, "x")                                                        \
    B("libdevice.fma", 0, fma, 0, "x, y, z")                                                                      \
    B("libdevice.umulhi", 0, umulhi, 0, "x, y")                                                                   \
    B("libdevice.cdiv", 0, cdiv, 0, "x, div")                                                                     \
    /* ---- dtype methods (lower_builtins.c) */                                                                   \
    B("dtype.is_floating", 0, dtype_is_floating, 0, "self")                                                       \
    B("dtype.is_int", 0, dtype_is_int, 0, "self")                                                                 \
    B("dtype.is_int_signed", 0, dtype_is_int_signed, 0, "self")                                                   \
    B("dtype.is_int_unsigned", 0, dtype_is_int_unsigned, 0, "self")                                               \
    B("dtype.is_ptr", 0, dtype_is, DT_PTR, "self")                                                                \
    B("dtype.is_bool", 0, dtype_is, DT_I1, "self")                                                                \
    B("dtype.is_int1", 0, dtype_is, DT_I1, "self")                                                                \
    B("dtype.is_int8", 0, dtype_is, DT_I8, "self")                                                                \
    B("dtype.is_int16", 0, dtype_is, DT_I16, "self")                                                              \
    B("dtype.is_int32", 0, dtype_is, DT_I32, "self")                                                              \
    B("dtype.is_int64", 0, dtype_is, DT_I64, "self")                                                              \
    B("dtype.is_uint8", 0, dtype_is, DT_U8, "self")                                                               \
    B("dtype.is_uint16", 0, dtype_is, DT_U16, "self")                                                             \
    B("dtype.is_uint32", 0, dtype_is, DT_U32, "self")                                                             \
    B("dtype.is_uint64", 0, dtype_is, DT_U64, "self")                                                             \
    B("dtype.is_fp8e4nv", 0, dtype_is, DT_FP8E4NV, "self")                                                        \
    B("dtype.is_fp8e5", 0, dtype_is, DT_FP8E5, "self")                                                            \
    B("dtype.is_fp8", 0, dtype_is_fp8, 0, "self")                                                                 \
    B("dtype.is_standard_floating", 0, dtype_is_standard_floating, 0, "self")                                     \
    B("dtype.is_fp16", 0, dtype_is, DT_FP16, "self")                                                              \
    B("dtype.is_bf16", 0, dtype_is, DT_BF16, "self")                                                              \
    B("dtype.is_fp32", 0, dtype_is, DT_FP32, "self")                                                              \
    B("dtype.is_fp64", 0, dtype_is, DT_FP64, "self")                                                              \
    /* ---- Python builtins, math and triton.* helpers (lower_builtins.c) */                                      \
    B("min", 0, py_minmax, 0, "*args")                                                                            \
    B("max", 0, py_minmax, 1, "*args")                                                                            \
    B("len", 0, len, 0, "obj")                                                                                    \
    B("abs", 0, abs, 0, "x")                                                                                      \
    B("int", 0, int, 0, "x")                                                                                      \
    B("float", 0, float, 0, "x")                                                                                  \
    B("bool", 0, bool, 0, "x")                                                                                    \
    B("range", 0, for_iterable, 0, "arg1, arg2=None, step=None")                                                  \
    B("math.log2", 0, py_math, MATH_LOG2, "x")                                                                    \
    B("math.log", 0, py_math, MATH_LOG, "x")                                                                      \
    B("math.sqrt", 0, py_math, MATH_SQRT, "x")                                                                    \
    B("math.exp", 0, py_math, MATH_EXP, "x")                                                                      \
    B("math.ceil", 0, py_math, MATH_CEIL, "x")                                                                    \
    B("math.floor", 0, py_math, MATH_FLOOR, "x")                                                                  \
    B("triton.cdiv", 0, cdiv, 0, "x, div")                                                                        \
    B("torch.finfo", 0, torch_info, 0, "type")                                                                    \
    B("torch.iinfo", 0, torch_info, 1, "type")                                                                    \
    B("triton.next_power_of_2", 0, next_power_of_2, 0, "n")                                                       \
    LATER("print", 0, "use tl.device_print")                                                                      \
    LATER("isinstance", 0, "type tests")                                                               \
    /* ---- shapes, reductions, scans, atomics, dot, debugging (lower_tiles.c) */                                 \
    B("tl.expand_dims", BI_METHOD, expand_dims, 0, "input, axis")                                                 \
    B("tl.broadcast_to", BI_METHOD, broadcast_to, 0, "input, *shape")                                             \
    B("tl.broadcast", BI_METHOD, broadcast, 0, "input, other")                                                    \
    B("tl.trans", BI_METHOD, trans, 0, "input, *dims")                                                            \
    B("tl.permute", BI_METHOD, permute, 0, "input, *dims")                                                        \
    B("tl.sum", BI_METHOD, sum, 0, "input, axis=None, keep_dims=False, dtype=None")                               \
    B("tl.xor_sum", BI_METHOD, xor_sum, 0, "input, axis=None, keep_dims=False")                                   \
    B("tl.max", BI_METHOD, max_min, RED_MAX,                                                                      \
      "input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False")              \
    B("tl.min", BI_METHOD, max_min, RED_MIN,                                                                      \
      "input, axis=None, return_indices=False, return_indices_tie_break_left=True, keep_dims=False")              \
    B("tl.argmax", BI_METHOD, argmax_min, RED_ARGMAX, "input, axis, tie_break_left=True, keep_dims=False")        \
    B("tl.softmax", BI_METHOD, softmax, 0, "x, dim=None, keep_dims=False, ieee_rounding=False")                  \
    B("tl.argmin", BI_METHOD, argmax_min, RED_ARGMIN, "input, axis, tie_break_left=True, keep_dims=False")        \
    B("tl.cumsum", BI_METHOD, scan, SCAN_SUM, "input, axis=0, reverse=False, dtype=None")                         \
    B("tl.cumprod", BI_METHOD, scan, SCAN_PROD, "input, axis=0, reverse=False, dtype=None")                       \
    B("tl.atomic_add", BI_METHOD, atomic, ATOM_ADD, "pointer, val, mask=None, sem=None, scope=None")              \
    B("tl.atomic_max", BI_METHOD, atomic, ATOM_MAX, "pointer, val, mask=None, sem=None, scope=None")              \
    B("tl.atomic_min", BI_METHOD, atomic, ATOM_MIN, "pointer, val, mask=None, sem=None, scope=None")              \
    B("tl.atomic_and", BI_METHOD, atomic, ATOM_AND, "pointer, val, mask=None, sem=None, scope=None")              \
    B("tl.atomic_or", BI_METHOD, atomic, ATOM_OR, "pointer, val, mask=None, sem=None, scope=None")                \
    B("tl.atomic_xor", BI_METHOD, atomic, ATOM_XOR, "pointer, val, mask=None, sem=None, scope=None")              \
    B("tl.atomic_xchg", BI_METHOD, atomic, ATOM_XCHG, "pointer, val, mask=None, sem=None, scope=None")            \
    B("tl.atomic_cas", BI_METHOD, atomic_cas, 0, "pointer, cmp, val, sem=None, scope=None")                       \
    B("tl.dot", BI_METHOD, dot, 0,                                                                                \
      "input, other, acc=None, input_precision=None, allow_tf32=None, max_num_imprecise_acc=None, "               \
      "out_dtype=None")                                                                                           \
    B("tl.device_print", BI_METHOD, device_print, 0, "prefix, *args, hex=False")                                  \
    B("tl.device_assert", BI_METHOD, device_assert, 0, "cond, msg=None, mask=None")                               \
    /* ---- reductions and scans with a jit combine function (lower_combine.c) */                                 \
    B("tl.reduce", BI_METHOD, reduce, 0, "input, axis, combine_fn, keep_dims=False")                               \
    B("tl.map_elementwise", 0, map_elementwise, 0, "scalar_fn, *args, pack=1")                                     \
    B("tl.associative_scan", BI_METHOD, associative_scan, 0, "input, axis, combine_fn, reverse=False")             \
    /* ---- reshapes, joins, splits, flips (lower_shape.c) */                                                      \
    B("tl.reshape", BI_METHOD, reshape, 0, "input, *shape, can_reorder=False")                                    \
    B("tl.view", BI_METHOD, reshape, 1, "input, *shape")                                                          \
    B("tl.ravel", BI_METHOD, ravel, 0, "x, can_reorder=False")                                                    \
    B("tl.join", 0, join, 0, "a, b")                                                                              \
    B("tl.split", BI_METHOD, split, 0, "a")                                                                       \
    B("tl.interleave", 0, interleave, 0, "a, b")                                                                  \
    B("tl.cat", 0, cat, 0, "input, other, can_reorder=False")                                                     \
    B("tl.flip", BI_METHOD, flip, 0, "x, dim=None")                                                               \
    B("tl.gather", BI_METHOD, gather, 0, "src, index, axis")                                                      \
    /* ---- Philox random numbers (lower_random.c) */                                                             \
    B("tl.randint", 0, randint, 0, "seed, offset, n_rounds=10")                                                   \
    B("tl.randint4x", 0, randint4x, 0, "seed, offset, n_rounds=10")                                               \
    B("tl.rand", 0, rand, 0, "seed, offset, n_rounds=10")                                                         \
    B("tl.rand4x", 0, rand4x, 0, "seed, offsets, n_rounds=10")                                                    \
    B("tl.randn", 0, randn, 0, "seed, offset, n_rounds=10")                                                       \
    B("tl.randn4x", 0, randn4x, 0, "seed, offset, n_rounds=10")                                                   \
    B("tl.philox", 0, philox, 0, "seed, c0, c1, c2, c3, n_rounds=10")                                             \
    B("tl.philox_impl", 0, philox_impl, 0, "c0, c1, c2, c3, k0, k1, n_rounds=10")                                 \
    B("tl.uint_to_uniform_float", 0, uint_to_uniform_float, 0, "x")                                               \
    B("tl.pair_uniform_to_normal", 0, pair_uniform_to_normal, 0, "u1, u2")                                        \
    /* ---- block pointers and tensor descriptors (lower_blockptr.c) */                                           \
    B("tl.make_block_ptr", 0, make_block_ptr, 0, "base, shape, strides, offsets, block_shape, order")             \
    B("tl.advance", BI_METHOD, advance, 0, "base, offsets")                                                       \
    B("tl.make_tensor_descriptor", 0, make_tensor_descriptor, 0,                                                  \
      "base, shape, strides, block_shape, padding_option=None")                                                   \
    B("tl.load_tensor_descriptor", 0, descriptor_load, 0, "desc, offsets")                                        \
    B("tl.store_tensor_descriptor", 0, descriptor_store, 0, "desc, offsets, value")                               \
    B("tensordesc.load", 0, descriptor_load, 0, "self, offsets")                                                  \
    B("tensordesc.store", 0, descriptor_store, 0, "self, offsets, value")                                         \
    B("tensordesc.atomic_add", 0, descriptor_atomic, ATOM_ADD, "self, offsets, value")                            \
    B("tensordesc.atomic_min", 0, descriptor_atomic, ATOM_MIN, "self, offsets, value")                            \
    B("tensordesc.atomic_max", 0, descriptor_atomic, ATOM_MAX, "self, offsets, value")                            \
    B("tensordesc.atomic_and", 0, descriptor_atomic, ATOM_AND, "self, offsets, value")                            \
    B("tensordesc.atomic_or", 0, descriptor_atomic, ATOM_OR, "self, offsets, value")                              \
    B("tensordesc.atomic_xor", 0, descriptor_atomic, ATOM_XOR, "self, offsets, value")                            \
    LATER("tensordesc.gather", 0, "descriptor gather and scatter")                                                \
    LATER("tensordesc.scatter", 0, "descriptor gather and scatter")                                               \
    /* ---- sorting (lower_sort.c) */                                                                            \
    B("tl.sort", 0, sort, 0, "x, dim=None, descending=False")                                                     \
    B("tl.bitonic_merge", 0, bitonic_merge, 0, "x, dim=None, descending=False")                                   \
    B("tl.topk", 0, topk, 0, "x, k, dim=None")                                                                    \
    /* ---- inline assembly (lower_asm.c) */                                                                     \
    B("tl.inline_asm_elementwise", 0, inline_asm_elementwise, 0, "asm, constraints, args, dtype, is_pure, pack")  \
    /* ---- pointer types (lower_pointers.c) */                                                                   \
    B("tl.pointer_type", 0, pointer_type, 0, "element_ty, address_space=1, const=False")                          \
    B("tl.extra.cuda.globaltimer", 0, cuda_globaltimer, 0, "")                                                    \
    B("tl.extra.cuda.smid", 0, cuda_smid, 0, "")                                                                  \
    B("tl.extra.cuda.num_threads", 0, cuda_num_threads, 0, "")                                                    \
    B("tl.extra.cuda.num_warps", 0, cuda_num_threads, 1, "")                                                      \
    /* ---- histograms (lower_histogram.c) */                                                                    \
    B("tl.histogram", BI_METHOD, histogram, 0, "input, num_bins, mask=None")                                      \
    LATER("tensor.sort", 0, "Triton 3.6's tensor.sort returns None; call tl.sort(x)")              \
    /* ---- not supported yet */                                                                                 \
    LATER("tl.dot_scaled", BI_METHOD, "scaled matrix products")                                                  \
    LATER("tl.tuple", BI_METHOD, "tuples of tensors")                                                            \
    LATER("tl.async_task", BI_METHOD, "warp specialization")                                                     \
    LATER("tl.extra.cuda.convert_custom_float8_sm80", 0, "float8e4b15 conversions")                              \
    LATER("tl.extra.cuda.convert_custom_float8_sm70", 0, "float8e4b15 conversions")                              \
    LATER("tl.extra.cuda.experimental_device_tensormap_create1d", 0, "tensor descriptors")                       \
    LATER("tl.extra.cuda.experimental_device_tensormap_create2d", 0, "tensor descriptors")                       \
    LATER("tl.extra.cuda.experimental_tensormap_fenceproxy_acquire", 0, "tensor descriptors")

/* Names Triton 3.6 no longer has, reported as Triton reports them (an AttributeError of
 * triton.language) with what to use instead: X(name, instead) */
#define BUILTIN_REMOVED(X)                                                                                        \
    X("tl._experimental_make_tensor_descriptor", "tl.make_tensor_descriptor")                                     \
    X("tl._experimental_descriptor_load", "desc.load(offsets) on a tl.make_tensor_descriptor")                     \
    X("tl._experimental_descriptor_store", "desc.store(offsets, value) on a tl.make_tensor_descriptor")

/* libdevice spellings of the math functions, accepted under tl. and
 * libdevice. alike: X(math function, name) or X2(binary one, name) */
#define BUILTIN_MATH_ALIASES(X, X2)                                                                               \
    X(MATH_ABS, "fabs") X(MATH_EXP2, "exp2f") X(MATH_LOG, "logf") X(MATH_SQRT_RN, "sqrtf")                        \
    X(MATH_RSQRT, "rsqrtf") X(MATH_TANH, "tanhf") X(MATH_ERF, "erff") X(MATH_FLOOR, "floorf")                     \
    X(MATH_CEIL, "ceilf") X(MATH_RINT, "nearbyint") X(MATH_RINT, "llrint") X2(MATH2_POW, "powf")

#endif
