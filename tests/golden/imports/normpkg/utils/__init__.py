# A package's own names: `from normpkg.utils import lang` finds the submodule lang.py,
# `from normpkg.utils import EPS` this constant.
import triton.language as tl

EPS = tl.constexpr(1e-6)
