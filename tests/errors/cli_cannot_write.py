# args: tests/errors/cli_cannot_write.py -k k -s "*i32, i32" -o /nonexistent-dir/out.cu
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n):
    tl.store(x_ptr, n)
