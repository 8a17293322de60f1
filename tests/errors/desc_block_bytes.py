# flags: -k k -s "*fp32:16, i32, i32"
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, M, N):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 16])
    e = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [16, 2])
